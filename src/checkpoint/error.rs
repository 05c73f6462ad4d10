//! Why a checkpoint could not be saved or read (the edit still happens; the user is told it
//! cannot be rewound).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot save {} before the edit: {source}", path.display())]
    Capture {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("checkpoint manifest: {0}")]
    Manifest(std::io::Error),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Paths(#[from] crate::paths::PathsError),
}
