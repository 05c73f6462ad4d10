//! The Anthropic Messages request body, serialized straight from the typed history.
//!
//! Field order is this struct's order and never changes between requests: the settings that
//! stay the same come first and `messages` last, so consecutive bodies share their prefix up
//! to the newest messages.

use serde::Serialize;

use super::cache::{Breakpoints, CachedMessages, CachedTools, System, marked_block, write_marked};
use crate::provider::message_json::MessageJson;
use crate::provider::reasoning::Reasoning;
use crate::provider::request::{Messages, Request, RequestBody, size_hint};

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    #[serde(skip_serializing_if = "System::is_empty")]
    system: System<'a>,
    /// Name, description, input_schema: ToolSpec's own field order.
    #[serde(skip_serializing_if = "CachedTools::is_empty")]
    tools: CachedTools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice>,
    /// `{"type": "enabled", "budget_tokens": N}` with thinking on.
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Reasoning>,
    messages: CachedMessages<'a>,
}

#[derive(Serialize)]
struct ToolChoice {
    #[serde(rename = "type")]
    kind: &'static str,
    disable_parallel_tool_use: bool,
}

/// The body for `req`; `last_len` (the previous body's size) sizes the buffer. With `cache`,
/// the body carries prompt-caching breakpoints (see `cache.rs`). The reference
/// [`encode_kept`] is checked against.
#[cfg(test)]
pub fn encode(req: &Request<'_>, last_len: usize, cache: bool) -> RequestBody {
    let marks = Breakpoints::place(req, cache);
    RequestBody::encode(&body(req, &marks, req.messages), size_hint(last_len))
}

/// The same bytes as [`encode`], with the messages a previous body already serialized taken
/// from `kept` (only the newest ones, and the two that carry breakpoints, are serialized).
pub fn encode_kept(
    req: &Request<'_>,
    last_len: usize,
    cache: bool,
    kept: &mut MessageJson,
) -> RequestBody {
    let marks = Breakpoints::place(req, cache);
    let Messages::Shared(messages) = req.messages else {
        return RequestBody::encode(&body(req, &marks, req.messages), size_hint(last_len));
    };
    let mut out = Vec::with_capacity(size_hint(last_len));
    // Everything but the messages, which come last: `…,"messages":[]}`.
    let head = body(req, &marks, Messages::Shared(&[]));
    if serde_json::to_writer(&mut out, &head).is_err() || !out.ends_with(b"[]}") {
        return RequestBody::encode(&body(req, &marks, req.messages), size_hint(last_len));
    }
    out.truncate(out.len() - 3);
    kept.write_array(
        messages,
        &mut out,
        |i| marked_block(&marks.messages, i).is_some(),
        |i, out| {
            if let Some(b) = marked_block(&marks.messages, i) {
                write_marked(&messages[i], b, out);
            }
        },
    );
    out.push(b'}');
    RequestBody::new(out)
}

