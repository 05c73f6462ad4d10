//! edit_file (placeholder until implemented).

use async_trait::async_trait;
use serde_json::Value;

use super::{Effect, Tool, ToolContext, ToolOutput};

pub struct EditFile;

#[async_trait]
impl Tool for EditFile {
    fn name(&self) -> &'static str {
        "edit_file"
    }
    fn description(&self) -> &'static str {
        "edit_file"
    }
    fn input_schema(&self) -> Value {
        serde_json::json!({"type":"object","properties":{"path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["path","old_string","new_string"],"additionalProperties":false})
    }
    fn effect(&self) -> Effect {
        Effect::Edit
    }
    async fn run(&self, _input: Value, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::error("edit_file is not implemented yet")
    }
}
