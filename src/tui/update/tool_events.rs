//! Tool events of any agent: the parent's calls and a subagent's go through one function.
//! What differs is the scope: a subagent's ids are scoped (`agent/id`), its calls sit under
//! its `task` row instead of in the conversation, its questions name it, and its live output
//! is kept shorter.

use tokio::time::Instant;

use crate::protocol::AgentEvent;
use crate::protocol::subagent::scoped_id;
use crate::tui::app::App;
use crate::tui::overlays::approval::ApprovalRequest;
use crate::tui::tool_calls::ToolState;

/// Live output kept per call while it runs (the final output replaces it).
const MAX_PROGRESS_BYTES: usize = 64 * 1024;
/// The same for a subagent's call (many run under one row).
const MAX_SUBAGENT_PROGRESS_BYTES: usize = 16 * 1024;

/// Whose event it is, taken off at the door (`App::on_agent`).
pub(crate) enum Scope {
    Main,
    Subagent {
        agent_id: String,
        /// The id of the `task` call that started it: its calls are shown under that row.
        row: String,
    },
}

impl Scope {
    /// The id the screen keys this scope's call by.
    fn id(&self, id: &str) -> String {
        match self {
            Scope::Main => id.to_string(),
            Scope::Subagent { agent_id, .. } => scoped_id(agent_id, id),
        }
    }

    fn max_progress(&self) -> usize {
        match self {
            Scope::Main => MAX_PROGRESS_BYTES,
            Scope::Subagent { .. } => MAX_SUBAGENT_PROGRESS_BYTES,
        }
    }
}

/// The events [`App::on_tool_event`] takes.
pub(crate) fn is_tool_event(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::ToolUseStreaming { .. }
            | AgentEvent::ToolUse { .. }
            | AgentEvent::PermissionRequest { .. }
            | AgentEvent::Permission { .. }
            | AgentEvent::ToolStart { .. }
            | AgentEvent::ToolProgress { .. }
            | AgentEvent::ToolEnd { .. }
    )
}

impl App {
    /// A subagent's event with its wrapper taken off: (scope, event). None for a subagent
    /// the screen never saw start (there is no row to show its events under).
    pub(crate) fn scoped(&self, event: AgentEvent) -> Option<(Scope, AgentEvent)> {
        match event {
            AgentEvent::Subagent {
                agent_id, event, ..
            } => {
                let row = self.history.subagents.get(&agent_id)?.row();
                let agent_id = agent_id.to_string();
                Some((Scope::Subagent { agent_id, row }, *event))
            }
            event => Some((Scope::Main, event)),
        }
    }

    /// A tool call's life, in either scope: announced, asked about, started, its output, its end.
    pub(crate) fn on_tool_event(&mut self, scope: &Scope, event: AgentEvent, now: Instant) {
        match event {
            AgentEvent::ToolUseStreaming { id, name } => {
                // A subagent's call gets its row once its input is complete.
                if let Scope::Main = scope {
                    self.panes
                        .tool_calls
                        .upsert(&id, &name, "", ToolState::Streaming, now);
                    self.show_tool(scope, &id);
                }
            }
            AgentEvent::ToolUse {
                id, name, summary, ..
            } => {
                let id = scope.id(&id);
                self.panes
                    .tool_calls
                    .upsert(&id, &name, &summary, ToolState::Queued, now);
                self.panes.tool_calls.update(&id, |c| c.queued_at = now);
                self.show_tool(scope, &id);
                match scope {
                    // The user's own `!command` shows its output as it comes.
                    Scope::Main if id.starts_with(crate::agent::shell_command::ID_PREFIX) => {
                        self.panes.conversation.expand_tool(&id)
                    }
                    Scope::Main => {}
                    Scope::Subagent { agent_id, .. } => {
                        if let Some(lane) = self.history.subagents.get_mut(agent_id) {
                            lane.tools += 1;
                            lane.doing = crate::tui::strings::subagent_doing(&name, &summary);
                        }
                        self.refresh_task_row(agent_id);
                    }
                }
            }
            AgentEvent::PermissionRequest {
                id,
                tool,
                input,
                summary,
                preview,
                why,
            } => {
                let id = scope.id(&id);
                self.set_tool_state(&id, ToolState::Approval);
                let agent = match scope {
                    Scope::Main => None,
                    Scope::Subagent { agent_id, .. } => {
                        Some(self.history.subagents.label_of(agent_id))
                    }
                };
                let request = ApprovalRequest {
                    id,
                    tool,
                    input,
                    summary,
                    preview,
                    why,
                    agent,
                };
                self.overlays.approvals.push(request, now);
            }
            AgentEvent::Permission { id, allowed, .. } => {
                let id = scope.id(&id);
                self.overlays.approvals.remove(&id, now);
                // A refused call keeps saying so when its (error) result arrives.
                let state = if allowed {
                    ToolState::Queued
                } else {
                    ToolState::Denied
                };
                self.set_tool_state(&id, state);
            }
            AgentEvent::ToolStart { id, .. } => self.panes.tool_calls.update(&scope.id(&id), |c| {
                c.state = ToolState::Running;
                c.started_at = Some(now);
            }),
            AgentEvent::ToolProgress { id, chunk } => {
                let max = scope.max_progress();
                self.panes.tool_calls.update(&scope.id(&id), |c| {
                    if c.output.len() < max {
                        c.output.push_str(&chunk);
                    }
                })
            }
            AgentEvent::ToolEnd {
                id,
                outcome,
                duration_ms,
                output,
                ..
            } => self
                .panes
                .tool_calls
                .update(&scope.id(&id), |c| c.end(outcome, duration_ms, output, now)),
            _ => {}
        }
    }

    pub(super) fn set_tool_state(&mut self, id: &str, state: ToolState) {
        self.panes.tool_calls.update(id, |c| c.state = state);
    }

    /// A parent's call gets a line in the conversation and a row in the tools pane; a
    /// subagent's call a row under its `task` row.
    pub(super) fn show_tool(&mut self, scope: &Scope, id: &str) {
        match scope {
            Scope::Main => {
                self.panes.conversation.tool(id);
                self.panes.tools.add(id);
            }
            Scope::Subagent { row, .. } => self.panes.tools.add_under(row, id),
        }
    }
}
