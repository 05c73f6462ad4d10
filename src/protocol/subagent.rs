//! Who a subagent is and how its loop ended, as the events carry them (`agent_start`,
//! `agent_end`, `result.agents`), and the id a front end answers its questions with.

use serde::{Deserialize, Serialize};

use crate::protocol::Terminal;
use crate::provider::Usage;

/// Who a subagent is: `agent_start`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// `a1`, `a2`, … in the order they started in this session.
    pub agent_id: String,
    /// The `task` call that started it.
    pub parent_tool_use_id: String,
    /// The agent that made that call (None: the top-level agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_agent_id: Option<String>,
    /// The definition's name (`general`, `explore`, a file's `name`).
    pub agent: String,
    pub description: String,
    pub model: String,
}

/// How a subagent's loop ended: `agent_end`, and one entry of `result.agents`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentReport {
    pub agent_id: String,
    pub parent_tool_use_id: String,
    pub agent: String,
    pub reason: Terminal,
    pub turns: u32,
    /// Tool calls it made.
    pub tools: u32,
    pub usage: Usage,
    pub cost_usd: Option<f64>,
    pub duration_ms: u64,
}

/// The id a front end answers a subagent's permission question with: the subagent's own
/// call ids may repeat the parent's, so they are qualified by the agent.
pub fn scoped_id(agent_id: &str, id: &str) -> String {
    format!("{agent_id}/{id}")
}
