//! The per-call temp dir: TMPDIR of a sandboxed command, the one place outside the
//! workspace it may write. Made owner-only before the call, removed after it.

use std::path::{Path, PathBuf};

pub struct CallTmp {
    path: PathBuf,
}

impl CallTmp {
    pub fn create() -> std::io::Result<CallTmp> {
        let base = std::env::temp_dir();
        let mut last = None;
        for _ in 0..8 {
            let path = base.join(format!(
                "tooloop-bash-{}-{:016x}",
                std::process::id(),
                fastrand::u64(..)
            ));
            match std::fs::create_dir(&path) {
                Ok(()) => {
                    crate::paths::set_mode(&path, 0o700)?;
                    // Canonical, so the sandbox rule and TMPDIR name the same directory
                    // even where /tmp is a symlink (macOS: /private/tmp).
                    let path = path.canonicalize().unwrap_or(path);
                    return Ok(CallTmp { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free temp dir name")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CallTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
