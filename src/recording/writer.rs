//! Writes a recording while the run goes on: a tap on the agent's event channel.
//!
//! Each event is timed on arrival (ms since the run started, the clock headless `t_ms` uses)
//! and written as one line. Lines are flushed at each request and at each prompt's end, so a
//! crash loses at most the request in flight; gzip recordings close one gzip member there
//! (a file of concatenated members is valid gzip).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use flate2::Compression;
use flate2::write::GzEncoder;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::time::Instant;

use super::entry::{Entry, EntryRef, Kind, VERSION};
use super::{Format, companion_path};
use crate::protocol::AgentEvent;
use crate::protocol::history_observer::SessionHandle;

/// Where a run's recording goes and what its header says.
pub struct RecordWriter {
    format: Format,
    /// The live session: its transcript path changes on `/new` and `/fork`, and the
    /// recording follows it.
    session: SessionHandle,
    header: Kind,
    start: Instant,
    request_at: Option<Instant>,
    current: Option<(PathBuf, Sink)>,
    /// Writing failed: the rest of the run is not recorded (said once, in the log).
    failed: bool,
}

enum Sink {
    Plain(BufWriter<File>),
    Gzip {
        file: File,
        member: Option<GzEncoder<Vec<u8>>>,
    },
}

impl Sink {
    fn write_line(&mut self, line: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.write_all(line),
            Sink::Gzip { member, .. } => member
                .get_or_insert_with(|| GzEncoder::new(Vec::new(), Compression::fast()))
                .write_all(line),
        }
    }

    /// Everything written so far reaches the file.
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.flush(),
            Sink::Gzip { file, member } => match member.take() {
                Some(m) => file.write_all(&m.finish()?),
                None => Ok(()),
            },
        }
    }
}

impl RecordWriter {
    /// A writer for the session behind `session`; `header` is written first in each file.
    pub fn new(format: Format, session: SessionHandle, header: Kind, start: Instant) -> Self {
        RecordWriter {
            format,
            session,
            header,
            start,
            request_at: None,
            current: None,
            failed: false,
        }
    }

    /// Takes one event at the moment it reaches the front end.
    pub fn observe(&mut self, event: &AgentEvent) {
        if self.failed {
            return;
        }
        let now = Instant::now();
        if matches!(event, AgentEvent::RequestStart { .. }) {
            self.request_at = Some(now);
        }
        // Raw wire events (a subagent's too) carry their time since the request started.
        let req_ms = matches!(event.unwrapped().1, AgentEvent::RawSse { .. }).then(|| {
            self.request_at
                .map_or(0, |t| now.duration_since(t).as_millis() as u64)
        });
        let t_ms = now.duration_since(self.start).as_millis() as u64;
        let boundary = matches!(
            event,
            AgentEvent::RequestStart { .. } | AgentEvent::Done(_) | AgentEvent::Session { .. }
        );
        let line = EntryRef {
            t_ms,
            event,
            req_ms,
        };
        if let Err(e) = self.write(&line, boundary) {
            tracing::error!("recording stopped: {e}");
            self.failed = true;
        }
    }

    fn write(&mut self, entry: &EntryRef<'_>, boundary: bool) -> std::io::Result<()> {
        let path = companion_path(&self.session.path(), self.format);
        if self.current.as_ref().is_none_or(|(p, _)| *p != path) {
            self.finish();
            let sink = open(&path, self.format)?;
            tracing::info!(path = %path.display(), "recording");
            self.current = Some((path, sink));
            let header = Entry {
                t_ms: entry.t_ms,
                kind: self.header.clone(),
                req_ms: None,
            };
            self.line(&header)?;
        }
        // A request starts a new gzip member: flush what came before it. The request line
        // itself is on disk before the front end sees the request, so the JSON pane can
        // count on it.
        if boundary && matches!(entry.event, AgentEvent::RequestStart { .. }) {
            self.flush()?;
        }
        self.line(entry)?;
        if boundary {
            self.flush()?;
        }
        Ok(())
    }

    fn line(&mut self, entry: &impl serde::Serialize) -> std::io::Result<()> {
        let Some((_, sink)) = &mut self.current else {
            return Ok(());
        };
        let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
        line.push(b'\n');
        sink.write_line(&line)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.current {
            Some((_, sink)) => sink.flush(),
            None => Ok(()),
        }
    }

    /// Writes out everything held (the run ends, or the session changed).
    pub fn finish(&mut self) {
        if let Err(e) = self.flush() {
            tracing::error!("recording: {e}");
        }
    }
}

fn open(path: &std::path::Path, format: Format) -> std::io::Result<Sink> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    Ok(match format {
        Format::Plain => Sink::Plain(BufWriter::with_capacity(64 * 1024, file)),
        Format::Gzip => Sink::Gzip { file, member: None },
    })
}

/// The recording of one run, shared between the tap task and [`crate::engine::Control`].
pub struct RecordTap {
    writer: Arc<Mutex<RecordWriter>>,
}

impl RecordTap {
    /// Writes out what is still buffered (the run ends).
    pub fn finish(&self) {
        if let Ok(mut w) = self.writer.lock() {
            w.finish();
        }
    }
}

/// Puts `writer` on the event channel: events pass through unchanged, each recorded first.
pub fn tap(
    writer: RecordWriter,
    mut events: UnboundedReceiver<AgentEvent>,
) -> (UnboundedReceiver<AgentEvent>, RecordTap) {
    let writer = Arc::new(Mutex::new(writer));
    let shared = writer.clone();
    let (tx, rx) = unbounded_channel();
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if let Ok(mut w) = shared.lock() {
                w.observe(&event);
            }
            if tx.send(event).is_err() {
                break;
            }
        }
        if let Ok(mut w) = shared.lock() {
            w.finish();
        }
    });
    (rx, RecordTap { writer })
}

/// The header line of a run.
pub fn header(
    provider: &str,
    model: &str,
    session: Option<String>,
    sandbox: &str,
    sandboxed: &[String],
) -> Kind {
    Kind::Header {
        version: VERSION,
        tooloop: env!("CARGO_PKG_VERSION").to_string(),
        provider: provider.to_string(),
        model: model.to_string(),
        session,
        sandbox: sandbox.to_string(),
        sandboxed_tools: sandboxed.to_vec(),
    }
}
