//! What the TUI knows about the session's subagents (DESIGN.md §12): one entry per agent,
//! built from its `AgentStart`, its own events and its `AgentEnd`. The tools pane, the
//! timeline and the child's read-only view read it; nothing here draws.

use std::time::Duration;

use tokio::time::Instant;

use std::sync::Arc;

use crate::message::Message;
use crate::protocol::status::ResumedSubagent;
use crate::protocol::subagent::{AgentInfo, AgentReport, scoped_id};

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
    /// Its conversation so far, for the read-only view.
    pub messages: Vec<Arc<Message>>,
    /// Rebuilt from a transcript (a resume or rewind): it ended, how long it took if the
    /// `task` call's timing was kept; no report was kept.
    pub resumed: Option<Option<u64>>,
}

impl Lane {
    /// The id of the `task` row that started it, as the tool store knows it (a call of a
    /// subagent is scoped by that subagent's id).
    pub fn row(&self) -> String {
        match &self.info.parent_agent_id {
            Some(p) => scoped_id(p, &self.info.parent_tool_use_id),
            None => self.info.parent_tool_use_id.clone(),
        }
    }

    /// The task row's live line: `explore #2 · find the parser · reading src/… · 3 tools`.
    pub fn status(&self) -> String {
        let mut parts = vec![self.label()];
        if !self.info.description.is_empty() {
            parts.push(self.info.description.clone());
        }
        match &self.report {
            Some(r) => parts.push(r.reason.as_str().replace('_', " ")),
            None if !self.doing.is_empty() => parts.push(self.doing.clone()),
            None => {}
        }
        parts.push(format!(
            "{} tool{}",
            self.tools,
            if self.tools == 1 { "" } else { "s" }
        ));
        if let Some(r) = &self.report {
            parts.push(format!(
                "{} tokens",
                r.usage.total_input() + r.usage.output_tokens
            ));
        }
        parts.join(" · ")
    }

    /// `explore #2`: the agent's name and its number in the session.
    pub fn label(&self) -> String {
        label(&self.info.agent, &self.info.agent_id)
    }

    pub fn elapsed(&self, now: Instant) -> Duration {
        match (&self.report, self.resumed) {
            (Some(r), _) => Duration::from_millis(r.duration_ms),
            (None, Some(ms)) => Duration::from_millis(ms.unwrap_or(0)),
            (None, None) => now.saturating_duration_since(self.started),
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
            messages: Vec::new(),
            resumed: None,
        });
    }

    /// A subagent of a resumed or rewound session, as its transcript kept it: ended,
    /// `duration_ms` long when known, with how it ended when the transcript says.
    pub fn resumed(&mut self, child: &ResumedSubagent, duration_ms: Option<u64>, now: Instant) {
        let tools = child.messages.iter().flat_map(Message::tool_uses).count();
        let tools = u32::try_from(tools).unwrap_or(u32::MAX);
        let info = child.info.clone();
        let report = child.end.as_ref().map(|end| AgentReport {
            agent_id: info.agent_id.clone(),
            parent_tool_use_id: info.parent_tool_use_id.clone(),
            agent: info.agent.clone(),
            reason: end.reason,
            turns: end.turns,
            tools,
            usage: end.usage,
            cost_usd: None,
            duration_ms: duration_ms.unwrap_or(0),
        });
        self.lanes.push(Lane {
            info,
            started: now,
            report,
            tools,
            doing: String::new(),
            messages: child.messages.iter().cloned().map(Arc::new).collect(),
            resumed: Some(duration_ms),
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

    /// The agent a `task` row started, by the row's id.
    pub fn by_row(&self, row: &str) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.row() == row)
    }

    /// The agent numbered `n` (`#n`, from its id `aN`).
    pub fn by_number(&self, n: &str) -> Option<&Lane> {
        self.get(&format!("a{}", n.trim_start_matches('#')))
    }

    pub fn clear(&mut self) {
        self.lanes.clear();
    }

    /// The label of `agent_id` (`a3` until its start was seen).
    pub fn label_of(&self, agent_id: &str) -> String {
        self.get(agent_id)
            .map(Lane::label)
            .unwrap_or_else(|| agent_id.to_string())
    }

    pub fn running(&self) -> usize {
        self.lanes
            .iter()
            .filter(|l| l.report.is_none() && l.resumed.is_none())
            .count()
    }
}
