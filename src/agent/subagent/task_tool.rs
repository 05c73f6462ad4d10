//! The `task` tool: `{description, prompt, agent?}` starts a subagent and answers with its
//! final text and one line of figures.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::Subagents;
use super::run::Owner;
use crate::agent::context::ledger::Ledger;
use crate::protocol::events::EventSink;
use crate::tools::input::{Check, Text, typed, violation};
use crate::tools::{Effect, Tool, ToolContext, ToolOutput};

pub const TASK_TOOL: &str = "task";

/// One agent's `task` tool: the children it starts are at `depth`, their spend adds into
/// `ledger`, and at most `[agents] max_parallel` of them run at once.
pub struct TaskTool {
    owner: Owner,
    description: String,
    names: Vec<String>,
}

impl TaskTool {
    pub fn new(hub: Arc<Subagents>, depth: u32, ledger: Arc<Ledger>, events: EventSink) -> Self {
        let mut description = String::from(
            "Start a subagent: the same kind of agent as you, with its own conversation and \
             tools, that works on one task and answers with its final report (you see only \
             that report, not its tool calls). Use it to search or read widely without filling \
             your own context, and to do independent pieces of work at the same time: several \
             task calls in one reply run side by side. The prompt must hold everything the \
             subagent needs; it does not see this conversation.\n\nAvailable agents:",
        );
        for d in &hub.definitions {
            description.push_str(&format!("\n- {}: {}", d.name, d.description));
        }
        let names = hub.definitions.iter().map(|d| d.name.clone()).collect();
        let slots = Arc::new(Semaphore::new(hub.limits.max_parallel.max(1)));
        TaskTool {
            owner: Owner {
                hub,
                depth,
                ledger,
                events,
                slots,
            },
            description,
            names,
        }
    }
}

/// The input as `input_schema` states it, but for `agent`, whose names are this tool's own
/// (checked after it deserializes).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    description: Text,
    prompt: Text,
    #[serde(default)]
    agent: Text,
    #[serde(default)]
    isolation: Option<Isolation>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Isolation {
    Worktree,
}

#[async_trait]
impl Tool for TaskTool {
    fn name(&self) -> &str {
        TASK_TOOL
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "description": {
                    "type": "string",
                    "description": "What the subagent does, in 3 to 5 words (shown to the user)."
                },
                "prompt": {
                    "type": "string",
                    "description": "The whole task: what to do, what to report back, and any \
                                    context it needs."
                },
                "agent": {
                    "type": "string",
                    "enum": self.names,
                    "description": "Which agent to start (default: general)."
                },
                "isolation": {
                    "type": "string",
                    "enum": ["worktree"],
                    "description": "worktree: it works in its own git worktree and branch \
                                    (your HEAD plus uncommitted changes); its changes are \
                                    committed there and the result names the branch."
                }
            },
            "required": ["description", "prompt"],
            "additionalProperties": false
        })
    }

    fn input_check(&self) -> Option<Check> {
        let names = self.names.clone();
        Some(Arc::new(move |input: &Value| {
            typed::<Input>(input)?;
            match input.get("agent").and_then(Value::as_str) {
                Some(a) if !names.iter().any(|n| n == a) => Err(violation(format!(
                    "/agent: unknown agent `{a}`, expected one of {}",
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
                _ => Ok(()),
            }
        }))
    }

    /// Starting a subagent changes nothing by itself; its own tools ask as usual.
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    /// A subagent is bounded by its turn limit, not by a tool timeout.
    fn bounds_itself(&self) -> bool {
        true
    }

    fn summary(&self, input: &Value) -> String {
        let agent = input
            .get("agent")
            .and_then(Value::as_str)
            .unwrap_or("general");
        let description = input
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        crate::tools::default_summary(&json!({ "s": format!("{agent} · {description}") }))
    }

    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        super::run::run_task(&self.owner, input, ctx).await
    }
}
