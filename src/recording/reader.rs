//! Reading a recording back, plain or gzip (told apart by the gzip magic bytes, not the
//! name). A torn last line (a crash mid-write) and lines that do not parse are skipped and
//! counted, never fatal: a recording is evidence, and a damaged one still shows most of it.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::entry::{Entry, Kind};

/// A whole recording in memory (replays and exports read it from start to end).
#[derive(Debug, Default)]
pub struct Recording {
    pub entries: Vec<Entry>,
    /// Lines that could not be read (damaged, or from a newer tooloop).
    pub skipped: usize,
}

impl Recording {
    /// The first header's provider and model, for front ends to show.
    pub fn header(&self) -> Option<&Kind> {
        self.entries
            .iter()
            .map(|e| &e.kind)
            .find(|k| matches!(k, Kind::Header { .. }))
    }
}

/// Opens `path` as a line reader, decompressing gzip.
pub fn lines(path: &Path) -> std::io::Result<Box<dyn BufRead>> {
    let mut file = std::fs::File::open(path)?;
    let mut magic = [0u8; 2];
    let n = file.read(&mut magic)?;
    let head = std::io::Cursor::new(magic[..n].to_vec());
    let whole = head.chain(file);
    Ok(if n == 2 && magic == [0x1f, 0x8b] {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(whole)))
    } else {
        Box::new(BufReader::with_capacity(64 * 1024, whole))
    })
}

/// Reads every entry of the recording at `path`.
pub fn read(path: &Path) -> std::io::Result<Recording> {
    let mut out = Recording::default();
    for_each(path, |entry| out.entries.push(entry), &mut out.skipped)?;
    Ok(out)
}

/// Calls `f` for every entry, in file order, without keeping them (the JSON pane's index).
pub fn for_each(path: &Path, mut f: impl FnMut(Entry), skipped: &mut usize) -> std::io::Result<()> {
    let mut reader = lines(path)?;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // A gzip stream cut short (a crash) reads as an error at its end: keep what came
        // before it.
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) if !buf.is_empty() => {
                tracing::warn!("{}: {e}", path.display());
                *skipped += 1;
                break;
            }
            Err(e) => return Err(e),
        }
        let line = buf.trim_ascii();
        if line.is_empty() {
            continue;
        }
        match Entry::from_line(line) {
            Ok(entry) => f(entry),
            Err(e) => {
                tracing::debug!("{}: skipped a line: {e}", path.display());
                *skipped += 1;
            }
        }
    }
    Ok(())
}
