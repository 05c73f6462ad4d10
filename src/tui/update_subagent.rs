//! How a subagent's events change the screen: its start and end, its permission questions
//! (through the same approval box, labelled with the agent), and its progress on the `task`
//! row that started it.

use tokio::time::Instant;

use super::app::App;
use super::approval::ApprovalRequest;
use crate::agent::protocol::{AgentEvent, scoped_id};

impl App {
    pub(super) fn on_subagent(&mut self, agent_id: &str, event: AgentEvent, now: Instant) {
        match event {
            AgentEvent::PermissionRequest {
                id,
                tool,
                input,
                summary,
                preview,
            } => {
                let agent = self.subagents.label_of(agent_id);
                self.approvals.push(
                    ApprovalRequest {
                        id: scoped_id(agent_id, &id),
                        tool,
                        input,
                        summary,
                        preview,
                        agent: Some(agent),
                    },
                    now,
                );
            }
            AgentEvent::Permission { id, .. } => {
                self.approvals.remove(&scoped_id(agent_id, &id), now)
            }
            AgentEvent::ToolUse { name, summary, .. } => {
                if let Some(lane) = self.subagents.get_mut(agent_id) {
                    lane.tools += 1;
                    lane.doing = super::strings::subagent_doing(&name, &summary);
                }
            }
            _ => {}
        }
    }
}
