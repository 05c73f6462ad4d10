//! kill_shell: ends a background job's whole process group (SIGTERM, SIGKILL after 2 s).
//! Only jobs this session started have ids, so it never asks.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::args::{optional_str, required_str};
use super::input::{Check, Text, check};
use super::{Effect, Tool, ToolContext, ToolOutput};
use crate::background::KilledBy;

pub struct KillShell;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    shell_id: Text,
}

#[async_trait]
impl Tool for KillShell {
    fn name(&self) -> &str {
        "kill_shell"
    }
    fn description(&self) -> &str {
        "Stop a background job started with bash run_in_background: its command and every \
         process it started get SIGTERM, then SIGKILL after 2 s. Its unread output can still \
         be read with bash_output."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "shell_id": {"type": "string", "description": "The job's id, e.g. b1"}
            },
            "required": ["shell_id"],
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    /// It changes nothing but this session's own jobs, which the user already allowed to
    /// run: no question (DESIGN.md §12).
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    /// Not beside other calls: a bash_output in the same reply reads a definite state.
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }
    fn summary(&self, input: &Value) -> String {
        optional_str(input, "shell_id").unwrap_or("?").to_string()
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let id = match required_str(&input, "shell_id") {
            Ok(id) => id,
            Err(e) => return e,
        };
        let Some(jobs) = &ctx.jobs else {
            return ToolOutput::error("Error: background jobs are not available here");
        };
        match jobs.kill(id, KilledBy::Model).await {
            Ok((true, info)) => ToolOutput::ok(format!(
                "{} ({}) killed; its unread output can still be read with bash_output",
                info.shell_id, info.command
            )),
            Ok((false, info)) => ToolOutput::ok(format!(
                "{} ({}) had already ended: {}",
                info.shell_id,
                info.command,
                info.describe_state()
            )),
            Err(e) => ToolOutput::error(format!("Error: {e}")),
        }
    }
}
