//! write_file (placeholder until implemented).

use async_trait::async_trait;
use serde_json::Value;

use super::{Effect, Tool, ToolContext, ToolOutput};

pub struct WriteFile;

#[async_trait]
impl Tool for WriteFile {
    fn name(&self) -> &'static str {
        "write_file"
    }
    fn description(&self) -> &'static str {
        "write_file"
    }
    fn input_schema(&self) -> Value {
        serde_json::json!({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false})
    }
    fn effect(&self) -> Effect {
        Effect::Edit
    }
    async fn run(&self, _input: Value, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::error("write_file is not implemented yet")
    }
}
