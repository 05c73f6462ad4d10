//! What can go wrong finding, reading or replaying a recording (and exporting a session).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("record = {0:?}: expected true, false, \"plain\" or \"gzip\"")]
    BadSetting(String),
    #[error("--speed {0}: expected a number above 0")]
    BadSpeed(f64),
    #[error(
        "no recording{}: run tooloop with --record (or record = true in the config) to write \
         one beside the transcript",
        .0.as_ref().map(|t| format!(" for {}", t.display())).unwrap_or_default()
    )]
    NoRecording(Option<PathBuf>),
    #[error("{0}: the transcript beside this recording is gone; nothing to export")]
    NoTranscript(String),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Session(#[from] crate::protocol::session_error::SessionError),
    #[error(transparent)]
    Paths(#[from] crate::paths::PathsError),
    /// The JSON pane's stepper has no recording to read older requests from.
    #[error(
        "not recorded: run tooloop with --record (or record = true) to step through older \
         requests (only the latest body is kept in memory)"
    )]
    NotRecorded,
    /// A subagent's request older than those the stepper keeps in memory.
    #[error(
        "not kept: {agent}'s request is older than the last {kept} subagent requests tooloop \
         keeps in memory"
    )]
    SubagentNotKept { agent: String, kept: usize },
    #[error("the recording holds fewer requests than this run made")]
    Short,
    #[error("request {index} is not in {}", path.display())]
    MissingRequest { index: usize, path: PathBuf },
}

impl RecordError {
    pub fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        RecordError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
