//! What can go wrong opening, reading or resuming a transcript. Every message names the file
//! or the session and, where there is one, the way out.

use std::path::PathBuf;

use crate::message::HistoryError;
use crate::paths::PathsError;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: {problem}", path.display())]
    BadLine {
        path: PathBuf,
        line: usize,
        problem: String,
    },
    #[error("{}: not a tooloop transcript (empty)", path.display())]
    Empty { path: PathBuf },
    #[error("no saved session for workspace {0} (`tooloop sessions` lists them)")]
    NoneForWorkspace(String),
    #[error("cannot fork the session: {0}")]
    Fork(Box<SessionError>),
    #[error("this run keeps no transcript (--no-session), so there is nothing to fork")]
    NoTranscript,
    #[error("nothing to fork yet: this session has no messages")]
    NothingToFork,
    #[error("cannot write the fork: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("no session {0:?} (`tooloop sessions` lists them)")]
    NotFound(String),
    #[error("{id:?} fits {} sessions ({}); give more of the id", ids.len(), ids.join(", "))]
    Ambiguous { id: String, ids: Vec<String> },
    #[error("the saved history is damaged: {0}")]
    Damaged(HistoryError),
    #[error("session {id} ({}): {source}", path.display())]
    Unusable {
        id: String,
        path: PathBuf,
        source: Box<SessionError>,
    },
    #[error("session {0} is open in another tooloop; quit that one or start a new session")]
    Locked(String),
    #[error("sessions directory {}: {source} (--no-session runs without one)", path.display())]
    Directory {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Paths(#[from] PathsError),
}

/// A message record that does not fit the history replayed so far.
#[derive(Debug, thiserror::Error)]
#[error("message record for index {index} does not follow a history of {len} messages")]
pub struct OutOfOrder {
    pub index: usize,
    pub len: usize,
}
