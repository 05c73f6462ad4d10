//! exit_plan_mode: in plan mode the model hands its plan to the user with this tool
//! (issue 27). It is offered only in plan mode. The question itself is the permission flow's
//! (the approval box shows the plan; approving switches the mode before this runs); headless
//! runs end after it with reason `plan_ready`.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};

use super::fact::Fact;
use super::input::{Check, Text, check};
use super::{Effect, Preview, Tool, ToolContext, ToolOutput};
use crate::message::markers::tool_results;

/// The tool that hands a plan to the user; offered only in plan mode.
pub const EXIT_PLAN_MODE: &str = "exit_plan_mode";

/// Where the last plan handed over waits for the loop (headless ends the run with it).
pub type PlanSlot = Arc<Mutex<Option<String>>>;

/// The plan of a call whose result says the user approved it: the session's facts carry it
/// through compactions, resumes and rewinds (whether or not the registry holds the tool).
pub fn plan_fact(input: &Value, output: &str, is_error: bool) -> Option<Fact> {
    let plan = super::args::optional_str(input, "plan")?;
    (!is_error && tool_results::is_plan_approved(output)).then(|| Fact::PlanApproved(plan.into()))
}

/// Says which mode tooloop is in now, by name (the tool's result tells the model).
pub type ModeName = Arc<dyn Fn() -> &'static str + Send + Sync>;

pub struct ExitPlanMode {
    slot: PlanSlot,
    mode: ModeName,
}

impl ExitPlanMode {
    pub fn new(slot: PlanSlot, mode: ModeName) -> Self {
        ExitPlanMode { slot, mode }
    }
}

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    plan: Text,
}

#[async_trait]
impl Tool for ExitPlanMode {
    fn name(&self) -> &str {
        EXIT_PLAN_MODE
    }
    fn description(&self) -> &str {
        "You are in plan mode: only read-only tools run. When you have researched enough and \
         have a concrete plan, call this with the plan as markdown (steps, files to change, \
         how to verify). The user approves it (then you carry it out) or sends feedback (then \
         keep planning). Do not call it for questions; ask them in text."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "plan": {"type": "string", "description": "The plan, in markdown"}
            },
            "required": ["plan"],
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    fn effect(&self) -> Effect {
        // Changes nothing itself; the permission flow asks the user about the plan.
        Effect::ReadOnly
    }
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }
    fn preview(&self, input: &Value) -> Option<Preview> {
        let plan = super::args::optional_str(input, "plan")?;
        Some(Preview::Plan {
            markdown: plan.to_string(),
        })
    }
    fn summary(&self, input: &Value) -> String {
        let plan = super::args::optional_str(input, "plan").unwrap_or("");
        let first = plan
            .lines()
            .map(|l| l.trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .unwrap_or("");
        super::args::one_line(first, 60)
    }
    fn fact(&self, input: &Value, output: &str, is_error: bool) -> Option<Fact> {
        plan_fact(input, output, is_error)
    }
    async fn run(&self, input: Value, _ctx: ToolContext) -> ToolOutput {
        let plan = match super::args::required_str(&input, "plan") {
            Ok(p) if !p.trim().is_empty() => p.to_string(),
            Ok(_) => return ToolOutput::error("Error: `plan` is empty: write the plan first"),
            Err(e) => return e,
        };
        if let Ok(mut s) = self.slot.lock() {
            *s = Some(plan);
        }
        match (self.mode)() {
            "plan" => ToolOutput::ok(
                "The plan was handed to the user for review. Stop here; do not start on it.",
            ),
            mode => ToolOutput::ok(crate::message::markers::tool_results::plan_approved(mode)),
        }
    }
}
