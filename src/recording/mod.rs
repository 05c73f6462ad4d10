//! `--record`: every request body as sent, every raw wire event with its arrival time, and
//! every tool's start, end and output, written beside the transcript as JSON Lines (plain or
//! gzip). `tooloop replay` plays it back, `tooloop export` and the JSON pane's request stepper
//! read it.
//!
//! The recording is taken where the agent's events leave for the front end (see
//! [`tap`]), so it holds exactly what a front end saw, in order, with the time it saw it.

pub mod entry;
pub mod error;
pub mod index;
pub mod reader;
#[cfg(test)]
mod roundtrip_tests;
pub mod source;
pub mod timeline;
pub mod writer;

use std::path::{Path, PathBuf};

pub use entry::{Entry, Kind};
pub use error::RecordError;
pub use reader::{Recording, read};
pub use writer::{RecordTap, RecordWriter, tap};

/// How a recording is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON Lines, one event a line.
    #[default]
    Plain,
    /// The same lines, gzip-compressed (one gzip member per request, so a crash loses at
    /// most the request in flight).
    Gzip,
}

/// `record = true | false | "plain" | "gzip"` in the config file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(untagged)]
pub enum Setting {
    On(bool),
    Named(String),
}

impl Setting {
    /// The format this setting asks for (None: off); an unknown name is an error.
    pub fn format(&self) -> Result<Option<Format>, RecordError> {
        match self {
            Setting::On(false) => Ok(None),
            Setting::On(true) => Ok(Some(Format::Plain)),
            Setting::Named(n) => match n.as_str() {
                "plain" => Ok(Some(Format::Plain)),
                "gzip" => Ok(Some(Format::Gzip)),
                "off" => Ok(None),
                other => Err(RecordError::BadSetting(other.to_string())),
            },
        }
    }
}

/// What [`start`] needs to know about the run.
pub struct RunInfo<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub sandbox: &'a str,
    pub sandboxed_tools: &'a [String],
}

/// Puts a recorder on `events` when `format` asks for one (engine::start calls this).
/// Without a transcript there is nowhere beside it to write: the user hears so on `notices`.
pub fn start(
    format: Option<Format>,
    session: Option<&crate::session::SessionInfo>,
    run: RunInfo<'_>,
    notices: &crate::protocol::events::EventSink,
    events: tokio::sync::mpsc::UnboundedReceiver<crate::protocol::AgentEvent>,
) -> (
    tokio::sync::mpsc::UnboundedReceiver<crate::protocol::AgentEvent>,
    Option<RecordTap>,
) {
    let Some(format) = format else {
        return (events, None);
    };
    let Some(session) = session else {
        notices.send(crate::protocol::AgentEvent::Notice {
            text: "--record writes beside the session transcript; with --no-session nothing \
                   is recorded"
                .into(),
        });
        return (events, None);
    };
    let header = writer::header(
        run.provider,
        run.model,
        Some(session.id.clone()),
        run.sandbox,
        run.sandboxed_tools,
    );
    let w = RecordWriter::new(
        format,
        session.handle.clone(),
        header,
        tokio::time::Instant::now(),
    );
    let (events, tap) = tap(w, events);
    (events, Some(tap))
}

/// The recording beside `transcript` (`NAME.jsonl` → `NAME.record` or `NAME.record.gz`).
/// Not `.jsonl`, so `tooloop sessions` never mistakes it for a transcript.
pub fn companion_path(transcript: &Path, format: Format) -> PathBuf {
    let stem = transcript
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match format {
        Format::Plain => format!("{stem}.record"),
        Format::Gzip => format!("{stem}.record.gz"),
    };
    transcript.with_file_name(name)
}

/// The recording of `transcript` that exists, if any (plain first).
pub fn find_companion(transcript: &Path) -> Option<PathBuf> {
    [Format::Plain, Format::Gzip]
        .into_iter()
        .map(|f| companion_path(transcript, f))
        .find(|p| p.is_file())
}

/// Whether `path` names a recording rather than a transcript.
pub fn is_recording(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".record") || name.ends_with(".record.gz")
}

/// The transcript a recording belongs to (`NAME.record[.gz]` → `NAME.jsonl`).
pub fn transcript_of(recording: &Path) -> PathBuf {
    let name = recording
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".record.gz")
        .or_else(|| name.strip_suffix(".record"))
        .unwrap_or(&name);
    recording.with_file_name(format!("{stem}.jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn companion_names_round_trip() {
        let t = Path::new("/s/20260101-abc.jsonl");
        let p = companion_path(t, Format::Plain);
        let g = companion_path(t, Format::Gzip);
        assert_eq!(p, Path::new("/s/20260101-abc.record"));
        assert_eq!(g, Path::new("/s/20260101-abc.record.gz"));
        assert!(is_recording(&p) && is_recording(&g) && !is_recording(t));
        assert_eq!(transcript_of(&p), t);
        assert_eq!(transcript_of(&g), t);
    }

    #[test]
    fn settings_parse() {
        assert_eq!(Setting::On(true).format().ok(), Some(Some(Format::Plain)));
        assert_eq!(Setting::On(false).format().ok(), Some(None));
        assert_eq!(
            Setting::Named("gzip".into()).format().ok(),
            Some(Some(Format::Gzip))
        );
        assert!(Setting::Named("zip".into()).format().is_err());
        assert_eq!(Setting::Named("off".into()).format().ok(), Some(None));
    }
}
