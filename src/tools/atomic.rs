//! Atomic file replacement for write_file and edit_file: the new content goes to a temp file
//! in the same directory (same filesystem, so rename is atomic) and is renamed over the
//! target. A reader sees the old file or the new one, never half of either.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` atomically, keeping the permissions of a file it replaces.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path has no file name",
        ));
    };
    let permissions = fs::metadata(path).ok().map(|m| m.permissions());
    let tmp = dir.join(format!(
        ".{}.tooloop-{}-{:08x}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        fastrand::u32(..)
    ));
    let result = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Some(p) = permissions {
            fs::set_permissions(&tmp, p)?;
        }
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_content_keeps_mode_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("run.sh");
        fs::write(&f, "old").expect("write");
        fs::set_permissions(&f, fs::Permissions::from_mode(0o755)).expect("chmod");
        write_atomic(&f, b"new").expect("atomic write");
        assert_eq!(fs::read_to_string(&f).expect("read"), "new");
        let mode = fs::metadata(&f).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("run.sh")]);
    }
}
