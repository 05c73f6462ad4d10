//! The chat completions request body, serialized straight from the canonical history (no
//! `Value` tree). The only place the canonical history becomes OpenAI messages; what a round
//! trip keeps is checked in tests/suite/providers/openai_messages.rs (tests/support/openai_history.rs reads
//! them back).
//!
//! Field order is fixed by the structs below, `messages` last, so consecutive bodies are
//! byte-identical up to the newest messages.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};

use crate::message::{ContentBlock, ImageSource, Message, Role};
use crate::provider::request::{Messages, Request, RequestBody, size_hint};
use crate::provider::{ReasoningEcho, ToolSpec};

/// The prefix that marks a tool message as a failed tool (OpenAI has no is_error flag).
pub const ERROR_PREFIX: &str = "Error: ";

/// A tool result as an OpenAI `tool` message's content: a failed result says so in its
/// text (once).
fn tool_result_content(content: &str, is_error: bool) -> Cow<'_, str> {
    if is_error && !content.starts_with(ERROR_PREFIX) {
        Cow::Owned(format!("{ERROR_PREFIX}{content}"))
    } else {
        Cow::Borrowed(content)
    }
}

/// A tool message's text when the result's images follow in a user message.
fn with_images_note(content: &str) -> String {
    if content.is_empty() {
        "[image attached below]".to_string()
    } else {
        format!("{content}\n[image attached below]")
    }
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    /// Only when asked: a server that does not know the field answers 400 naming it,
    /// which the loop reports (never retried).
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    stream: bool,
    stream_options: StreamOptions,
    // Servers reject an empty tools array, and parallel_tool_calls without tools.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
    messages: Wire<'a>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a serde_json::Value,
}

/// The body for `req`. `completion_tokens` names the limit `max_completion_tokens` (OpenAI's
/// reasoning models); `last_len` (the previous body's size) sizes the buffer; `echo` says
/// which replies carry their reasoning back.
pub fn encode(
    req: &Request<'_>,
    completion_tokens: bool,
    last_len: usize,
    echo: ReasoningEcho,
) -> RequestBody {
    let body = Body {
        model: req.model,
        max_tokens: (!completion_tokens).then_some(req.max_tokens),
        max_completion_tokens: completion_tokens.then_some(req.max_tokens),
        reasoning_effort: req.reasoning.effort.map(|e| e.as_str()),
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        tools: tools(req.tools),
        parallel_tool_calls: (req.disable_parallel_tool_use && !req.tools.is_empty())
            .then_some(false),
        messages: Wire {
            system: req.system.text(),
            messages: req.messages,
            echo,
        },
    };
    RequestBody::encode(&body, size_hint(last_len))
}

fn tools(tools: &[ToolSpec]) -> Vec<Tool<'_>> {
    tools
        .iter()
        .map(|t| Tool {
            kind: "function",
            function: Function {
                name: &t.name,
                description: &t.description,
                parameters: &t.input_schema,
            },
        })
        .collect()
}

/// The `messages` array: the system prompt, then each canonical message as OpenAI messages.
struct Wire<'a> {
    system: &'a str,
    messages: Messages<'a>,
    echo: ReasoningEcho,
}

#[derive(Serialize)]
struct Plain<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct Assistant<'a> {
    role: &'static str,
    /// null, not "", next to tool_calls; "" when there is neither.
    content: Option<Cow<'a, str>>,
    /// The reply's reasoning, under the provider's field name, where its rule says so.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    reasoning: Option<Reasoning<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<Call<'a>>,
}

#[derive(Serialize)]
struct Call<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunction<'a>,
}

#[derive(Serialize)]
struct CallFunction<'a> {
    name: &'a str,
    arguments: String,
}

#[derive(Serialize)]
struct ToolMessage<'a> {
    role: &'static str,
    tool_call_id: &'a str,
    content: Cow<'a, str>,
}

