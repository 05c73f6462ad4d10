//! The live session's id and path, shared between the transcript writer and front ends.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

    pub(super) fn set(&self, id: &str, path: &Path) {
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
