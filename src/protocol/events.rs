//! The agent's side of the event channel.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::protocol::AgentEvent;

/// Whose events a sink carries: a subagent's are wrapped in [`AgentEvent::Subagent`].
#[derive(Clone, Debug)]
struct Tag {
    agent_id: Arc<str>,
    parent_tool_use_id: Arc<str>,
}

/// Sends [`AgentEvent`]s to a front end. Sending never blocks and never fails loudly: a
/// front end that went away must not stop the loop from keeping history valid.
#[derive(Clone, Debug)]
pub struct EventSink {
    tx: Option<mpsc::UnboundedSender<AgentEvent>>,
    tag: Option<Tag>,
}

impl EventSink {
    pub fn new(tx: mpsc::UnboundedSender<AgentEvent>) -> Self {
        EventSink {
            tx: Some(tx),
            tag: None,
        }
    }

    /// A sink that drops everything (benchmarks, tests that only look at history).
    pub fn null() -> Self {
        EventSink {
            tx: None,
            tag: None,
        }
    }

    pub fn channel() -> (Self, mpsc::UnboundedReceiver<AgentEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (EventSink::new(tx), rx)
    }

    /// The same channel for subagent `agent_id`: every event it sends is wrapped in
    /// [`AgentEvent::Subagent`] (once, whatever depth), except its start and end, which
    /// carry their own ids.
    pub fn tagged(&self, agent_id: &str, parent_tool_use_id: &str) -> Self {
        EventSink {
            tx: self.tx.clone(),
            tag: Some(Tag {
                agent_id: agent_id.into(),
                parent_tool_use_id: parent_tool_use_id.into(),
            }),
        }
    }

    /// The subagent this sink speaks for, if any.
    pub fn agent_id(&self) -> Option<&str> {
        self.tag.as_ref().map(|t| &*t.agent_id)
    }

    /// The id a permission question for call `id` waits under: unique across the agents
    /// of a session (see [`crate::protocol::subagent::scoped_id`]).
    pub fn question_id(&self, id: &str) -> String {
        match &self.tag {
            Some(t) => crate::protocol::subagent::scoped_id(&t.agent_id, id),
            None => id.to_string(),
        }
    }

    pub fn send(&self, event: AgentEvent) {
        let Some(tx) = &self.tx else { return };
        let event = match (&self.tag, event) {
            (_, e @ (AgentEvent::AgentStart(_) | AgentEvent::AgentEnd(_))) | (None, e) => e,
            (Some(t), e) => AgentEvent::Subagent {
                agent_id: t.agent_id.clone(),
                parent_tool_use_id: t.parent_tool_use_id.clone(),
                event: Box::new(e),
            },
        };
        let _ = tx.send(event);
    }
}
