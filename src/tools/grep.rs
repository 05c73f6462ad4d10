//! grep (placeholder until implemented).

use async_trait::async_trait;
use serde_json::Value;

use super::{Effect, Tool, ToolContext, ToolOutput};

pub struct Grep;

#[async_trait]
impl Tool for Grep {
    fn name(&self) -> &'static str {
        "grep"
    }
    fn description(&self) -> &'static str {
        "grep"
    }
    fn input_schema(&self) -> Value {
        serde_json::json!({"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string"},"case_insensitive":{"type":"boolean"}},"required":["pattern"],"additionalProperties":false})
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    async fn run(&self, _input: Value, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::error("grep is not implemented yet")
    }
}
