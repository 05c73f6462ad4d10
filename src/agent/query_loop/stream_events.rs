//! What the loop does with each decoded stream event besides assembling it: deltas go to
//! the front ends. (A reused tool_use id gets a fresh one in the assembler:
//! [`Assembler::with_unique_tool_id`](super::super::assembler::Assembler::with_unique_tool_id).)

use crate::protocol::AgentEvent;
use crate::protocol::events::EventSink;
use crate::provider::StreamEvent;

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
