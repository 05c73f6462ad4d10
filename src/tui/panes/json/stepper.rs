//! The JSON pane's request stepper: every request of the session, the subagents' among the
//! main agent's in the order they were sent, `[` / `]` to step through them in the request
//! and sse views, `d` for only what a request added to the one before (of the same agent).
//!
//! Memory stays bounded: only each request's headline lives here. The main agent's latest
//! request's body and events are the pane's live ones; an older one is read back from the
//! session's recording (`--record`) when it is shown, and dropped when another is. The
//! subagents' last [`MAX_CHILD_BODIES`] requests are kept with their events (they are not
//! the pane's live ones); an older one says it was not kept.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use crate::protocol::history_observer::SessionHandle;
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

/// Subagent requests whose bodies and events stay in memory.
pub const MAX_CHILD_BODIES: usize = 8;
/// Raw events kept for one subagent response.
const MAX_CHILD_SSE: usize = 5_000;

/// The subagent that sent a request.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentTag {
    pub id: String,
    /// As the tools pane names it (`explore #2`).
    pub label: String,
}

/// What is known about a request without its body.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestMeta {
    /// A subagent's request (None: the main agent's).
    pub agent: Option<AgentTag>,
    /// Its number among its agent's requests, from 0 (the main agent's: its place in the
    /// recording's request lines).
    pub ordinal: usize,
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
#[derive(Clone)]
pub struct Shown {
    pub index: usize,
    pub body: Arc<RequestBody>,
    pub sse: Vec<(String, String)>,
    pub prev_messages: Option<usize>,
}

#[derive(Default)]
pub struct Stepper {
    pub metas: Vec<RequestMeta>,
    /// The main agent's latest request (the pane's live one).
    live: Option<usize>,
    /// The main agent's requests so far.
    main_count: usize,
    /// Each subagent's latest request and how many it sent.
    child_last: HashMap<String, (usize, usize)>,
    /// The subagents' last requests, bodies and events (oldest first).
    children: VecDeque<Shown>,
    /// None: follow the main agent's latest request.
    pub selected: Option<usize>,
    /// Show only the messages a request added to the one before.
    pub diff: bool,
    link: Option<Link>,
    pub shown: Option<Shown>,
    /// Why an older request cannot be shown (no recording, unreadable file).
    pub problem: Option<String>,
    /// The body before the live one, for the live request's diff.
    pub prev_live: Option<Arc<RequestBody>>,
    /// Live: (transcript, ordinal of its first main request) for each transcript this run
    /// wrote to, so requests made before a `/new` are read from the recording they went to.
    files: Vec<(PathBuf, usize)>,
}

impl Stepper {
    pub fn link(&mut self, link: Link) {
        self.link = Some(link);
    }

    /// The main agent sent a request.
    pub fn started(&mut self, turn: u32, attempt: u32, bytes: usize) {
        if let Some(Link::Live(handle)) = &self.link {
            let transcript = handle.path();
            if self.files.last().is_none_or(|(p, _)| *p != transcript) {
                self.files.push((transcript, self.main_count));
            }
        }
        self.live = Some(self.metas.len());
        self.metas.push(RequestMeta::new(
            None,
            self.main_count,
            turn,
            attempt,
            bytes,
        ));
        self.main_count += 1;
    }

    /// A subagent sent a request: its headline joins the list and its body is kept (the
    /// oldest kept one makes room).
    pub fn child_started(
        &mut self,
        agent: AgentTag,
        turn: u32,
        attempt: u32,
        body: Arc<RequestBody>,
    ) {
        let index = self.metas.len();
        let (prev, ordinal) = match self.child_last.get(&agent.id) {
            Some(&(i, n)) => (Some(i), n),
            None => (None, 0),
        };
        let prev_messages = prev
            .and_then(|i| self.children.iter().find(|c| c.index == i))
            .and_then(|c| c.body.json().get("messages")?.as_array().map(Vec::len));
        self.child_last
            .insert(agent.id.clone(), (index, ordinal + 1));
        self.metas.push(RequestMeta::new(
            Some(agent),
            ordinal,
            turn,
            attempt,
            body.len(),
        ));
        if self.children.len() == MAX_CHILD_BODIES {
            self.children.pop_front();
        }
        self.children.push_back(Shown {
            index,
            body,
            sse: Vec::new(),
            prev_messages,
        });
    }

    /// A raw event of a subagent's response.
    pub fn child_sse(&mut self, agent_id: &str, event: &str, data: &str) {
        let Some(&(index, _)) = self.child_last.get(agent_id) else {
            return;
        };
        if let Some(c) = self.children.iter_mut().rev().find(|c| c.index == index)
            && c.sse.len() < MAX_CHILD_SSE
        {
            c.sse.push((event.to_string(), data.to_string()));
        }
    }

    /// The request in flight of the subagent `agent_id`, if any, to be updated.
    pub fn child_in_flight(&mut self, agent_id: &str) -> Option<&mut RequestMeta> {
        let &(index, _) = self.child_last.get(agent_id)?;
        self.metas.get_mut(index)
    }

