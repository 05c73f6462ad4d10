//! bash (placeholder until implemented).

use async_trait::async_trait;
use serde_json::Value;

use super::{Effect, Tool, ToolContext, ToolOutput};

pub struct Bash;

#[async_trait]
impl Tool for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }
    fn description(&self) -> &'static str {
        "bash"
    }
    fn input_schema(&self) -> Value {
        serde_json::json!({"type":"object","properties":{"command":{"type":"string"},"timeout_ms":{"type":"integer","minimum":1}},"required":["command"],"additionalProperties":false})
    }
    fn effect(&self) -> Effect {
        Effect::Exec
    }
    async fn run(&self, _input: Value, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::error("bash is not implemented yet")
    }
}
