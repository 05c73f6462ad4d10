//! Which files a `SESSION` argument means: a session id (or unique prefix) in the sessions
//! directory, a transcript path, or a recording path.

use std::path::{Path, PathBuf};

use crate::recording::RecordError;

/// A session's transcript and its recording, where they exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub transcript: Option<PathBuf>,
    pub recording: Option<PathBuf>,
}

impl Source {
    /// The recording, or an error that says how to make one.
    pub fn require_recording(&self) -> Result<&Path, RecordError> {
        self.recording
            .as_deref()
            .ok_or_else(|| RecordError::NoRecording(self.transcript.clone()))
    }
}

/// Resolves `arg` against the user's sessions directory.
pub fn resolve(arg: &str) -> Result<Source, RecordError> {
    let dir = crate::paths::sessions_dir()?;
    resolve_in(&dir, arg)
}

/// [`resolve`] against `dir` (tests).
pub fn resolve_in(dir: &Path, arg: &str) -> Result<Source, RecordError> {
    let path = Path::new(arg);
    if path.is_file() {
        return Ok(if crate::recording::is_recording(path) {
            let t = crate::recording::transcript_of(path);
            Source {
                transcript: t.is_file().then_some(t),
                recording: Some(path.to_path_buf()),
            }
        } else {
            Source {
                recording: crate::recording::find_companion(path),
                transcript: Some(path.to_path_buf()),
            }
        });
    }
    let summary = crate::session::store::find(dir, arg)?;
    Ok(Source {
        recording: crate::recording::find_companion(&summary.path),
        transcript: Some(summary.path),
    })
}
