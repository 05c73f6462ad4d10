//! `replay --step`: what one key plays. A step is one thing a reader sees as a whole: a
//! text or thinking block (all its deltas), one tool call (from its block to its result;
//! a question it asks ends the step, so the question shows before its answer), or one event
//! that stands alone (a prompt, a notice, an error, a retry, the end of a turn). Bookkeeping
//! events (raw SSE, usage, messages, request starts) go with whatever plays around them.

use crate::protocol::AgentEvent;

/// What an event belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Goes with the step in progress; never waits for a key.
    Quiet,
    /// A block or a tool call: its events play together.
    Part(String),
    /// A step of its own.
    Single,
}

pub fn unit(ev: &AgentEvent) -> Unit {
    use AgentEvent as E;
    match ev {
        E::TextDelta { .. } => Unit::Part("text".into()),
        E::ThinkingDelta { .. } => Unit::Part("thinking".into()),
        E::ToolUseStreaming { id, .. }
        | E::ToolUse { id, .. }
        | E::PermissionRequest { id, .. }
        | E::Permission { id, .. }
        | E::ToolStart { id, .. }
        | E::ToolProgress { id, .. }
        | E::ToolEnd { id, .. } => Unit::Part(format!("tool {id}")),
        E::HookStart { id, .. } | E::HookEnd { id, .. } => Unit::Part(format!("hook {id}")),
        E::Subagent {
            agent_id, event, ..
        } => match unit(event) {
            Unit::Part(p) => Unit::Part(format!("{agent_id} {p}")),
            other => other,
        },
        E::TurnStart { .. }
        | E::RequestStart { .. }
        | E::RequestFailed { .. }
        | E::StreamEnd { .. }
        | E::RawSse { .. }
        | E::Usage(_)
        | E::Message { .. }
        | E::Context(_)
        | E::ToolTimings { .. }
        | E::EarlierHistory { .. }
        | E::ResumedSubagents { .. }
        | E::Session { .. }
        | E::ModelChanged { .. }
        | E::Mcp(_)
        | E::Todos { .. }
        | E::ApprovalChanged { .. }
        | E::RulesChanged { .. } => Unit::Quiet,
        _ => Unit::Single,
    }
}

/// A question ends its step: the next key plays its answer.
fn ends_step(ev: &AgentEvent) -> bool {
    match ev {
        AgentEvent::PermissionRequest { .. } => true,
        AgentEvent::Subagent { event, .. } => ends_step(event),
        _ => false,
    }
}

/// Where stepping stands: the part being played, or None when the next event that shows
/// something waits for a key.
#[derive(Debug, Default)]
pub struct Stepper {
    current: Option<Unit>,
}

impl Stepper {
    /// Whether `ev` must wait for the next key.
    pub fn needs_key(&self, ev: &AgentEvent) -> bool {
        match unit(ev) {
            Unit::Quiet => false,
            u => self.current.as_ref() != Some(&u),
        }
    }

    /// `ev` was played.
    pub fn played(&mut self, ev: &AgentEvent) {
        match unit(ev) {
            Unit::Quiet => {}
            Unit::Single => self.current = None,
            _ if ends_step(ev) => self.current = None,
            u => self.current = Some(u),
        }
    }
}
