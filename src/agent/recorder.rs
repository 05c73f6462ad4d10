//! A hook that sees every change to history, for transcripts (src/session.rs).

use std::sync::Arc;

use crate::agent::protocol::TurnSummary;
use crate::message::Message;
use crate::session::record::RewindRecord;

/// Told about every message as it is appended and about each prompt's start and end.
/// Implementations must not fail the loop: they log their own errors.
pub trait Recorder: Send + Sync {
    /// history[index] is now `message` (an append, or the last message extended).
    fn message(&mut self, index: usize, message: &Message);
    /// The calls of a reply ended (before their results are appended): how each ran.
    fn tool_runs(&mut self, _runs: &[crate::session::record::ToolTiming]) {}
    /// A prompt's loop begins; `model` is the model it will use.
    fn prompt_start(&mut self, prompt: &str, model: &str);
    /// A prompt's loop ended (flush and fsync here).
    fn prompt_end(&mut self, summary: &TurnSummary);
    /// The history was replaced by `messages` (empty: a new conversation). The transcript
    /// follows: a recorder for sessions starts a new session here.
    fn reset(&mut self, _messages: &[Arc<Message>]) {}
    /// The history was compacted into `history` (a boundary: resuming starts here).
    fn compaction(&mut self, _info: &crate::agent::context::Compaction, _history: &[Arc<Message>]) {
    }
    /// The session's todo list changed (written whole; resuming takes the last one).
    fn todos(&mut self, _todos: &[crate::todo::TodoItem]) {}
    /// The id of the session being written, for front ends to show.
    fn session_id(&self) -> Option<String> {
        None
    }
    /// The live id and path that front ends read, where there is a transcript.
    fn handle(&self) -> Option<crate::session::handle::SessionHandle> {
        None
    }
    /// The transcript file, where there is one (rewinds read it back).
    fn path(&self) -> Option<std::path::PathBuf> {
        None
    }
    /// A rewind happened; `trimmed` is the last kept message when the rewound prompt had
    /// been merged into it.
    fn rewind(&mut self, _record: &RewindRecord, _trimmed: Option<(usize, &Message)>) {}
    /// Continues in a new session holding a copy of this one; returns the new id.
    fn fork(&mut self) -> Result<String, crate::session::error::SessionError> {
        Err(crate::session::error::SessionError::NoTranscript)
    }
}
