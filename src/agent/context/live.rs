//! The session's live state for the state block: what other parts of tooloop own (the
//! approval mode; the todo list, background jobs and an approved plan where they exist),
//! read at the moment a compaction builds its block.

use super::state_block::LiveState;
use crate::agent::Agent;

/// Reads the live state from the agent.
pub fn read(agent: &Agent) -> LiveState {
    let approval_mode = serde_json::to_value(agent.exec.policy.mode())
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    LiveState {
        // Filled from the todo tool's list and the background job registry when those are
        // part of the session; until then the block has no such parts.
        todos: Vec::new(),
        jobs: Vec::new(),
        approval_mode,
        plan: None,
    }
}
