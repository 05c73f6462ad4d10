//! `session/load`: a saved conversation replayed as the updates a live one would have
//! sent — the user's prompts, the agent's text and thinking, and every tool call with its
//! final status and output.

use std::collections::HashMap;

use agent_client_protocol_schema::v1 as acp;
use serde_json::json;

use super::updates::{chunk, text_content, title, tool_kind};
use crate::message::{ContentBlock, Message, Role};

/// The updates that show `messages`; `summaries` is each tool call's one-line input.
pub fn replay(
    messages: &[std::sync::Arc<Message>],
    summaries: &HashMap<String, String>,
) -> Vec<acp::SessionUpdate> {
    use acp::SessionUpdate as U;
    // Every tool call's result, wherever it is.
    let results: HashMap<&str, (&str, bool)> = messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => Some((tool_use_id.as_str(), (content.as_str(), *is_error))),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for message in messages {
        for block in &message.content {
            match (message.role, block) {
                (Role::User, ContentBlock::Text { text, .. }) => {
                    out.push(U::UserMessageChunk(chunk(text)))
                }
                (Role::Assistant, ContentBlock::Text { text, .. }) => {
                    out.push(U::AgentMessageChunk(chunk(text)))
                }
                (Role::Assistant, ContentBlock::Thinking { thinking, .. }) => {
                    out.push(U::AgentThoughtChunk(chunk(thinking)))
                }
                (Role::Assistant, ContentBlock::ToolUse { id, name, input }) => {
                    let summary = summaries.get(id).map(String::as_str).unwrap_or("");
                    let (status, output) = match results.get(id.as_str()) {
                        Some((output, false)) => (acp::ToolCallStatus::Completed, *output),
                        Some((output, true)) => (acp::ToolCallStatus::Failed, *output),
                        None => (acp::ToolCallStatus::Failed, "no result was recorded"),
                    };
                    out.push(U::ToolCall(
                        acp::ToolCall::new(id.clone(), title(name, summary))
                            .kind(tool_kind(name))
                            .status(status)
                            .raw_input(input.clone())
                            .content(vec![text_content(output)])
                            .raw_output(json!({"tool": name, "output": output})),
                    ));
                }
                _ => {}
            }
        }
    }
    out
}
