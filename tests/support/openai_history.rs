//! OpenAI chat messages read back into tooloop's canonical history, for tests that check
//! what the OpenAI-compatible provider sent (`tests/openai_*.rs`): the reverse of
//! `src/provider/openai/encode.rs`, which only ever writes them.
//!
//! What does not survive canonical → OpenAI → canonical: thinking blocks (dropped); a
//! failed tool result's text carries [`ERROR_PREFIX`] (and a successful one that starts
//! with it comes back failed); an assistant message's texts come back as one block.

use serde_json::{Value, json};
use tooloop::message::{ContentBlock, Message, Role};

/// The prefix that marks a tool message as a failed tool (OpenAI has no is_error flag).
pub const ERROR_PREFIX: &str = "Error: ";

/// Why OpenAI chat messages could not be read back into the canonical shape; each names
/// the message (and tool call) at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error("messages[{0}]: unknown role {1:?}")]
    UnknownRole(usize, String),
    #[error("messages[{0}]: tool message without tool_call_id")]
    NoToolCallId(usize),
    #[error("messages[{0}].tool_calls[{1}]: no id")]
    NoCallId(usize, usize),
    #[error("messages[{0}].tool_calls[{1}]: no function name")]
    NoFunctionName(usize, usize),
    #[error("messages[{0}].tool_calls[{1}]: arguments are not JSON: {2}")]
    ArgumentsNotJson(usize, usize, String),
}

/// OpenAI chat messages → (system prompt, canonical history). Consecutive tool and user
/// messages merge into one user message, so roles alternate as the canonical shape requires.
pub fn from_openai_messages(messages: &[Value]) -> Result<(String, Vec<Message>), ConvertError> {
    let mut system: Vec<String> = Vec::new();
    let mut out: Vec<Message> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or_default();
        let (role, blocks) = match role {
            "system" | "developer" => {
                system.push(content_texts(m.get("content")).join("\n"));
                continue;
            }
            "user" => (Role::User, text_blocks(m.get("content"))),
            "tool" => (Role::User, vec![tool_result(m, i)?]),
            "assistant" => (Role::Assistant, assistant_blocks(m, i)?),
            other => return Err(ConvertError::UnknownRole(i, other.to_string())),
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => out.push(Message {
                role,
                content: blocks,
            }),
        }
    }
    Ok((system.join("\n\n"), out))
}

fn tool_result(m: &Value, i: usize) -> Result<ContentBlock, ConvertError> {
    let id = m
        .get("tool_call_id")
        .and_then(Value::as_str)
        .ok_or(ConvertError::NoToolCallId(i))?;
    let content = content_texts(m.get("content")).join("\n");
    let is_error = content.starts_with(ERROR_PREFIX);
    Ok(ContentBlock::tool_result(id, content, is_error))
}

fn assistant_blocks(m: &Value, i: usize) -> Result<Vec<ContentBlock>, ConvertError> {
    let mut blocks: Vec<ContentBlock> = Vec::new();
    let text = content_texts(m.get("content")).join("\n");
    if !text.is_empty() {
        blocks.push(ContentBlock::text(text));
    }
    let calls = match m.get("tool_calls") {
        Some(Value::Array(calls)) => calls.as_slice(),
        _ => &[],
    };
    for (j, call) in calls.iter().enumerate() {
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .ok_or(ConvertError::NoCallId(i, j))?;
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .ok_or(ConvertError::NoFunctionName(i, j))?;
        let input = match function.and_then(|f| f.get("arguments")) {
            None | Some(Value::Null) => json!({}),
            Some(Value::String(s)) if s.trim().is_empty() => json!({}),
            Some(Value::String(s)) => serde_json::from_str(s)
                .map_err(|e| ConvertError::ArgumentsNotJson(i, j, e.to_string()))?,
            Some(other) => other.clone(),
        };
        blocks.push(ContentBlock::ToolUse {
            id: id.to_string(),
            name: name.to_string(),
            input,
        });
    }
    Ok(blocks)
}

/// A content string or array of text parts as text blocks (other parts, like images, are
/// not part of the canonical shape and are skipped).
fn text_blocks(content: Option<&Value>) -> Vec<ContentBlock> {
    content_texts(content)
        .into_iter()
        .map(ContentBlock::text)
        .collect()
}

fn content_texts(content: Option<&Value>) -> Vec<String> {
    match content {
        Some(Value::String(s)) if !s.is_empty() => vec![s.clone()],
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}
