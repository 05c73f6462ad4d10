//! What the TUI knows about the session's subagents (DESIGN.md §12): one entry per agent,
//! built from its `AgentStart`, its own events and its `AgentEnd`. The tools pane, the
//! timeline and the child's read-only view read it; nothing here draws.

use std::time::Duration;

use tokio::time::Instant;

use crate::agent::protocol::{AgentInfo, AgentReport};

/// One subagent as the screen shows it.
#[derive(Clone, Debug)]
pub struct Lane {
    pub info: AgentInfo,
    pub started: Instant,
    /// Set when it ended.
    pub report: Option<AgentReport>,
    /// Tool calls it started so far.
    pub tools: u32,
    /// What it is doing now (`reading src/…`), sanitized when drawn.
    pub doing: String,
}

impl Lane {
    /// `explore #2`: the agent's name and its number in the session.
    pub fn label(&self) -> String {
        label(&self.info.agent, &self.info.agent_id)
    }

    pub fn elapsed(&self, now: Instant) -> Duration {
        match &self.report {
            Some(r) => Duration::from_millis(r.duration_ms),
            None => now.saturating_duration_since(self.started),
        }
    }
}

/// `explore #2` for agent `a2` of definition `explore`.
pub fn label(agent: &str, agent_id: &str) -> String {
    format!("{agent} #{}", agent_id.trim_start_matches('a'))
}

#[derive(Debug, Default)]
pub struct Subagents {
    pub lanes: Vec<Lane>,
}

impl Subagents {
    pub fn started(&mut self, info: AgentInfo, now: Instant) {
        self.lanes.push(Lane {
            info,
            started: now,
            report: None,
            tools: 0,
            doing: String::new(),
        });
    }

    pub fn ended(&mut self, report: AgentReport) {
        if let Some(lane) = self.get_mut(&report.agent_id) {
            lane.doing.clear();
            lane.report = Some(report);
        }
    }

    pub fn get(&self, agent_id: &str) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.info.agent_id == agent_id)
    }

    pub fn get_mut(&mut self, agent_id: &str) -> Option<&mut Lane> {
        self.lanes.iter_mut().find(|l| l.info.agent_id == agent_id)
    }

    /// The agent a `task` call started, by the call's id.
    pub fn by_call(&self, tool_use_id: &str) -> Option<&Lane> {
        self.lanes
            .iter()
            .find(|l| l.info.parent_tool_use_id == tool_use_id && l.info.parent_agent_id.is_none())
    }

    /// The label of `agent_id` (`a3` until its start was seen).
    pub fn label_of(&self, agent_id: &str) -> String {
        self.get(agent_id)
            .map(Lane::label)
            .unwrap_or_else(|| agent_id.to_string())
    }

    pub fn running(&self) -> usize {
        self.lanes.iter().filter(|l| l.report.is_none()).count()
    }
}