#[derive(Serialize)]
struct Parts<'a> {
    role: &'static str,
    content: Vec<Part<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

impl<'a> Part<'a> {
    fn image(source: &ImageSource) -> Self {
        Part::ImageUrl {
            image_url: ImageUrl {
                url: source.data_url(),
            },
        }
    }
}

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        if !self.system.is_empty() {
            seq.serialize_element(&Plain {
                role: "system",
                content: self.system,
            })?;
        }
        // Whether the user's current exchange (since their last prompt) called tools.
        let mut tool_exchange = false;
        for message in self.messages.iter() {
            match message.role {
                Role::Assistant => {
                    let mut wire = assistant(message);
                    if let ReasoningEcho::ToolTurns(field) = self.echo {
                        tool_exchange |= !wire.tool_calls.is_empty();
                        if tool_exchange {
                            wire.reasoning = reasoning(message, field);
                        }
                    }
                    seq.serialize_element(&wire)?
                }
                Role::User => {
                    // Text goes out as a user message, which starts a new exchange (tool
                    // results alone go out as tool messages and continue this one).
                    if message
                        .content
                        .iter()
                        .any(|b| matches!(b, ContentBlock::Text { .. }))
                    {
                        tool_exchange = false;
                    }
                    user(message, &mut seq)?
                }
            }
        }
        seq.end()
    }
}

fn assistant(message: &Message) -> Assistant<'_> {
    let mut texts: Vec<&str> = Vec::new();
    let mut calls: Vec<Call> = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text { text, .. } => texts.push(text),
            ContentBlock::ToolUse { id, name, input } => calls.push(Call {
                id,
                kind: "function",
                function: CallFunction {
                    name,
                    arguments: input.to_string(),
                },
            }),
            ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Other(_)
            | ContentBlock::Image { .. }
            | ContentBlock::ToolResult { .. } => {}
        }
    }
    let content = match (texts.as_slice(), calls.is_empty()) {
        ([], false) => None,
        ([one], _) => Some(Cow::Borrowed(*one)),
        (many, _) => Some(Cow::Owned(many.join("\n"))),
    };
    Assistant {
        role: "assistant",
        content,
        reasoning: None,
        tool_calls: calls,
    }
}

/// `{"<field>": "<the reply's thinking>"}`, flattened into the assistant message.
struct Reasoning<'a> {
    field: &'static str,
    text: Cow<'a, str>,
}

impl Serialize for Reasoning<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.field, &self.text)?;
        map.end()
    }
}

/// The reply's thinking blocks as one text, if it had any.
fn reasoning<'a>(message: &'a Message, field: &'static str) -> Option<Reasoning<'a>> {
    let mut parts = message.content.iter().filter_map(|b| match b {
        ContentBlock::Thinking { thinking, .. } => Some(thinking.as_str()),
        _ => None,
    });
    let first = parts.next()?;
    let text = match parts.next() {
        None => Cow::Borrowed(first),
        Some(second) => {
            let mut all = format!("{first}{second}");
            parts.for_each(|p| all.push_str(p));
            Cow::Owned(all)
        }
    };
    Some(Reasoning { field, text })
}

