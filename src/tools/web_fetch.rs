//! web_fetch (placeholder until implemented).

use async_trait::async_trait;
use serde_json::Value;

use super::{Effect, Tool, ToolContext, ToolOutput};

pub struct WebFetch;

#[async_trait]
impl Tool for WebFetch {
    fn name(&self) -> &'static str {
        "web_fetch"
    }
    fn description(&self) -> &'static str {
        "web_fetch"
    }
    fn input_schema(&self) -> Value {
        serde_json::json!({"type":"object","properties":{"url":{"type":"string"},"max_bytes":{"type":"integer","minimum":1}},"required":["url"],"additionalProperties":false})
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    async fn run(&self, _input: Value, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::error("web_fetch is not implemented yet")
    }
}
