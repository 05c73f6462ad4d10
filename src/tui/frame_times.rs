//! Per-frame draw times, for benchmarks of the real TUI: with `TOOLOOP_FRAME_TIMES=FILE` the
//! event loop keeps each frame's duration (layout, drawing and the write to the terminal)
//! with the agent's turn it was drawn in, and writes them to FILE when the loop ends, one
//! `turn micros` line per frame. Unset (the normal case) it costs one environment lookup at
//! start: no clock read, allocation or write per frame.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Frames kept at most (~2.5 hours at 60 fps; 8 bytes each), so a forgotten variable cannot
/// grow without bound.
const MAX_FRAMES: usize = 1 << 19;

pub struct FrameTimes {
    path: PathBuf,
    /// (turn, microseconds) per frame.
    frames: Vec<(u32, u32)>,
}

impl FrameTimes {
    /// Some when `TOOLOOP_FRAME_TIMES` names a file.
    pub fn from_env() -> Option<Self> {
        let path = std::env::var_os("TOOLOOP_FRAME_TIMES").filter(|p| !p.is_empty())?;
        Some(FrameTimes {
            path: PathBuf::from(path),
            frames: Vec::with_capacity(1 << 14),
        })
    }

    pub fn record(&mut self, turn: u32, took: Duration) {
        if self.frames.len() < MAX_FRAMES {
            let micros = u32::try_from(took.as_micros()).unwrap_or(u32::MAX);
            self.frames.push((turn, micros));
        }
    }

    fn write(&self) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&self.path)?);
        for (turn, micros) in &self.frames {
            writeln!(out, "{turn} {micros}")?;
        }
        out.flush()
    }
}

/// Written when the event loop ends, whichever way it returns.
impl Drop for FrameTimes {
    fn drop(&mut self) {
        if let Err(e) = self.write() {
            tracing::warn!("frame times not written to {}: {e}", self.path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_written_when_dropped() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("frames.txt");
        let mut t = FrameTimes {
            path: path.clone(),
            frames: Vec::new(),
        };
        t.record(1, Duration::from_micros(1500));
        t.record(2, Duration::from_secs(1 << 40));
        drop(t);
        let text = std::fs::read_to_string(&path).expect("written");
        assert_eq!(text, format!("1 1500\n2 {}\n", u32::MAX));
    }
}
