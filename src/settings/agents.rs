//! `[agents]`: how deep subagents nest, how many run at once, their turns (DESIGN.md §12).
//! No flags; the limits themselves are the subagents' own type.

use serde::Deserialize;

use crate::agent::subagent::AgentLimits;

/// The section's table in `config.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct AgentsFile {
    #[serde(default)]
    pub agents: AgentsSection,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentsSection {
    /// How deep subagents may nest (default 1; 0 turns the `task` tool off).
    pub max_depth: Option<u32>,
    /// `task` calls of one agent running at once (default 4); the rest queue.
    pub max_parallel: Option<usize>,
    /// A subagent's turns unless its file says otherwise (default 30).
    pub max_turns: Option<u32>,
}

pub fn resolve(file: &AgentsFile) -> AgentLimits {
    let d = AgentLimits::default();
    let s = &file.agents;
    AgentLimits {
        max_depth: s.max_depth.unwrap_or(d.max_depth),
        max_parallel: s.max_parallel.unwrap_or(d.max_parallel).max(1),
        max_turns: s.max_turns.unwrap_or(d.max_turns).max(1),
    }
}
