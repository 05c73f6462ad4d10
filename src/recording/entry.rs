//! One line of a recording: an [`AgentEvent`] as it crossed the channel, with the time it did.
//!
//! The recording is taken at the agent's event channel, the one boundary both front ends
//! read, so whatever replays it can feed either front end the very same events.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::protocol::AgentEvent;
use crate::message::Message;
use crate::provider::Usage;

/// Format version written in the header; readers refuse newer majors.
pub const VERSION: u32 = 1;

/// One recorded line: milliseconds since the run started, then what happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub t_ms: u64,
    #[serde(flatten)]
    pub kind: Kind,
}

/// What a recorded line holds. Field names follow stream-json where both have the thing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
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
    PromptStart {
        text: String,
    },
    /// The session's todo list changed (stream-json's `todo`).
    Todos {
        todos: Vec<crate::todo::TodoItem>,
    },
    TurnStart {
        turn: u32,
    },
    /// A request body exactly as sent (credentials never are: they travel in headers).
    Request {
        turn: u32,
        attempt: u32,
        model: String,
        bytes: usize,
        body: Value,
    },
    /// The server's HTTP error answer to the request in flight, status and body as sent.
    RequestFailed {
        status: u16,
        body: String,
    },
    Retry {
        attempt: u32,
        delay_ms: u64,
        error: String,
    },
    /// A raw wire event; `req_ms` is its arrival time since its request started.
    Sse {
        event: String,
        data: String,
        req_ms: u64,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    ToolUseStreaming {
        id: String,
        name: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
        safe: bool,
        summary: String,
        #[serde(default)]
        preview: Option<Value>,
    },
    PermissionRequest {
        id: String,
        tool: String,
        input: Value,
        summary: String,
        #[serde(default)]
        preview: Option<Value>,
    },
    Permission {
        id: String,
        name: String,
        allowed: bool,
    },
    ToolStart {
        id: String,
        name: String,
    },
    ToolProgress {
        id: String,
        chunk: String,
    },
    ToolEnd {
        id: String,
        name: String,
        is_error: bool,
        outcome: String,
        duration_ms: u64,
        output: String,
    },
    StreamEnd {
        turn: u32,
        stop_reason: Option<String>,
    },
    Usage {
        usage: Usage,
    },
    Message {
        index: usize,
        message: Message,
    },
    Notice {
        text: String,
    },
    ServerBlock {
        block: Value,
    },
    Discarded {
        reason: String,
    },
    Error {
        message: String,
    },
    HistoryReset {
        messages: Vec<Message>,
        summaries: HashMap<String, String>,
    },
    EarlierHistory {
        messages: Vec<Message>,
    },
    /// How a resumed session's tool calls ran (recorded durations for the tool rows).
    ToolTimings {
        timings: HashMap<String, crate::agent::protocol::status::ToolTiming>,
    },
    Session {
        id: String,
    },
    Compacted {
        info: Value,
        messages: Vec<Message>,
    },
    Context {
        status: Value,
    },
    HookStart {
        id: String,
        event: String,
        command: String,
    },
    HookEnd {
        id: String,
        report: Value,
    },
    Mcp {
        status: Value,
    },
    ModelChanged {
        model: String,
    },
    Background {
        event: Value,
    },
    Done {
        summary: Value,
    },
    /// A subagent started (stream-json's `agent_start` fields).
    AgentStart {
        info: Value,
    },
    /// A subagent ended (stream-json's `agent_end` fields).
    AgentEnd {
        report: Value,
    },
    /// A subagent's own event, as its line would be.
    Subagent {
        agent_id: String,
        parent_tool_use_id: String,
        event: Box<Kind>,
    },
}

