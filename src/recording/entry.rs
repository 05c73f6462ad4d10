//! One line of a recording: an [`AgentEvent`] as it crossed the channel, with the time it did.
//!
//! The recording is taken at the agent's event channel, the one boundary both front ends
//! read, so whatever replays it can feed either front end the very same events. A line is
//! the event's own serde form (src/agent/protocol/wire.rs) with `t_ms` in front: there is
//! no second vocabulary to keep in step.

use serde::{Deserialize, Serialize};

use crate::protocol::AgentEvent;

/// Format version written in the header; readers refuse newer majors.
pub const VERSION: u32 = 1;

/// One recorded line: milliseconds since the run started, then what happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub t_ms: u64,
    #[serde(flatten)]
    pub kind: Kind,
    /// A raw wire event's arrival time since its request started (`sse` lines only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub req_ms: Option<u64>,
}

/// What a recorded line holds: the run's header, or an event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)]
pub enum Kind {
    /// The first line of every run: what produced the recording.
    Header {
        version: u32,
        tooloop: String,
        provider: String,
        model: String,
        session: Option<String>,
        /// The shell's sandbox label and the tools that ran inside it (stream-json's
        /// `tool_end` lines carry it).
        #[serde(default)]
        sandbox: String,
        #[serde(default)]
        sandboxed_tools: Vec<String>,
    },
    /// Every other line: the event, its `type` its own.
    #[serde(untagged)]
    Event(AgentEvent),
}

impl Entry {
    /// Reads one line. The same result as deserializing an [`Entry`], in two quick passes
    /// instead of serde's buffered path for a flattened, partly untagged enum: the line's
    /// time and `type` first, then the line as the header or as the event it names.
    pub fn from_line(line: &[u8]) -> serde_json::Result<Entry> {
        #[derive(Deserialize)]
        struct Head<'a> {
            t_ms: u64,
            #[serde(default)]
            req_ms: Option<u64>,
            #[serde(rename = "type", borrow)]
            kind: std::borrow::Cow<'a, str>,
        }
        let head: Head = serde_json::from_slice(line)?;
        let kind = if head.kind == "header" {
            serde_json::from_slice::<Kind>(line)?
        } else {
            Kind::Event(serde_json::from_slice::<AgentEvent>(line)?)
        };
        Ok(Entry {
            t_ms: head.t_ms,
            kind,
            req_ms: head.req_ms,
        })
    }
}

impl Kind {
    /// The event this line recorded; None for the header.
    pub fn event(&self) -> Option<&AgentEvent> {
        match self {
            Kind::Header { .. } => None,
            Kind::Event(e) => Some(e),
        }
    }
}

/// A line as the writer puts it down: the event borrowed, not copied.
#[derive(Serialize)]
pub(super) struct EntryRef<'a> {
    pub t_ms: u64,
    #[serde(flatten)]
    pub event: &'a AgentEvent,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub req_ms: Option<u64>,
}
