//! The checkpoint store under the data directory: file contents by SHA-256 in `blobs/`
//! (a content is stored once, however many prompts saved it), and one manifest per session,
//! `<session id>.jsonl`, that says which prompt saw which file in which state. Everything is
//! owner-only, like transcripts: a checkpoint holds whatever the files held.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::sha256::hex_digest;

/// A file as it was: its content (by hash) and permission bits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    pub hash: String,
    pub mode: u32,
    pub size: u64,
}

/// One line of a session's manifest. `prompt` counts the session's prompts from 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    /// `path` before the prompt first changed it (None: it did not exist).
    Before {
        prompt: usize,
        path: String,
        state: Option<FileState>,
    },
    /// `path` right after a tool of the prompt changed it: a later difference is the user's.
    After {
        prompt: usize,
        path: String,
        state: Option<FileState>,
    },
    /// A rewind to `to`: entries of prompts `to` and later no longer describe anything (the
    /// files were put back, or those prompt numbers are about to be reused).
    Rewind { to: usize },
}

impl Entry {
    pub fn prompt(&self) -> Option<usize> {
        match self {
            Entry::Before { prompt, .. } | Entry::After { prompt, .. } => Some(*prompt),
            Entry::Rewind { .. } => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store in the data directory (`checkpoints/`).
    pub fn open_default() -> Result<Store, crate::paths::PathsError> {
        Ok(Store::new(&crate::paths::checkpoints_dir()?))
    }

    pub fn new(dir: &Path) -> Store {
        Store {
            dir: dir.to_path_buf(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn blob_path(&self, hash: &str) -> PathBuf {
        self.dir
            .join("blobs")
            .join(&hash[..2.min(hash.len())])
            .join(hash)
    }

    fn manifest(&self, session: &str) -> PathBuf {
        self.dir.join(format!("{session}.jsonl"))
    }

    fn private_dir(&self, dir: &Path) -> io::Result<()> {
        crate::paths::create_private_dir(dir, crate::paths::tooloop_root(&self.dir))
    }

    /// Saves the file at `path` and says how it was. Ok(None): it does not exist.
    pub fn capture(&self, path: &Path) -> io::Result<Option<FileState>> {
        let Some((bytes, mode)) = read_file(path)? else {
            return Ok(None);
        };
        let hash = hex_digest(&bytes);
        let blob = self.blob_path(&hash);
        if !blob.exists() {
            let parent = blob.parent().unwrap_or(&self.dir);
            self.private_dir(parent)?;
            // Through a temp file, so a crash never leaves half a blob under a full name.
            let tmp = parent.join(format!(".{hash}.{:08x}.tmp", fastrand::u32(..)));
            let written = (|| {
                let mut f = private_file(&tmp, false)?;
                f.write_all(&bytes)?;
                f.sync_all()?;
                fs::rename(&tmp, &blob)
            })();
            if written.is_err() {
                let _ = fs::remove_file(&tmp);
            }
            written?;
        }
        Ok(Some(FileState {
            hash,
            mode,
            size: bytes.len() as u64,
        }))
    }

    /// The state of the file at `path` without saving its content.
    pub fn state_of(path: &Path) -> io::Result<Option<FileState>> {
        Ok(read_file(path)?.map(|(bytes, mode)| FileState {
            hash: hex_digest(&bytes),
            mode,
            size: bytes.len() as u64,
        }))
    }

    /// A saved content; Err when it is missing or does not match its name.
    pub fn read_blob(&self, hash: &str) -> io::Result<Vec<u8>> {
        if !is_hash(hash) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not a checkpoint hash: {hash:?}"),
            ));
        }
        let bytes = fs::read(self.blob_path(hash))?;
        if hex_digest(&bytes) != hash {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("checkpoint blob {hash} is damaged"),
            ));
        }
        Ok(bytes)
    }

    /// Appends one line to `session`'s manifest.
    pub fn append(&self, session: &str, entry: &Entry) -> io::Result<()> {
        self.private_dir(&self.dir)?;
        let mut line = serde_json::to_vec(entry)?;
        line.push(b'\n');
        private_file(&self.manifest(session), true)?.write_all(&line)
    }

