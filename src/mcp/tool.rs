//! An MCP server's tool as a [`Tool`] like any other: its own name, schema, safety (from
//! `readOnlyHint`) and timeout; the executor and the front ends never special-case it.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use super::config::qualified_name;
use super::server::{McpServer, ToolDef};
use crate::tools::{Effect, Tool, ToolContext, ToolOutput};

pub struct McpTool {
    qualified: String,
    remote: String,
    description: String,
    schema: Value,
    read_only: bool,
    server: Arc<McpServer>,
}

impl McpTool {
    pub fn new(server: Arc<McpServer>, def: &ToolDef) -> Self {
        let description = if def.description.is_empty() {
            format!("{} (MCP server {})", def.name, server.config.name)
        } else {
            def.description.clone()
        };
        McpTool {
            qualified: qualified_name(&server.config.name, &def.name),
            remote: def.name.clone(),
            description,
            schema: def.input_schema.clone(),
            read_only: def.read_only,
            server,
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.qualified
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    /// `readOnlyHint: true` may start mid-stream beside other safe calls; anything else is
    /// treated like bash: it asks first and runs alone.
    fn effect(&self) -> Effect {
        if self.read_only {
            Effect::ReadOnly
        } else {
            Effect::Exec
        }
    }

    fn timeout(&self, _input: &Value) -> Option<Duration> {
        Some(self.server.config.tool_timeout)
    }

    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let traceparent = crate::child_trace_context::for_call(&ctx.call_id);
        self.server
            .call(&self.remote, input, traceparent, &ctx.cancel)
            .await
    }
}
