//! The JSON pane's request stepper: every request of the session, `[` / `]` to step through
//! them in the request and sse views, `d` for only what a request added to the one before.
//!
//! Memory stays bounded: only each request's headline lives here. The latest request's body
//! and events are the pane's live ones; an older request is read back from the session's
//! recording (`--record`) when it is shown, and dropped when another is.

use std::path::PathBuf;
use std::sync::Arc;

use crate::agent::history_observer::SessionHandle;
use crate::provider::RequestBody;
use crate::recording::RecordError;
use crate::recording::index::{LoadedRequest, count_requests, load_request};

/// Where older requests are read from.
#[derive(Clone, Debug)]
pub enum Link {
    /// This run's recording beside the live transcript: this run's requests are the last
    /// ones in it (a resumed session's file holds earlier runs first).
    Live(SessionHandle),
    /// A recording being replayed from its start: request N of the pane is request N of
    /// the file.
    Replay(PathBuf),
}

/// What is known about a request without its body.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestMeta {
    pub turn: u32,
    pub attempt: u32,
    pub bytes: usize,
    /// The failure before any reply (HTTP status and the error body's message), if any.
    pub failed: Option<String>,
    /// Its stream ended properly (later errors are not its own).
    pub completed: bool,
    /// The HTTP status and error body the server answered with, as sent.
    pub http: Option<(u16, String)>,
}

/// An older request, loaded for display.
pub struct Shown {
    pub index: usize,
    pub body: Arc<RequestBody>,
    pub sse: Vec<(String, String)>,
    pub prev_messages: Option<usize>,
}

#[derive(Default)]
pub struct Stepper {
    pub metas: Vec<RequestMeta>,
    /// None: follow the latest request.
    pub selected: Option<usize>,
    /// Show only the messages a request added to the one before.
    pub diff: bool,
    link: Option<Link>,
    pub shown: Option<Shown>,
    /// Why an older request cannot be shown (no recording, unreadable file).
    pub problem: Option<String>,
    /// The body before the live one, for the live request's diff.
    pub prev_live: Option<Arc<RequestBody>>,
    /// Live: (transcript, first request index) for each transcript this run wrote to, so
    /// requests made before a `/new` are read from the recording they went to.
    files: Vec<(PathBuf, usize)>,
}

impl Stepper {
    pub fn link(&mut self, link: Link) {
        self.link = Some(link);
    }

    pub fn started(&mut self, turn: u32, attempt: u32, bytes: usize) {
        if let Some(Link::Live(handle)) = &self.link {
            let transcript = handle.path();
            if self.files.last().is_none_or(|(p, _)| *p != transcript) {
                self.files.push((transcript, self.metas.len()));
            }
        }
        self.metas.push(RequestMeta {
            turn,
            attempt,
            bytes,
            failed: None,
            completed: false,
            http: None,
        });
    }

    /// The server refused the request in flight with `status` and this error body.
    pub fn http_failed(&mut self, status: u16, body: &str) {
        if let Some(m) = self.metas.last_mut()
            && !m.completed
        {
            m.http = Some((status, body.to_string()));
        }
    }

    /// The shown request's HTTP failure (status, body as sent), if it had one.
    pub fn http_failure(&self) -> Option<&(u16, String)> {
        self.metas.get(self.current()?)?.http.as_ref()
    }

    /// The request in flight failed before its reply (a retry follows, or the turn ends).
    pub fn failed(&mut self, error: &str) {
        if let Some(m) = self.metas.last_mut()
            && m.failed.is_none()
            && !m.completed
        {
            m.failed = Some(error.to_string());
        }
    }

    /// The request in flight got its whole reply.
    pub fn completed(&mut self) {
        if let Some(m) = self.metas.last_mut() {
            m.completed = true;
        }
    }

    /// The index shown (the latest unless one was picked).
    pub fn current(&self) -> Option<usize> {
        match self.selected {
            Some(i) if i + 1 < self.metas.len() => Some(i),
            _ => self.metas.len().checked_sub(1),
        }
    }

    /// Whether an older request (not the live one) is shown.
    pub fn showing_older(&self) -> bool {
        self.current().is_some_and(|i| {
            i + 1 < self.metas.len() && self.shown.as_ref().is_some_and(|s| s.index == i)
        })
    }

    /// Moves by `delta` requests; true if the selection changed.
    pub fn step(&mut self, delta: i64) -> bool {
        let Some(cur) = self.current() else {
            return false;
        };
        let last = self.metas.len() - 1;
        let next = (cur as i64 + delta).clamp(0, last as i64) as usize;
        if next == cur {
            return false;
        }
        self.selected = (next < last).then_some(next);
        self.problem = None;
        self.shown = None;
        if next < last {
            match self.load(next) {
                Ok(loaded) => {
                    self.shown = Some(Shown {
                        index: next,
                        body: Arc::new(RequestBody::from(loaded.body)),
                        sse: loaded.sse,
                        prev_messages: loaded.prev_messages,
                    })
                }
                Err(e) => self.problem = Some(e.to_string()),
            }
        }
        true
    }

    fn load(&mut self, index: usize) -> Result<LoadedRequest, RecordError> {
        let (path, ordinal) = match &self.link {
            None => return Err(RecordError::NotRecorded),
            Some(Link::Replay(path)) => (path.clone(), index),
            Some(Link::Live(handle)) => {
                // The transcript request `index` was written beside: this run's requests
                // to it are the last ones in its recording (a resumed session's file holds
                // earlier runs first), up to the next transcript's first request.
                let k = self.files.partition_point(|(_, first)| *first <= index);
                let (transcript, end) = match k.checked_sub(1) {
                    Some(k) => (
                        self.files[k].0.clone(),
                        self.files.get(k + 1).map_or(self.metas.len(), |f| f.1),
                    ),
                    None => (handle.path(), self.metas.len()),
                };
                let path = crate::recording::find_companion(&transcript)
                    .ok_or(RecordError::NoRecording(Some(transcript)))?;
                let total = count_requests(&path).map_err(|e| RecordError::io(&path, e))?;
                let ordinal = (total + index).checked_sub(end).ok_or(RecordError::Short)?;
                (path, ordinal)
            }
        };
        load_request(&path, ordinal)
            .map_err(|e| RecordError::io(&path, e))?
            .ok_or(RecordError::MissingRequest {
                index: index + 1,
                path,
            })
    }

    /// "request 7 of 23 · turn 3 · attempt 2 · 12.3 KB", and the failure if it failed.
    pub fn headline(&self) -> Option<String> {
        let i = self.current()?;
        let m = &self.metas[i];
        let mut s = format!(
            "request {} of {} · turn {} · attempt {} · {}",
            i + 1,
            self.metas.len(),
            m.turn,
            m.attempt,
            size(m.bytes)
        );
        if self.diff {
            s.push_str(" · new messages only");
        }
        if let Some(f) = &m.failed {
            s.push_str(" · FAILED: ");
            s.push_str(f);
        }
        Some(s)
    }

    /// The live request's predecessor's message count (parsed only when a diff needs it).
    pub fn live_prev_messages(&self) -> Option<usize> {
        self.prev_live
            .as_ref()?
            .json()
            .get("messages")
            .and_then(|m| m.as_array())
            .map(Vec::len)
    }
}

fn size(bytes: usize) -> String {
    if bytes >= 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} B")
    }
}
