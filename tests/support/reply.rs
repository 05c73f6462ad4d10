//! Scripted replies: SSE event lists with delays, chunking, gates and endings; error statuses.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

/// A latch a test opens to release a waiting reply or event (from any thread, sync or async):
/// deterministic "hold the stream here until I say so", no sleeps.
#[derive(Clone, Debug)]
pub struct Gate(Arc<tokio::sync::watch::Sender<bool>>);

impl Default for Gate {
    fn default() -> Self {
        Self::new()
    }
}

impl Gate {
    pub fn new() -> Self {
        Gate(Arc::new(tokio::sync::watch::Sender::new(false)))
    }

    pub fn open(&self) {
        self.0.send_replace(true);
    }

    pub async fn wait(&self) {
        let mut rx = self.0.subscribe();
        let _ = rx.wait_for(|open| *open).await;
    }
}

/// One server-sent event, or raw bytes written as they are.
#[derive(Clone, Debug)]
pub struct SseEvent {
    /// Waited before this event is written.
    pub delay: Duration,
    /// Waited for (after `delay`) before this event is written.
    pub gate: Option<Gate>,
    pub bytes: Vec<u8>,
}

impl SseEvent {
    /// `event: NAME\ndata: DATA\n\n`.
    pub fn named(name: &str, data: &Value) -> Self {
        Self::raw(format!("event: {name}\ndata: {data}\n\n"))
    }

    /// `data: DATA\n\n` with no event name (the OpenAI style).
    pub fn data(data: &str) -> Self {
        Self::raw(format!("data: {data}\n\n"))
    }

    /// Bytes written exactly as given (comments, malformed events, CRLF framing…).
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Self {
        SseEvent {
            delay: Duration::ZERO,
            gate: None,
            bytes: bytes.into(),
        }
    }

    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Holds this event (and all after it) until `gate` is opened.
    pub fn gated(mut self, gate: &Gate) -> Self {
        self.gate = Some(gate.clone());
        self
    }
}

/// How an SSE body ends once its events are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The terminating chunk is written and the connection closed: a clean end.
    Complete,
    /// The socket is closed without the terminating chunk: the client sees a broken body.
    Drop,
    /// Nothing more is written and the connection stays open until the server is dropped.
    Stall,
}

#[derive(Clone, Debug)]
pub enum Body {
    /// 200 text/event-stream, chunked; each event (or each `chunk`-byte piece of it) is its
    /// own HTTP chunk, written and flushed separately.
    Sse {
        events: Vec<SseEvent>,
        chunk: Option<usize>,
        ending: Ending,
    },
    /// Any status with headers and a body (error replies).
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Accept the request and never answer (abort before the first byte).
    Hang,
}

/// A scripted reply, served to the next valid request.
#[derive(Clone, Debug)]
pub struct Reply {
    /// Waited before the response head is written.
    pub head_delay: Duration,
    /// Waited for (after `head_delay`) before the response head is written.
    pub head_gate: Option<Gate>,
    pub body: Body,
}

impl Reply {
    pub fn sse(events: Vec<SseEvent>) -> Self {
        Reply {
            head_delay: Duration::ZERO,
            head_gate: None,
            body: Body::Sse {
                events,
                chunk: None,
                ending: Ending::Complete,
            },
        }
    }

    /// An error status with the API's JSON error body.
    pub fn error(status: u16, error_type: &str, message: &str) -> Self {
        let body = json!({"type": "error", "error": {"type": error_type, "message": message}});
        Reply::status(status, &body.to_string())
    }

    pub fn status(status: u16, body: &str) -> Self {
        Reply {
            head_delay: Duration::ZERO,
            head_gate: None,
            body: Body::Status {
                status,
                headers: vec![("content-type".into(), "application/json".into())],
                body: body.to_string(),
            },
        }
    }

    pub fn hang() -> Self {
        Reply {
            head_delay: Duration::ZERO,
            head_gate: None,
            body: Body::Hang,
        }
    }

    /// Adds a response header (only for `Status` replies).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Body::Status { headers, .. } = &mut self.body {
            headers.push((name.to_string(), value.to_string()));
        }
        self
    }

    /// Writes the SSE body in pieces of `n` bytes, each flushed on its own.
    pub fn chunked(mut self, n: usize) -> Self {
        if let Body::Sse { chunk, .. } = &mut self.body {
            *chunk = Some(n.max(1));
        }
        self
    }

    pub fn ending(mut self, how: Ending) -> Self {
        if let Body::Sse { ending, .. } = &mut self.body {
            *ending = how;
        }
        self
    }

    pub fn head_delay(mut self, d: Duration) -> Self {
        self.head_delay = d;
        self
    }

    /// Holds the response head until `gate` is opened.
    pub fn head_gated(mut self, gate: &Gate) -> Self {
        self.head_gate = Some(gate.clone());
        self
    }

    /// Holds SSE event `index` (and all after it) until `gate` is opened.
    pub fn gate_event(mut self, index: usize, gate: &Gate) -> Self {
        if let Some(e) = self.events_mut().get_mut(index) {
            e.gate = Some(gate.clone());
        }
        self
    }

    /// Sets the same delay before every event.
    pub fn event_delay(mut self, d: Duration) -> Self {
        if let Body::Sse { events, .. } = &mut self.body {
            for e in events {
                e.delay = d;
            }
        }
        self
    }

    /// The SSE events, for tweaking a built reply (truncate, insert faults…).
    pub fn events_mut(&mut self) -> &mut Vec<SseEvent> {
        match &mut self.body {
            Body::Sse { events, .. } => events,
            _ => panic!("events_mut on a non-SSE reply"),
        }
    }
}