    /// The main agent's request in flight.
    fn live_meta(&mut self) -> Option<&mut RequestMeta> {
        self.metas.get_mut(self.live?)
    }

    /// The server refused the request in flight with `status` and this error body.
    pub fn http_failed(&mut self, status: u16, body: &str) {
        if let Some(m) = self.live_meta() {
            m.http_failed(status, body);
        }
    }

    /// The shown request's HTTP failure (status, body as sent), if it had one.
    pub fn http_failure(&self) -> Option<&(u16, String)> {
        self.metas.get(self.current()?)?.http.as_ref()
    }

    /// The request in flight failed before its reply (a retry follows, or the turn ends).
    pub fn failed(&mut self, error: &str) {
        if let Some(m) = self.live_meta() {
            m.failed(error);
        }
    }

    /// The request in flight got its whole reply.
    pub fn completed(&mut self) {
        if let Some(m) = self.live_meta() {
            m.completed = true;
        }
    }

    /// The index shown (the main agent's latest unless one was picked).
    pub fn current(&self) -> Option<usize> {
        match self.selected {
            Some(i) if i < self.metas.len() => Some(i),
            _ => self.live.or(self.metas.len().checked_sub(1)),
        }
    }

    /// Whether a request other than the live one is picked (shown, or said why not).
    pub fn picked_other(&self) -> bool {
        self.current().is_some_and(|i| Some(i) != self.live)
    }

    /// Whether a request other than the live one is shown.
    pub fn showing_older(&self) -> bool {
        self.picked_other()
            && self
                .shown
                .as_ref()
                .is_some_and(|s| Some(s.index) == self.current())
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
        let live = Some(next) == self.live;
        self.selected = (!live).then_some(next);
        self.problem = None;
        self.shown = None;
        if !live {
            match self.load(next) {
                Ok(shown) => self.shown = Some(shown),
                Err(e) => self.problem = Some(e.to_string()),
            }
        }
        true
    }

    fn load(&mut self, index: usize) -> Result<Shown, RecordError> {
        let meta = &self.metas[index];
        if let Some(agent) = &meta.agent {
            return self
                .children
                .iter()
                .find(|c| c.index == index)
                .cloned()
                .ok_or_else(|| RecordError::SubagentNotKept {
                    agent: agent.label.clone(),
                    kept: MAX_CHILD_BODIES,
                });
        }
        let main = meta.ordinal;
        let (path, ordinal) = match &self.link {
            None => return Err(RecordError::NotRecorded),
            Some(Link::Replay(path)) => (path.clone(), main),
            Some(Link::Live(handle)) => {
                // The transcript main request `main` was written beside: this run's
                // requests to it are the last ones in its recording (a resumed session's
                // file holds earlier runs first), up to the next transcript's first request.
                let k = self.files.partition_point(|(_, first)| *first <= main);
                let (transcript, end) = match k.checked_sub(1) {
                    Some(k) => (
                        self.files[k].0.clone(),
                        self.files.get(k + 1).map_or(self.main_count, |f| f.1),
                    ),
                    None => (handle.path(), self.main_count),
                };
                let path = crate::recording::find_companion(&transcript)
                    .ok_or(RecordError::NoRecording(Some(transcript)))?;
                let total = count_requests(&path).map_err(|e| RecordError::io(&path, e))?;
                let ordinal = (total + main).checked_sub(end).ok_or(RecordError::Short)?;
                (path, ordinal)
            }
        };
        let loaded: LoadedRequest = load_request(&path, ordinal)
            .map_err(|e| RecordError::io(&path, e))?
            .ok_or(RecordError::MissingRequest {
                index: index + 1,
                path,
            })?;
        Ok(Shown {
            index,
            body: Arc::new(RequestBody::from(loaded.body)),
            sse: loaded.sse,
            prev_messages: loaded.prev_messages,
        })
    }

    /// "request 7 of 23 · turn 3 · attempt 2 · 12.3 KB", and the failure if it failed.
    pub fn headline(&self) -> Option<String> {
        let i = self.current()?;
        let m = &self.metas[i];
        let mut s = format!("request {} of {}", i + 1, self.metas.len());
        if let Some(a) = &m.agent {
            s.push_str(&format!(" · {} request {}", a.label, m.ordinal + 1));
        }
        s.push_str(&format!(
            " · turn {} · attempt {} · {}",
            m.turn,
            m.attempt,
            size(m.bytes)
        ));
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

impl RequestMeta {
    fn new(agent: Option<AgentTag>, ordinal: usize, turn: u32, attempt: u32, bytes: usize) -> Self {
        RequestMeta {
            agent,
            ordinal,
            turn,
            attempt,
            bytes,
            failed: None,
            completed: false,
            http: None,
        }
    }

    /// The server refused it with `status` and this error body.
    pub fn http_failed(&mut self, status: u16, body: &str) {
        if !self.completed {
            self.http = Some((status, body.to_string()));
        }
    }

    /// It failed before its reply.
    pub fn failed(&mut self, error: &str) {
        if self.failed.is_none() && !self.completed {
            self.failed = Some(error.to_string());
        }
    }
}

fn size(bytes: usize) -> String {
    if bytes >= 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} B")
    }
}
