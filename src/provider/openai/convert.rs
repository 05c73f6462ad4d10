//! Canonical history (Anthropic shape) ↔ OpenAI chat messages, at the provider boundary only.
//!
//! What does not survive a round trip canonical → OpenAI → canonical:
//! - thinking and redacted_thinking blocks (OpenAI has no place for them; they are dropped);
//! - `is_error` travels as an `"Error: "` prefix on the tool message: an error result whose
//!   text lacked the prefix comes back with it, and a successful result whose text starts
//!   with `"Error: "` comes back marked as an error;
//! - an assistant message's text blocks become one `content` string (joined with a newline)
//!   that comes back as one text block before the tool_use blocks. Replies streamed by this
//!   provider already have that shape, so they round-trip unchanged.

use serde_json::{Map, Value, json};

use crate::message::{ContentBlock, Message, Role};
use crate::provider::ToolSpec;

/// The prefix that marks a tool message as a failed tool (OpenAI has no is_error flag).
pub const ERROR_PREFIX: &str = "Error: ";

/// The `messages` array of a chat completions request.
pub fn to_openai_messages(system: &str, messages: &[Message]) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    if !system.is_empty() {
        out.push(json!({"role": "system", "content": system}));
    }
    for message in messages {
        match message.role {
            Role::Assistant => out.push(assistant_message(message)),
            Role::User => user_messages(message, &mut out),
        }
    }
    out
}

/// The `tools` array: every tool as a function.
pub fn to_openai_tools(tools: &[ToolSpec]) -> Vec<Value> {
    tools
        .iter()
        .map(|t| {
            json!({
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                }
            })
        })
        .collect()
}

fn assistant_message(message: &Message) -> Value {
    let mut texts: Vec<&str> = Vec::new();
    let mut calls: Vec<Value> = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text { text, .. } => texts.push(text),
            ContentBlock::ToolUse { id, name, input } => calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": input.to_string()},
            })),
            ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Other(_)
            | ContentBlock::Image { .. }
            | ContentBlock::ToolResult { .. } => {}
        }
    }
    let mut m = Map::new();
    m.insert("role".into(), json!("assistant"));
    // OpenAI wants null, not "", next to tool_calls; a message with neither gets "".
    let content = match (texts.is_empty(), calls.is_empty()) {
        (true, false) => Value::Null,
        _ => Value::String(texts.join("\n")),
    };
    m.insert("content".into(), content);
    if !calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(m)
}

/// A tool result as an OpenAI `tool` message's content: OpenAI has no is_error flag, so a
/// failed result says so in its text (once).
pub fn tool_result_content(content: &str, is_error: bool) -> std::borrow::Cow<'_, str> {
    if is_error && !content.starts_with(ERROR_PREFIX) {
        std::borrow::Cow::Owned(format!("{ERROR_PREFIX}{content}"))
    } else {
        std::borrow::Cow::Borrowed(content)
    }
}

/// A tool message's text when the result's images follow in a user message.
pub fn with_images_note(content: &str) -> String {
    if content.is_empty() {
        "[image attached below]".to_string()
    } else {
        format!("{content}\n[image attached below]")
    }
}

