//! A job's output file: everything the job wrote, in order, kept to the last [`KEEP`]
//! bytes. Offsets are absolute (bytes since the job started), so a reader's cursor stays
//! valid when the oldest part is dropped; it then learns how much it missed.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The file keeps the last 8 MiB of output.
pub const KEEP: u64 = 8 * 1024 * 1024;
/// It grows this much past KEEP before the oldest part is dropped, so dropping (a copy of
/// KEEP bytes) happens once per MiB of output, not on every write.
const SLACK: u64 = 1024 * 1024;

pub struct OutputFile {
    path: PathBuf,
    file: File,
    /// Absolute offset of the file's first byte.
    base: u64,
    /// Bytes written in all (absolute offset of the end).
    total: u64,
    keep: u64,
    slack: u64,
}

/// What a read returned.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Read {
    pub bytes: Vec<u8>,
    /// Bytes between the cursor and what the file still holds (dropped as too old).
    pub skipped: u64,
}

impl OutputFile {
    /// A new, owner-only file at `path`.
    pub fn create(path: &Path) -> io::Result<OutputFile> {
        Self::with_limits(path, KEEP, SLACK)
    }

    fn with_limits(path: &Path, keep: u64, slack: u64) -> io::Result<OutputFile> {
        Ok(OutputFile {
            path: path.to_path_buf(),
            file: open(path, true)?,
            base: 0,
            total: 0,
            keep,
            slack,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)?;
        self.total += bytes.len() as u64;
        if self.total - self.base > self.keep + self.slack {
            self.drop_oldest()?;
        }
        Ok(())
    }

    /// Everything from absolute offset `from` to the end (what the file still holds of it).
    pub fn read_from(&self, from: u64) -> io::Result<Read> {
        let start = from.max(self.base);
        let len = self.total.saturating_sub(start);
        let mut bytes = vec![0; len as usize];
        self.file.read_exact_at(&mut bytes, start - self.base)?;
        Ok(Read {
            bytes,
            skipped: start - from.min(start),
        })
    }

    /// Keeps the last `keep` bytes: copied to a new file that takes the old one's place.
    fn drop_oldest(&mut self) -> io::Result<()> {
        let new_base = self.total - self.keep;
        let mut tail = vec![0; self.keep as usize];
        self.file.read_exact_at(&mut tail, new_base - self.base)?;
        let tmp = self.path.with_extension("tmp");
        let mut next = open(&tmp, false)?;
        next.write_all(&tail)?;
        std::fs::rename(&tmp, &self.path)?;
        self.file = next;
        self.base = new_base;
        Ok(())
    }
}

fn open(path: &Path, new: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    // Written only sequentially at the end, read with pread: no append flag needed.
    o.read(true).write(true).mode(0o600);
    if new {
        o.create_new(true);
    } else {
        o.create(true).truncate(true);
    }
    o.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_from_a_cursor_and_says_what_was_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = OutputFile::with_limits(&dir.path().join("b1.log"), 10, 5).unwrap();
        f.append(b"0123456789").unwrap();
        assert_eq!(f.read_from(4).unwrap().bytes, b"456789");
        f.append(b"abcdef").unwrap(); // 16 > 10 + 5: the oldest 6 bytes go
        assert_eq!(std::fs::read(f.path()).unwrap(), b"6789abcdef");
        let r = f.read_from(4).unwrap();
        assert_eq!((r.bytes.as_slice(), r.skipped), (&b"6789abcdef"[..], 2));
        let r = f.read_from(12).unwrap();
        assert_eq!((r.bytes.as_slice(), r.skipped), (&b"cdef"[..], 0));
        f.append(b"gh").unwrap();
        assert_eq!(f.read_from(16).unwrap().bytes, b"gh");
        assert_eq!(f.total(), 18);
    }
}
