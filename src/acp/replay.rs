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
                    if let Some(shown) = user_text(text) {
                        out.push(U::UserMessageChunk(chunk(&shown)))
                    }
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

/// A user's text block as the editor shows it: the prompt as typed, or what tooloop wrote
/// there read back through its marker (an `@file` as its one line, a `!command` as typed,
/// a compaction as its summary); nothing for what only the model needed (an interruption,
/// a job notice, a skill's text).
fn user_text(text: &str) -> Option<String> {
    use crate::message::markers::{self, Marker};
    match markers::parse(text) {
        None => Some(text.to_string()),
        Some(Marker::Mention(label)) => Some(label),
        Some(Marker::Shell { command, .. }) => Some(command),
        Some(Marker::Summary(s)) => {
            Some(format!("(earlier conversation, summarized)\n{}", s.summary))
        }
        Some(Marker::Interrupt | Marker::JobNotice(_) | Marker::Skill(_)) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tooloops_own_text_is_shown_as_the_tui_shows_it() {
        assert_eq!(user_text("fix it").as_deref(), Some("fix it"));
        assert_eq!(user_text(crate::message::markers::INTERRUPT_MARKER), None);
        let ContentBlock::Text { text, .. } = crate::message::markers::user_skill("pdf", "body")
        else {
            panic!("a text block");
        };
        assert_eq!(user_text(&text), None);
    }
}
