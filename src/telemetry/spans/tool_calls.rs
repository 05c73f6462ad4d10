//! A tool call's span (`execute_tool NAME`): started when its tool_use block is complete,
//! with the consent decision and the outcome on it; the lines a file tool changes are
//! counted when it succeeds.

use opentelemetry::trace::SpanKind;
use opentelemetry::{Context, KeyValue};

use super::{Agent, Observer};
use crate::protocol::approval::Preview;
use crate::telemetry::metrics::diff_lines;

pub(super) struct ToolCall {
    pub(super) cx: Context,
    pub(super) name: String,
    /// Lines the call would add and remove (file tools' previews), counted if it succeeds.
    pub(super) lines: (u64, u64),
    /// A consent decision was recorded (none comes for calls that need no consent).
    pub(super) decided: bool,
}

impl Observer {
    pub(super) fn tool_start(
        &mut self,
        agent: Agent,
        id: &str,
        name: &str,
        input: &serde_json::Value,
        preview: Option<&Preview>,
    ) {
        let mut attrs = vec![
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", name.to_string()),
            KeyValue::new("gen_ai.tool.call.id", id.to_string()),
            KeyValue::new(
                "gen_ai.tool.type",
                if name.starts_with("mcp__") {
                    "extension"
                } else {
                    "function"
                },
            ),
        ];
        if self.settings.log_tool_content {
            attrs.push(KeyValue::new(
                "gen_ai.tool.call.arguments",
                input.to_string(),
            ));
        }
        let lines = match preview {
            Some(Preview::Diff { unified_diff, .. }) => diff_lines(unified_diff),
            Some(Preview::NewFile { content, .. }) => (content.lines().count() as u64, 0),
            _ => (0, 0),
        };
        let parent = self.parent_of(&agent);
        // The span id the call's own requests already carry (an MCP tool's
        // `params._meta.traceparent`): minted from the call id on both sides.
        let cx = crate::telemetry::ids::with_span_id(
            crate::child_trace_context::span_id_for_call(id),
            || {
                self.start(
                    format!("execute_tool {name}"),
                    &parent,
                    SpanKind::Internal,
                    attrs,
                )
            },
        );
        self.tools.insert(
            (agent, id.to_string()),
            ToolCall {
                cx,
                name: name.to_string(),
                lines,
                decided: false,
            },
        );
    }
}
