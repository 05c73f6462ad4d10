//! Prompt-caching breakpoints for the Anthropic Messages API.
//!
//! The API caches the request prefix (tools, then system, then messages, in that order) up
//! to each block marked `cache_control`; a later request whose prefix matches byte for byte
//! reads it back at a tenth of the input price. The API also looks back about 20 blocks from
//! each breakpoint for an earlier cached prefix, so marking the newest message lets the next
//! request (two messages longer) read what this one wrote.
//!
//! Placement (at most [`MAX_BREAKPOINTS`]):
//! 1. the stable prefix: the system prompt (which covers the tools before it), or the last
//!    tool when there is no system prompt;
//! 2. the last block of the newest message;
//! 3. the last block of the message before it (so a retry or an aborted turn, whose newest
//!    message differs, still reads the previous prefix).
//!
//! Never on an empty text block or a thinking block (the API refuses both).

use serde_json::{Value, json};

/// The API's limit on `cache_control` blocks per request.
pub const MAX_BREAKPOINTS: usize = 4;

fn marker() -> Value {
    json!({"type": "ephemeral"})
}

/// Adds breakpoints to a request body built by `AnthropicProvider::request_body`.
pub fn add_breakpoints(body: &mut Value) {
    let Value::Object(map) = body else {
        return;
    };
    let mut placed = 0;
    match map.get_mut("system") {
        Some(Value::String(text)) if !text.is_empty() => {
            let text = std::mem::take(text);
            map.insert(
                "system".into(),
                json!([{"type": "text", "text": text, "cache_control": marker()}]),
            );
            placed += 1;
        }
        _ => {
            if let Some(Value::Object(last)) = map
                .get_mut("tools")
                .and_then(Value::as_array_mut)
                .and_then(|t| t.last_mut())
            {
                last.insert("cache_control".into(), marker());
                placed += 1;
            }
        }
    }
    let Some(messages) = map.get_mut("messages").and_then(Value::as_array_mut) else {
        return;
    };
    for message in messages.iter_mut().rev().take(2) {
        if placed >= MAX_BREAKPOINTS {
            break;
        }
        if mark_last_cacheable(message) {
            placed += 1;
        }
    }
}

/// Marks the last block of `message` that may carry `cache_control`; false if none may.
fn mark_last_cacheable(message: &mut Value) -> bool {
    let Some(content) = message.get_mut("content").and_then(Value::as_array_mut) else {
        return false;
    };
    for block in content.iter_mut().rev() {
        if cacheable(block)
            && let Value::Object(b) = block
        {
            b.insert("cache_control".into(), marker());
            return true;
        }
    }
    false
}

fn cacheable(block: &Value) -> bool {
    match block["type"].as_str() {
        Some("thinking" | "redacted_thinking") | None => false,
        Some("text") => block["text"].as_str().is_some_and(|t| !t.is_empty()),
        Some(_) => true,
    }
}

/// How many blocks of `body` carry `cache_control`.
pub fn count_breakpoints(body: &Value) -> usize {
    match body {
        Value::Object(map) => {
            usize::from(map.contains_key("cache_control"))
                + map.values().map(count_breakpoints).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_breakpoints).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(messages: Value, system: &str, tools: bool) -> Value {
        let mut b = json!({"model": "m", "max_tokens": 10, "messages": messages, "stream": true});
        if !system.is_empty() {
            b["system"] = json!(system);
        }
        if tools {
            b["tools"] =
                json!([{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": {}}]);
        }
        b
    }

    #[test]
    fn system_and_the_two_newest_messages() {
        let mut b = body(
            json!([
                {"role": "user", "content": [{"type": "text", "text": "one"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "two"}]},
                {"role": "user", "content": [{"type": "text", "text": "three"}]},
            ]),
            "sys",
            true,
        );
        add_breakpoints(&mut b);
        assert_eq!(count_breakpoints(&b), 3);
        assert_eq!(b["system"][0]["text"], "sys");
        assert!(b["system"][0]["cache_control"].is_object());
        assert!(b["tools"][1].get("cache_control").is_none());
        assert!(
            b["messages"][0]["content"][0]
                .get("cache_control")
                .is_none()
        );
        assert!(b["messages"][1]["content"][0]["cache_control"].is_object());
        assert!(b["messages"][2]["content"][0]["cache_control"].is_object());
    }

    #[test]
    fn last_tool_without_a_system_prompt() {
        let mut b = body(
            json!([{"role": "user", "content": [{"type": "text", "text": "x"}]}]),
            "",
            true,
        );
        add_breakpoints(&mut b);
        assert!(b["tools"][1]["cache_control"].is_object());
        assert_eq!(count_breakpoints(&b), 2);
    }

    #[test]
    fn never_on_thinking_or_empty_text() {
        let mut b = body(
            json!([
                {"role": "user", "content": [{"type": "text", "text": "q"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "a"},
                    {"type": "thinking", "thinking": "t", "signature": "s"},
                    {"type": "text", "text": ""},
                ]},
            ]),
            "sys",
            false,
        );
        add_breakpoints(&mut b);
        let blocks = &b["messages"][1]["content"];
        assert!(blocks[0]["cache_control"].is_object());
        assert!(blocks[1].get("cache_control").is_none());
        assert!(blocks[2].get("cache_control").is_none());
        assert!(count_breakpoints(&b) <= MAX_BREAKPOINTS);
    }

    #[test]
    fn the_same_history_gives_the_same_bytes() {
        let msgs = json!([{"role": "user", "content": [{"type": "text", "text": "x"}]}]);
        let mut a = body(msgs.clone(), "sys", true);
        let mut b = body(msgs, "sys", true);
        add_breakpoints(&mut a);
        add_breakpoints(&mut b);
        assert_eq!(a.to_string(), b.to_string());
    }
}
