//! The observer that sees every change to history (the session's transcript writer and the
//! checkpoints' tracking implement it), and the types it speaks in. They live here, beside
//! the trait, so the agent names nothing of the session or checkpoint code: those depend on
//! the agent, not the other way round.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::protocol::status::ToolTiming;

use crate::message::Message;
use crate::protocol::TurnSummary;

/// Told about every message as it is appended and about each prompt's start and end.
/// Implementations must not fail the loop: they log their own errors.
pub trait HistoryObserver: Send + Sync {
    /// history[index] is now `message` (an append, or the last message extended).
    fn message(&mut self, index: usize, message: &Message);
    /// The calls of a reply ended (before their results are appended): how each ran.
    fn tool_runs(&mut self, _runs: &[ToolTiming]) {}
    /// A prompt's loop begins; `model` is the model it will use.
    fn prompt_start(&mut self, prompt: &str, model: &str);
    /// A prompt's loop ended (flush and fsync here).
    fn prompt_end(&mut self, summary: &TurnSummary);
    /// The history was replaced by `messages` (empty: a new conversation). The transcript
    /// follows: an observer for sessions starts a new session here.
    fn reset(&mut self, _messages: &[Arc<Message>]) {}
    /// The history was compacted into `history` (a boundary: resuming starts here).
    fn compaction(
        &mut self,
        _info: &crate::protocol::compaction::Compaction,
        _history: &[Arc<Message>],
    ) {
    }
    /// A background job started or ended (the transcript lists the session's jobs).
    fn background(&mut self, _job: &crate::background::types::JobInfo) {}
    /// The session's todo list changed (written whole; resuming takes the last one).
    fn todos(&mut self, _todos: &[crate::todo::TodoItem]) {}
    /// The id of the session being written, for front ends to show.
    fn session_id(&self) -> Option<String> {
        None
    }
    /// The live id and path that front ends read, where there is a transcript.
    fn handle(&self) -> Option<SessionHandle> {
        None
    }
    /// The transcript file, where there is one (rewinds read it back).
    fn path(&self) -> Option<PathBuf> {
        None
    }
    /// A rewind happened; `trimmed` is the last kept message when the rewound prompt had
    /// been merged into it.
    fn rewind(&mut self, _record: &RewindRecord, _trimmed: Option<(usize, &Message)>) {}
    /// Continues in a new session holding a copy of this one; returns the new id.
    fn fork(&mut self) -> Result<String, crate::protocol::session_error::SessionError> {
        Err(crate::protocol::session_error::SessionError::NoTranscript)
    }
}

/// A rewind to just before prompt `to_prompt`: when `messages` is set the history was cut to
/// that many messages (a following message record may trim the last one), and the prompts
/// from `to_prompt` on no longer count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RewindRecord {
    pub time: String,
    pub to_prompt: usize,
    pub messages: Option<usize>,
    pub files: bool,
    pub restored: Vec<String>,
    pub deleted: Vec<String>,
    pub conflicts: Vec<String>,
}

/// A wall-clock time as RFC 3339 to the millisecond.
pub fn rfc3339_ms(t: std::time::SystemTime) -> String {
    jiff::Timestamp::try_from(t)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// The id of the session being written now; it changes when the conversation is reset
/// (`/new` in the TUI). Front ends read it for the status bar.
#[derive(Clone, Debug, Default)]
pub struct SessionHandle(Arc<Mutex<Current>>);

#[derive(Clone, Debug, Default)]
struct Current {
    id: String,
    path: PathBuf,
}

impl SessionHandle {
    pub fn id(&self) -> String {
        self.lock().id.clone()
    }

    pub fn path(&self) -> PathBuf {
        self.lock().path.clone()
    }

    pub fn set(&self, id: &str, path: &Path) {
        let mut c = self.lock();
        c.id = id.to_string();
        c.path = path.to_path_buf();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Current> {
        // A panic elsewhere while holding this cannot leave two strings inconsistent enough
        // to matter; keep going.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}