    /// The entries of `session` that still count (a rewind voids the ones it went back over),
    /// in the order they were written. A session without checkpoints has none.
    pub fn entries(&self, session: &str) -> Result<Vec<Entry>, super::error::CheckpointError> {
        let path = self.manifest(session);
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(super::error::CheckpointError::Io { path, source }),
        };
        let mut out: Vec<Entry> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Entry>(line) {
                Ok(Entry::Rewind { to }) => out.retain(|e| e.prompt().is_some_and(|p| p < to)),
                Ok(e) => out.push(e),
                // A torn line from a crash: what it described cannot be restored anyway.
                Err(e) => tracing::warn!(path = %path.display(), line = i + 1, "skipped: {e}"),
            }
        }
        Ok(out)
    }

    /// Gives a fork its parent's checkpoints (the blobs are shared by hash).
    pub fn copy_manifest(&self, from: &str, to: &str) -> io::Result<()> {
        let src = self.manifest(from);
        if !src.exists() {
            return Ok(());
        }
        self.private_dir(&self.dir)?;
        let bytes = fs::read(&src)?;
        let mut f = private_file(&self.manifest(to), false)?;
        f.write_all(&bytes)
    }
}

fn is_hash(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The bytes and permission bits of a regular file; None when nothing is there. A directory
/// or other non-file is an error: checkpoints hold files only.
fn read_file(path: &Path) -> io::Result<Option<(Vec<u8>, u32)>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !meta.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    Ok(Some((fs::read(path)?, mode_of(&meta))))
}

#[cfg(unix)]
pub fn mode_of(meta: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
pub fn mode_of(meta: &fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

/// Opens a file owner-only (appending, or created new).
fn private_file(path: &Path, append: bool) -> io::Result<fs::File> {
    let mut opts = OpenOptions::new();
    if append {
        opts.append(true).create(true);
    } else {
        opts.write(true).create_new(true);
    }
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let f = opts.open(path)?;
    crate::paths::set_mode(path, 0o600)?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_content_is_stored_once_and_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::new(&dir.path().join("tooloop").join("checkpoints"));
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.txt");
        fs::write(&a, "same").expect("write");
        fs::write(&b, "same").expect("write");
        let sa = store.capture(&a).expect("capture").expect("exists");
        let sb = store.capture(&b).expect("capture").expect("exists");
        assert_eq!(sa.hash, sb.hash);
        assert_eq!(store.read_blob(&sa.hash).expect("blob"), b"same");
        let blobs = fs::read_dir(store.blob_path(&sa.hash).parent().expect("dir"))
            .expect("ls")
            .count();
        assert_eq!(blobs, 1, "one blob for one content");
        assert_eq!(store.capture(&dir.path().join("none")).expect("ok"), None);
        #[cfg(unix)]
        {
            let meta = fs::metadata(store.blob_path(&sa.hash)).expect("meta");
            assert_eq!(mode_of(&meta), 0o600);
            let meta = fs::metadata(store.dir()).expect("meta");
            assert_eq!(mode_of(&meta), 0o700);
        }
    }

    #[test]
    fn a_rewind_voids_the_entries_it_went_back_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::new(dir.path());
        let before = |prompt| Entry::Before {
            prompt,
            path: format!("/w/{prompt}"),
            state: None,
        };
        for e in [
            before(1),
            before(2),
            before(3),
            Entry::Rewind { to: 2 },
            before(2),
        ] {
            store.append("s1", &e).expect("append");
        }
        let prompts: Vec<_> = store
            .entries("s1")
            .expect("reads")
            .iter()
            .filter_map(Entry::prompt)
            .collect();
        assert_eq!(prompts, vec![1, 2]);
        store.copy_manifest("s1", "s2").expect("copy");
        assert_eq!(store.entries("s2").expect("reads").len(), 2);
        assert!(store.entries("nobody").expect("reads").is_empty());
        assert!(store.read_blob("../../etc/passwd").is_err());
        assert!(store.read_blob("é").is_err(), "no panic on a damaged hash");
    }
}
