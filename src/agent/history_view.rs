//! What front ends need beside a history put back (a resume, a rewind) to show it as it
//! ran: the messages compactions replaced, how every call ended, and the subagents its
//! `task` calls started (issue 41: rows kept their names, numbers and child calls only
//! while the session was live).

use std::collections::HashMap;

use super::Agent;
use crate::message::{ContentBlock, Message};
use crate::protocol::AgentEvent;
use crate::protocol::status::{ResumedSubagent, ToolTiming};
use crate::protocol::subagent::AgentInfo;
use crate::session::load::ChildHistory;

impl Agent {
    /// Sent just before the HistoryReset of `shown`: `earlier` (what compactions replaced),
    /// the calls' `timings` and the subagents in `agents` whose `task` call is still there.
    pub(super) fn send_history_view(
        &self,
        earlier: Vec<Message>,
        timings: HashMap<String, ToolTiming>,
        agents: &[ChildHistory],
        shown: &[Message],
    ) {
        let registry = &self.exec.registry;
        let subagents = resumed_subagents(agents, &earlier, shown, |m| registry.summaries(m));
        if !earlier.is_empty() {
            self.exec.events.send(AgentEvent::EarlierHistory {
                summaries: registry.summaries(&earlier),
                messages: earlier,
            });
        }
        if !timings.is_empty() {
            self.exec.events.send(AgentEvent::ToolTimings { timings });
        }
        if !subagents.is_empty() {
            self.exec
                .events
                .send(AgentEvent::ResumedSubagents { agents: subagents });
        }
    }
}

/// The children whose `task` call is in `earlier`, `shown` or another child's conversation
/// (a subagent's own subagent), with what they were asked to do.
fn resumed_subagents(
    agents: &[ChildHistory],
    earlier: &[Message],
    shown: &[Message],
    summaries: impl Fn(&[Message]) -> HashMap<String, String>,
) -> Vec<ResumedSubagent> {
    let task_input = |messages: &[Message], id: &str| {
        messages
            .iter()
            .flat_map(|m| &m.content)
            .find_map(|b| match b {
                ContentBlock::ToolUse {
                    id: call, input, ..
                } if call == id => Some(input.clone()),
                _ => None,
            })
    };
    agents
        .iter()
        .filter_map(|child| {
            let id = child.parent_tool_use_id.as_str();
            let (parent, input) = match task_input(earlier, id).or_else(|| task_input(shown, id)) {
                Some(input) => (None, input),
                None => agents.iter().find_map(|other| {
                    let input = task_input(&other.messages, id)?;
                    Some((Some(other.agent_id.clone()), input))
                })?,
            };
            let description = input
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or_default();
            Some(ResumedSubagent {
                info: AgentInfo {
                    agent_id: child.agent_id.clone(),
                    parent_tool_use_id: child.parent_tool_use_id.clone(),
                    parent_agent_id: parent,
                    agent: child.agent.clone(),
                    description: description.to_string(),
                    model: String::new(),
                },
                summaries: summaries(&child.messages),
                messages: child.messages.clone(),
                timings: child.timings.clone(),
                end: child.end.clone(),
            })
        })
        .collect()
}
