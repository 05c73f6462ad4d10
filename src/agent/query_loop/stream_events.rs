//! What the loop does with each decoded stream event before the assembler sees it: a
//! reused tool_use id gets a fresh one, and deltas go to the front ends.

use super::super::Agent;
use super::super::assembler::Assembler;
use super::super::events::EventSink;
use super::super::protocol::AgentEvent;
use crate::provider::StreamEvent;

/// Model output is untrusted: a tool_use id already used (earlier in history or in this
/// reply), or none at all, would break the history (the API refuses duplicates), so such a
/// block gets a fresh id. The model never sees the difference.
pub(super) fn unique_tool_id(agent: &Agent, asm: &Assembler, event: StreamEvent) -> StreamEvent {
    let StreamEvent::BlockStart {
        index,
        kind: kind @ crate::provider::BlockKind::ToolUse,
        id,
        name,
    } = event
    else {
        return event;
    };
    let taken = |id: &str| id.is_empty() || agent.check.knows(id) || asm.has_tool_id(id);
    let id = id.unwrap_or_default();
    let id = if taken(&id) {
        let base = if id.is_empty() { "toolu_tooloop" } else { &id };
        let fresh = (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|c| !taken(c))
            .unwrap_or_default();
        tracing::warn!("the model reused tool_use id {id:?}; it is {fresh:?} in history");
        fresh
    } else {
        id
    };
    StreamEvent::BlockStart {
        index,
        kind,
        id: Some(id),
        name,
    }
}

pub(super) fn forward(events: &EventSink, event: &StreamEvent) {
    match event {
        StreamEvent::TextDelta { text, .. } => {
            events.send(AgentEvent::TextDelta { text: text.clone() })
        }
        StreamEvent::ThinkingDelta { thinking, .. } => events.send(AgentEvent::ThinkingDelta {
            text: thinking.clone(),
        }),
        StreamEvent::BlockStart {
            id: Some(id),
            name: Some(name),
            ..
        } => events.send(AgentEvent::ToolUseStreaming {
            id: id.clone(),
            name: name.clone(),
        }),
        _ => {}
    }
}