fn body<'a>(req: &Request<'a>, marks: &Breakpoints, messages: Messages<'a>) -> Body<'a> {
    Body {
        model: req.model,
        // Above the thinking budget (the API refuses anything else).
        max_tokens: req.reasoning.max_tokens(req.max_tokens),
        stream: true,
        system: System {
            prompt: req.system,
            cached: marks.system,
        },
        tools: CachedTools {
            tools: req.tools,
            mark_last: marks.last_tool,
            web_search: req.web_search,
        },
        // The API refuses tool_choice without tools, so it only goes with them.
        tool_choice: (req.disable_parallel_tool_use && !req.tools.is_empty()).then_some(
            ToolChoice {
                kind: "auto",
                disable_parallel_tool_use: true,
            },
        ),
        thinking: req.reasoning.thinking_on().then_some(req.reasoning),
        messages: CachedMessages {
            messages,
            marked: marks.messages,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ContentBlock, Message};
    use crate::provider::{ModelRequest, ToolSpec};
    use serde_json::json;

    fn request(disable_parallel: bool, tools: bool) -> ModelRequest {
        ModelRequest {
            model: "m".into(),
            system: "sys".into(),
            messages: vec![
                Message::user_text("hi \"there\" ✓"),
                Message::assistant(vec![
                    ContentBlock::text("t"),
                    ContentBlock::ToolUse {
                        id: "t1".into(),
                        name: "glob".into(),
                        input: json!({"z": 1, "a": [true, null]}),
                    },
                ]),
                Message::user(vec![ContentBlock::tool_result("t1", "out", true)]),
            ],
            tools: if tools {
                vec![ToolSpec {
                    name: "glob".into(),
                    description: "d".into(),
                    input_schema: json!({"type": "object", "properties": {}}),
                    defer_loading: false,
                }]
            } else {
                vec![]
            },
            max_tokens: 9,
            disable_parallel_tool_use: disable_parallel,
            reasoning: Default::default(),
        }
    }

    /// What the body was before it was typed: a `json!` tree.
    fn as_value_tree(req: &ModelRequest) -> serde_json::Value {
        let mut v = json!({
            "model": req.model, "max_tokens": req.max_tokens, "messages": req.messages,
            "stream": true, "system": req.system.text(),
        });
        if !req.tools.is_empty() {
            v["tools"] = json!(req.tools);
            if req.disable_parallel_tool_use {
                v["tool_choice"] = json!({"type": "auto", "disable_parallel_tool_use": true});
            }
        }
        v
    }

    /// Kept message bytes give the very body a fresh encoding gives, request after request:
    /// the history grows, a message is replaced (a new Arc at the same place), it shrinks
    /// (a compaction); with and without breakpoints.
    #[test]
    fn kept_message_bytes_give_the_same_body() {
        use std::sync::Arc;
        for cache in [false, true] {
            let base = request(false, true);
            let mut history: Vec<Arc<Message>> =
                base.messages.iter().cloned().map(Arc::new).collect();
            let mut kept = MessageJson::default();
            for step in 0..8 {
                match step {
                    3 => history[1] = Arc::new(Message::assistant(vec![ContentBlock::text("new")])),
                    6 => history.truncate(2),
                    _ => {
                        history.push(Arc::new(Message::assistant(vec![ContentBlock::text(
                            format!("step {step} \"q\" ✓"),
                        )])));
                        history.push(Arc::new(Message::user_text(format!("again {step}"))));
                    }
                }
                let req = Request {
                    messages: Messages::Shared(&history),
                    ..base.as_request()
                };
                let plain: Vec<Message> = history.iter().map(|m| (**m).clone()).collect();
                let fresh = Request {
                    messages: Messages::Plain(&plain),
                    ..base.as_request()
                };
                assert_eq!(
                    encode_kept(&req, 0, cache, &mut kept),
                    encode(&fresh, 0, cache),
                    "cache={cache} step={step}"
                );
            }
        }
    }

    #[test]
    fn typed_body_equals_the_value_tree_and_is_byte_stable() {
        for (dp, tools) in [(false, true), (true, true), (true, false), (false, false)] {
            let req = request(dp, tools);
            let body = encode(&req.as_request(), 0, false);
            assert_eq!(body.json(), &as_value_tree(&req), "dp={dp} tools={tools}");
            assert_eq!(
                body,
                encode(&req.as_request(), 1 << 20, false),
                "same bytes every time"
            );
        }
        let text = String::from_utf8(
            encode(&request(true, true).as_request(), 0, false)
                .bytes()
                .to_vec(),
        )
        .expect("utf8");
        let at = |k: &str| text.find(k).unwrap_or(usize::MAX);
        assert!(at("\"model\"") < at("\"tools\"") && at("\"tools\"") < at("\"messages\""));
        assert!(text.ends_with("}]}]}"), "messages come last: {text}");
    }

    #[test]
    fn thinking_sends_the_budget_and_raises_max_tokens() {
        let mut req = request(false, true);
        req.max_tokens = 2000;
        req.reasoning.thinking_budget = Some(4096);
        let body = encode(&req.as_request(), 0, false);
        let v = body.json();
        assert_eq!(
            v["thinking"],
            json!({"type": "enabled", "budget_tokens": 4096})
        );
        assert_eq!(v["max_tokens"], 6096);
        let text = String::from_utf8(body.bytes().to_vec()).expect("utf8");
        assert!(text.find("\"thinking\":{") < text.find("\"messages\""));
        req.reasoning.thinking_budget = None;
        let v = encode(&req.as_request(), 0, false).json().clone();
        assert!(v.get("thinking").is_none());
        assert_eq!(v["max_tokens"], 2000);
    }

    #[test]
    fn system_parts_are_blocks_and_the_last_one_carries_the_breakpoint() {
        use crate::provider::{SystemPart, SystemPrompt};
        let mut req = request(false, true);
        req.system = SystemPrompt::new(vec![
            SystemPart {
                name: "base",
                text: "base".into(),
            },
            SystemPart {
                name: "environment",
                text: "env".into(),
            },
        ]);
        let plain = encode(&req.as_request(), 0, false).json().clone();
        assert_eq!(
            plain["system"],
            json!([{"type": "text", "text": "base"}, {"type": "text", "text": "env"}])
        );
        let cached = encode(&req.as_request(), 0, true).json().clone();
        assert_eq!(
            cached["system"],
            json!([
                {"type": "text", "text": "base"},
                {"type": "text", "text": "env", "cache_control": {"type": "ephemeral"}}
            ])
        );
    }
}
