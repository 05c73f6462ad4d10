//! Why a rewind could not be done (or read back), each with what the user can do.

use std::path::PathBuf;

use crate::checkpoint::error::CheckpointError;
use crate::message::HistoryError;
use crate::protocol::session_error::SessionError;

#[derive(Debug, thiserror::Error)]
pub enum RewindError {
    #[error("nothing to rewind yet: no prompt in this session")]
    NothingYet,
    #[error("this run keeps no transcript (--no-session), so there is nothing to rewind")]
    NoTranscript,
    #[error(
        "session {session} has {count} prompt{}; --to takes 1 to {count}",
        if *count == 1 { "" } else { "s" }
    )]
    NoSuchPrompt { session: String, count: usize },
    #[error("the history before prompt {to} is not valid: {source}")]
    InvalidHistory { to: usize, source: HistoryError },
    #[error(
        "a rewind to prompt {to} and {messages} messages does not fit a history of {have} \
         messages and {prompts} prompts"
    )]
    DoesNotFit {
        to: usize,
        messages: usize,
        have: usize,
        prompts: usize,
    },
    #[error(
        "the transcript {} does not hold this conversation (a write failed?); not rewinding",
        .0.display()
    )]
    TranscriptBehind(PathBuf),
    #[error("no checkpoint store beside the sessions")]
    NoStore,
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Session(#[from] SessionError),
}