/// Tool messages first (they must follow the assistant message directly), then one user
/// message with the text blocks, if any. Chat completions cannot carry an image in a tool
/// message: a result with images says `[image attached below]` and its images open the
/// user message that follows (as `image_url` data URLs), before the message's own blocks.
fn user<S: SerializeSeq>(message: &Message, seq: &mut S) -> Result<(), S::Error> {
    let mut parts: Vec<Part> = Vec::new();
    let mut own: Vec<Part> = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                images,
                ..
            } => {
                let mut content = tool_result_content(content, *is_error);
                if !images.is_empty() {
                    content = Cow::Owned(with_images_note(&content));
                    parts.extend(images.iter().map(Part::image));
                }
                seq.serialize_element(&ToolMessage {
                    role: "tool",
                    tool_call_id: tool_use_id,
                    content,
                })?;
            }
            ContentBlock::Text { text, .. } => own.push(Part::Text { text }),
            ContentBlock::Image { source } => own.push(Part::image(source)),
            ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Other(_)
            | ContentBlock::ToolUse { .. } => {}
        }
    }
    parts.extend(own);
    match parts.as_slice() {
        [] => Ok(()),
        [Part::Text { text }] => seq.serialize_element(&Plain {
            role: "user",
            content: text,
        }),
        // Several blocks stay several parts, so they come back as several blocks.
        _ => seq.serialize_element(&Parts {
            role: "user",
            content: parts,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ModelRequest;
    use serde_json::{Value, json};

    fn tool_use(id: &str, input: Value) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: "read_file".into(),
            input,
        }
    }

    fn history() -> Vec<Message> {
        vec![
            Message::user_text("read a and b"),
            Message::assistant(vec![
                ContentBlock::Thinking {
                    thinking: "hmm".into(),
                    signature: "s".into(),
                },
                ContentBlock::text("Reading both."),
                ContentBlock::text("Second line."),
                tool_use("c1", json!({"path": "a"})),
                tool_use("c2", json!({"path": "b", "limit": 3})),
            ]),
            Message::user(vec![
                ContentBlock::tool_result("c1", "alpha", false),
                ContentBlock::tool_result("c2", "no such file", true),
                ContentBlock::tool_result("c3", "Error: already", true),
            ]),
            Message::assistant(vec![tool_use("c4", json!({}))]),
            Message::user(vec![
                ContentBlock::tool_result("c4", "x", false),
                ContentBlock::text("[interrupted by user]"),
                ContentBlock::text("go on"),
            ]),
            Message::assistant(vec![]),
            Message::user_text("thanks"),
        ]
    }

    #[test]
    fn body_fields_and_the_messages_wire_shape() {
        for (system, tools, dp, completion) in [
            ("sys", true, true, false),
            ("", true, false, true),
            ("sys", false, true, false),
        ] {
            let req = ModelRequest {
                model: "m".into(),
                system: system.into(),
                messages: history(),
                tools: if tools {
                    vec![ToolSpec {
                        name: "glob".into(),
                        description: "d".into(),
                        input_schema: json!({"type": "object"}),
                        defer_loading: false,
                    }]
                } else {
                    vec![]
                },
                max_tokens: 7,
                disable_parallel_tool_use: dp,
                reasoning: Default::default(),
            };
            let body = encode(&req.as_request(), completion, 0, ReasoningEcho::Never);
            let got = body.json();
            let messages = got["messages"].as_array().expect("messages");
            let first = usize::from(!system.is_empty());
            if first == 1 {
                assert_eq!(messages[0], json!({"role": "system", "content": "sys"}));
            }
            // Thinking is dropped, texts join, tool calls carry their input as a string.
            assert_eq!(
                messages[first + 1],
                json!({"role": "assistant", "content": "Reading both.\nSecond line.",
                       "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}},
                    {"id": "c2", "type": "function",
                     "function": {"name": "read_file",
                                  "arguments": "{\"path\":\"b\",\"limit\":3}"}}]})
            );
            // A failed result says so once.
            assert_eq!(messages[first + 3]["content"], "Error: no such file");
            assert_eq!(messages[first + 4]["content"], "Error: already");
            assert_eq!(messages.len(), first + 10);
            let limit = if completion {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
            assert_eq!(got[limit], 7);
            let keys = 5 + tools as usize + (tools && dp) as usize;
            assert_eq!(got.as_object().map(|o| o.len()), Some(keys));
            if tools {
                assert_eq!(got["tools"][0]["function"]["name"], "glob");
            }
            assert_eq!(
                body,
                encode(&req.as_request(), completion, 1 << 16, ReasoningEcho::Never)
            );
        }
    }
}