/// A canonical user message becomes its tool messages first (they must follow the assistant
/// message directly), then one user message with its text and images, if it has any (a
/// tool result's images lead it: tool messages cannot carry them).
fn user_messages(message: &Message, out: &mut Vec<Value>) {
    let mut parts: Vec<Value> = Vec::new();
    let mut own: Vec<Value> = Vec::new();
    let image = |s: &crate::message::ImageSource| json!({"type": "image_url", "image_url": {"url": s.data_url()}});
    for block in &message.content {
        match block {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                images,
            } => {
                let mut content = tool_result_content(content, *is_error).into_owned();
                if !images.is_empty() {
                    content = with_images_note(&content);
                    parts.extend(images.iter().map(image));
                }
                out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}));
            }
            ContentBlock::Text { text, .. } => own.push(json!({"type": "text", "text": text})),
            ContentBlock::Image { source } => own.push(image(source)),
            ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Other(_)
            | ContentBlock::ToolUse { .. } => {}
        }
    }
    parts.extend(own);
    match parts.as_slice() {
        [] => {}
        [one] if one["type"] == "text" => out.push(json!({"role": "user", "content": one["text"]})),
        // Several blocks stay several parts, so they come back as several blocks.
        _ => out.push(json!({"role": "user", "content": parts})),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::validate_history;

    fn tool_use(id: &str, name: &str, input: Value) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: name.into(),
            input,
        }
    }

    fn conversation() -> Vec<Message> {
        vec![
            Message::user_text("read a and b"),
            Message::assistant(vec![
                ContentBlock::text("Reading both."),
                tool_use("call_1", "read_file", json!({"path": "a"})),
                tool_use("call_2", "read_file", json!({"path": "b", "limit": 3})),
            ]),
            Message::user(vec![
                ContentBlock::tool_result("call_1", "alpha", false),
                ContentBlock::tool_result("call_2", "Error: no such file", true),
            ]),
            Message::assistant(vec![tool_use("call_3", "list_dir", json!({}))]),
            Message::user(vec![
                ContentBlock::tool_result("call_3", "a\nb", false),
                ContentBlock::text("[interrupted by user]"),
                ContentBlock::text("go on"),
            ]),
            Message::assistant(vec![ContentBlock::text("a says alpha; b is missing.")]),
            Message::user_text("thanks"),
        ]
    }

    #[test]
    fn round_trip_is_unchanged() {
        let history = conversation();
        validate_history(&history).expect("valid input");
        let wire = to_openai_messages("be brief", &history);
        let (system, back) = from_openai_messages(&wire).expect("converts back");
        assert_eq!(system, "be brief");
        assert_eq!(back, history);
    }

    #[test]
    fn wire_shape_matches_the_api() {
        let wire = to_openai_messages("sys", &conversation());
        assert_eq!(wire[0], json!({"role": "system", "content": "sys"}));
        assert_eq!(wire[1], json!({"role": "user", "content": "read a and b"}));
        assert_eq!(
            wire[2],
            json!({"role": "assistant", "content": "Reading both.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "read_file", "arguments": "{\"path\":\"b\",\"limit\":3}"}},
            ]})
        );
        assert_eq!(
            wire[3],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "alpha"})
        );
        assert_eq!(wire[4]["role"], "tool");
        assert_eq!(
            wire[5]["content"],
            Value::Null,
            "no text next to tool_calls"
        );
        assert_eq!(wire[6]["tool_call_id"], "call_3");
        assert_eq!(
            wire[7],
            json!({"role": "user", "content": [
                {"type": "text", "text": "[interrupted by user]"},
                {"type": "text", "text": "go on"},
            ]})
        );
        assert_eq!(wire.len(), 10);
    }

    #[test]
    fn error_results_get_a_prefix_and_thinking_is_dropped() {
        let history = vec![
            Message::user_text("x"),
            Message::assistant(vec![
                ContentBlock::Thinking {
                    thinking: "hmm".into(),
                    signature: "sig".into(),
                },
                tool_use("t1", "bash", json!({"command": "false"})),
            ]),
            Message::user(vec![ContentBlock::tool_result("t1", "exit 1", true)]),
        ];
        let wire = to_openai_messages("", &history);
        assert_eq!(wire[0]["role"], "user", "no system message when empty");
        assert_eq!(wire[1]["content"], Value::Null);
        assert_eq!(wire[2]["content"], "Error: exit 1");
        let (_, back) = from_openai_messages(&wire).expect("converts back");
        assert_eq!(back[1].content.len(), 1, "thinking does not come back");
        assert_eq!(
            back[2].content[0],
            ContentBlock::tool_result("t1", "Error: exit 1", true)
        );
    }

    #[test]
    fn reverse_accepts_what_servers_send() {
        let wire = vec![
            json!({"role": "developer", "content": [{"type": "text", "text": "dev"}]}),
            json!({"role": "user", "content": "hi"}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "glob", "arguments": ""}},
                {"id": "c2", "type": "function", "function": {"name": "glob", "arguments": {"pattern": "*"}}},
            ]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "x"}]}),
            json!({"role": "tool", "tool_call_id": "c2", "content": "y"}),
        ];
        let (system, back) = from_openai_messages(&wire).expect("converts");
        assert_eq!(system, "dev");
        assert_eq!(back.len(), 3);
        assert_eq!(back[1].content[0], tool_use("c1", "glob", json!({})));
        assert_eq!(
            back[1].content[1],
            tool_use("c2", "glob", json!({"pattern": "*"}))
        );
        validate_history(&back).expect("valid");
        let bad = vec![json!({"role": "assistant", "tool_calls": [
            {"id": "c", "function": {"name": "x", "arguments": "{not json"}}]})];
        let err = from_openai_messages(&bad)
            .expect_err("bad arguments")
            .to_string();
        assert!(err.contains("messages[0].tool_calls[0]"), "{err}");
        assert!(from_openai_messages(&[json!({"role": "robot"})]).is_err());
    }

    #[test]
    fn tools_are_functions() {
        let tools = to_openai_tools(&[ToolSpec {
            name: "glob".into(),
            description: "find files".into(),
            input_schema: json!({"type": "object"}),
        }]);
        assert_eq!(
            tools,
            vec![json!({"type": "function", "function": {
                "name": "glob", "description": "find files", "parameters": {"type": "object"}}})]
        );
    }
}
