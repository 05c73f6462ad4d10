//! The session's live state for the state block: what other parts of tooloop own (the
//! approval mode, the todo list, the running background jobs; the approved plan, which the session's facts read from history),
//! read at the moment a compaction builds its block.

use super::state_block::{JobItem, LiveState, TodoItem};
use crate::agent::Agent;
use crate::todo::TodoStatus;

/// Reads the live state from the agent.
pub fn read(agent: &Agent) -> LiveState {
    let approval_mode = serde_json::to_value(agent.exec.policy.mode())
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    LiveState {
        todos: agent
            .todos
            .current()
            .into_iter()
            .map(|t| TodoItem {
                content: t.content,
                status: match t.status {
                    TodoStatus::Pending => "pending",
                    TodoStatus::InProgress => "in_progress",
                    TodoStatus::Completed => "completed",
                }
                .to_string(),
            })
            .collect(),
        // The background jobs this run started that still run.
        jobs: agent
            .exec
            .jobs
            .running()
            .into_iter()
            .map(|(id, command, state)| JobItem {
                id,
                command,
                state: state.as_str().to_string(),
            })
            .collect(),
        approval_mode,
        plan: agent.facts.approved_plan.clone(),
    }
}