impl Kind {
    /// The line for `event` (None only if a part of it cannot be serialized). `req_ms`: time
    /// since the current request started, for raw wire events.
    ///
    /// This match and [`Kind::to_event`] are the recorded form's single source of truth:
    /// both are exhaustive, so a new [`AgentEvent`] variant does not compile until it is
    /// given a line here, and `record::roundtrip_tests` fails until it round-trips.
    pub fn from_event(event: &AgentEvent, req_ms: u64) -> Option<Kind> {
        use AgentEvent as E;
        Some(match event {
            E::PromptStart { text } => Kind::PromptStart { text: text.clone() },
            E::TurnStart { turn } => Kind::TurnStart { turn: *turn },
            E::RequestStart {
                turn,
                attempt,
                model,
                body,
            } => Kind::Request {
                turn: *turn,
                attempt: *attempt,
                model: model.clone(),
                bytes: body.len(),
                body: body.json().clone(),
            },
            E::RequestFailed { status, body } => Kind::RequestFailed {
                status: *status,
                body: body.clone(),
            },
            E::Retry {
                attempt,
                delay_ms,
                error,
            } => Kind::Retry {
                attempt: *attempt,
                delay_ms: *delay_ms,
                error: error.clone(),
            },
            E::TextDelta { text } => Kind::TextDelta { text: text.clone() },
            E::ThinkingDelta { text } => Kind::ThinkingDelta { text: text.clone() },
            E::ToolUseStreaming { id, name } => Kind::ToolUseStreaming {
                id: id.clone(),
                name: name.clone(),
            },
            E::ToolUse {
                id,
                name,
                input,
                safe,
                summary,
                preview,
            } => Kind::ToolUse {
                id: id.clone(),
                name: name.clone(),
                input: input.clone(),
                safe: *safe,
                summary: summary.clone(),
                preview: preview.as_ref().and_then(|p| serde_json::to_value(p).ok()),
            },
            E::PermissionRequest {
                id,
                tool,
                input,
                summary,
                preview,
            } => Kind::PermissionRequest {
                id: id.clone(),
                tool: tool.clone(),
                input: input.clone(),
                summary: summary.clone(),
                preview: preview.as_ref().and_then(|p| serde_json::to_value(p).ok()),
            },
            E::Permission { id, name, allowed } => Kind::Permission {
                id: id.clone(),
                name: name.clone(),
                allowed: *allowed,
            },
            E::ToolStart { id, name } => Kind::ToolStart {
                id: id.clone(),
                name: name.clone(),
            },
            E::ToolProgress { id, chunk } => Kind::ToolProgress {
                id: id.clone(),
                chunk: chunk.clone(),
            },
            E::ToolEnd {
                id,
                name,
                is_error,
                outcome,
                duration_ms,
                output,
            } => Kind::ToolEnd {
                id: id.clone(),
                name: name.clone(),
                is_error: *is_error,
                outcome: outcome.as_str().to_string(),
                duration_ms: *duration_ms,
                output: output.clone(),
            },
            E::StreamEnd { turn, stop_reason } => Kind::StreamEnd {
                turn: *turn,
                stop_reason: stop_reason.clone(),
            },
            E::RawSse { event, data } => Kind::Sse {
                event: event.to_string(),
                data: data.clone(),
                req_ms,
            },
            E::Usage(usage) => Kind::Usage { usage: *usage },
            E::Message { index, message } => Kind::Message {
                index: *index,
                message: (**message).clone(),
            },
            E::Notice { text } => Kind::Notice { text: text.clone() },
            E::ServerBlock { block } => Kind::ServerBlock {
                block: block.clone(),
            },
            E::Discarded { reason } => Kind::Discarded {
                reason: reason.clone(),
            },
            E::Error { message } => Kind::Error {
                message: message.clone(),
            },
            E::HistoryReset {
                messages,
                summaries,
            } => Kind::HistoryReset {
                messages: messages.iter().map(|m| (**m).clone()).collect(),
                summaries: summaries.clone(),
            },
            E::EarlierHistory { messages } => Kind::EarlierHistory {
                messages: messages.clone(),
            },
            E::ToolTimings { timings } => Kind::ToolTimings {
                timings: timings.clone(),
            },
            E::Session { id } => Kind::Session { id: id.clone() },
            E::Compacted { info, messages } => Kind::Compacted {
                info: serde_json::to_value(info).ok()?,
                messages: messages.clone(),
            },
            E::Context(status) => Kind::Context {
                status: serde_json::to_value(status).ok()?,
            },
            E::HookStart { id, event, command } => Kind::HookStart {
                id: id.clone(),
                event: event.as_str().to_string(),
                command: command.clone(),
            },
            E::HookEnd { id, report } => Kind::HookEnd {
                id: id.clone(),
                report: serde_json::to_value(report).ok()?,
            },
            E::Mcp(status) => Kind::Mcp {
                status: serde_json::to_value(status).ok()?,
            },
            E::Todos { todos } => Kind::Todos {
                todos: todos.clone(),
            },
            E::ModelChanged { model } => Kind::ModelChanged {
                model: model.clone(),
            },
            E::Background(event) => Kind::Background {
                event: serde_json::to_value(event).ok()?,
            },
            E::Done(summary) => Kind::Done {
                summary: serde_json::to_value(summary).ok()?,
            },
            E::AgentStart(info) => Kind::AgentStart {
                info: serde_json::to_value(info).ok()?,
            },
            E::AgentEnd(report) => Kind::AgentEnd {
                report: serde_json::to_value(report).ok()?,
            },
            E::Subagent {
                agent_id,
                parent_tool_use_id,
                event,
            } => Kind::Subagent {
                agent_id: agent_id.to_string(),
                parent_tool_use_id: parent_tool_use_id.to_string(),
                event: Box::new(Kind::from_event(event, req_ms)?),
            },
        })
    }
}
