//! The offline demo model: deterministic, in-process, streaming at a human pace.
//!
//! It reads the user's words, picks real tools (several in one reply when asked for several
//! things, so the executor's overlap is visible), and answers from the real tool results in
//! the next turn. Its stream is shaped like Anthropic's, raw events included.

use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::demo_reply::{Intent, answer_from_results, intents, no_match_reply};
use super::{
    BlockKind, EventStream, Messages, Provider, ProviderError, Request, RequestBody, StreamEvent,
    Usage,
};
use crate::message::markers::{self, Marker};
use crate::message::{ContentBlock, Message, Role};

pub const DEMO_MODEL: &str = "tooloop-demo";

/// The offline fallback: no endpoint, no key, only `--model` renames it.
pub const DEFAULTS: super::settings::ProviderDefaults = super::settings::ProviderDefaults {
    model: DEMO_MODEL,
    base_url: "",
    api_key_env: None,
    base_url_env: None,
    offline: true,
    thinking: false,
    reasoning_effort: false,
    reasoning_echo: super::settings::ReasoningEcho::Never,
    server_tools: false,
};

/// Delays between streamed pieces. Tests use zero pacing; the TUI uses the default.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    pub word: Duration,
    pub json_chunk: Duration,
    pub first_byte: Duration,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            word: Duration::from_millis(25),
            json_chunk: Duration::from_millis(60),
            first_byte: Duration::from_millis(300),
        }
    }
}

#[derive(Default)]
pub struct DemoProvider {
    pub pace: Pace,
}

impl DemoProvider {
    pub fn new(pace: Pace) -> Self {
        DemoProvider { pace }
    }
}

impl Provider for DemoProvider {
    fn name(&self) -> &str {
        "demo"
    }

    fn encode(&self, req: &Request<'_>) -> RequestBody {
        #[derive(serde::Serialize)]
        struct Body<'a> {
            model: &'a str,
            max_tokens: u32,
            stream: bool,
            system: &'a str,
            tools: &'a [super::ToolSpec],
            messages: Messages<'a>,
        }
        RequestBody::encode(
            &Body {
                model: req.model,
                max_tokens: req.max_tokens,
                stream: true,
                system: req.system,
                tools: req.tools,
                messages: req.messages,
            },
            0,
        )
    }

    fn open<'a>(
        &'a self,
        req: &'a Request<'a>,
        body: &'a RequestBody,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        let script = script(req, body.len(), self.pace);
        Box::pin(async move {
            let stream = futures::stream::iter(script).then(|(delay, event)| async move {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                Ok(event)
            });
            Ok(Box::pin(stream) as EventStream)
        })
    }
}

/// What the demo model says next, as a list of (delay before, event).
fn script(req: &Request<'_>, body_len: usize, pace: Pace) -> Vec<(Duration, StreamEvent)> {
    let mut s = Script::new(pace);
    // About four bytes a token, counted on the body that was sent (not serialized again).
    let input_tokens = (body_len / 4) as u64;
    s.push_raw(
        pace.first_byte,
        StreamEvent::MessageStart {
            model: Some(DEMO_MODEL.into()),
            usage: Usage {
                input_tokens,
                output_tokens: 1,
                ..Default::default()
            },
        },
        "message_start",
        json!({"type":"message_start","message":{"id":"msg_demo","type":"message","role":"assistant","model":DEMO_MODEL,"content":[],"usage":{"input_tokens":input_tokens,"output_tokens":1}}}),
    );
    let last = req.messages.last();
    // A prompt typed after an interruption joins the message holding the interrupted
    // results: the new words win over summarizing those results.
    let prompt = last.map(prompt_text).unwrap_or_default();
    let results = last_tool_results(req.messages);
    let (text, calls) = if prompt.trim().is_empty() && !results.is_empty() {
        (answer_from_results(&results), Vec::new())
    } else {
        let found = intents(&prompt);
        if found.is_empty() {
            (no_match_reply(), Vec::new())
        } else {
            (lead_in(&found), found)
        }
    };
    s.text_block(&text);
    let first_id = req.messages.iter().flat_map(|m| m.tool_uses()).count();
    for (n, intent) in calls.iter().enumerate() {
        s.tool_block(&format!("toolu_demo_{:03}", first_id + n + 1), intent);
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    s.finish(stop);
    s.events
}

fn lead_in(found: &[Intent]) -> String {
    let what: Vec<String> = found.iter().map(Intent::describe).collect();
    let list = match what.len() {
        1 => what[0].clone(),
        _ => {
            let (last, rest) = what
                .split_last()
                .map_or((String::new(), &[][..]), |(l, r)| (l.clone(), r));
            format!("{} and {last}", rest.join(", "))
        }
    };
    let tools = if found.len() > 1 {
        " These calls are independent, so I'll make them all at once."
    } else {
        ""
    };
    format!("(offline demo model) I'll {list}.{tools}")
}

/// The user's own words in a message: text blocks minus tooloop's markers.
fn prompt_text(m: &Message) -> String {
    if m.role != Role::User {
        return String::new();
    }
    let mut out = String::new();
    for b in &m.content {
        if let ContentBlock::Text { text, .. } = b {
            match markers::parse(text) {
                // Words before one of these belong to an earlier prompt (interrupted, run
                // as a `!command`, or compacted away); a new prompt follows it.
                Some(Marker::Interrupt | Marker::Shell { .. } | Marker::Summary(_)) => out.clear(),
                // What tooloop adds to a prompt (an `@file`, a job's notice) is not asked.
                Some(Marker::Mention(_) | Marker::JobNotice(_) | Marker::Skill(_)) => {}
                None => {
                    out.push_str(text);
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// (tool name, input, output, is_error) for each tool_result of the last message.
fn last_tool_results(history: Messages<'_>) -> Vec<(String, Value, String, bool)> {
    let Some(last) = history.last() else {
        return Vec::new();
    };
    let asked = history.len().checked_sub(2).and_then(|i| history.get(i));
    last.content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => {
                let (name, input) = asked
                    .and_then(|p| {
                        p.tool_uses()
                            .find(|(id, _, _)| id == tool_use_id)
                            .map(|(_, n, i)| (n.to_string(), i.clone()))
                    })
                    .unwrap_or_else(|| ("tool".into(), Value::Null));
                Some((name, input, content.clone(), *is_error))
            }
            _ => None,
        })
        .collect()
}

/// Builds the event list with Anthropic-shaped raw events beside the normalized ones.
struct Script {
    pace: Pace,
    events: Vec<(Duration, StreamEvent)>,
    index: usize,
    output_chars: usize,
}

impl Script {
    fn new(pace: Pace) -> Self {
        Script {
            pace,
            events: Vec::new(),
            index: 0,
            output_chars: 0,
        }
    }

    fn push_raw(&mut self, delay: Duration, event: StreamEvent, name: &'static str, data: Value) {
        self.events.push((
            delay,
            StreamEvent::Raw {
                event: name.into(),
                data: data.to_string(),
            },
        ));
        self.events.push((Duration::ZERO, event));
    }

    fn text_block(&mut self, text: &str) {
        let index = self.index;
        self.index += 1;
        self.push_raw(
            Duration::ZERO,
            StreamEvent::BlockStart {
                index,
                kind: BlockKind::Text,
                id: None,
                name: None,
            },
            "content_block_start",
            json!({"type":"content_block_start","index":index,"content_block":{"type":"text","text":""}}),
        );
        for piece in text.split_inclusive(' ') {
            self.output_chars += piece.len();
            self.push_raw(
                self.pace.word,
                StreamEvent::TextDelta {
                    index,
                    text: piece.to_string(),
                },
                "content_block_delta",
                json!({"type":"content_block_delta","index":index,"delta":{"type":"text_delta","text":piece}}),
            );
        }
        self.push_raw(
            Duration::ZERO,
            StreamEvent::BlockStop { index },
            "content_block_stop",
            json!({"type":"content_block_stop","index":index}),
        );
    }

    fn tool_block(&mut self, id: &str, intent: &Intent) {
        let index = self.index;
        self.index += 1;
        let (name, input) = intent.call();
        self.push_raw(
            Duration::ZERO,
            StreamEvent::BlockStart {
                index,
                kind: BlockKind::ToolUse,
                id: Some(id.into()),
                name: Some(name.into()),
            },
            "content_block_start",
            json!({"type":"content_block_start","index":index,"content_block":{"type":"tool_use","id":id,"name":name,"input":{}}}),
        );
        let raw = input.to_string();
        self.output_chars += raw.len();
        let chars: Vec<char> = raw.chars().collect();
        for chunk in chars.chunks(12) {
            let partial: String = chunk.iter().collect();
            self.push_raw(
                self.pace.json_chunk,
                StreamEvent::ToolInputDelta {
                    index,
                    partial_json: partial.clone(),
                },
                "content_block_delta",
                json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":partial}}),
            );
        }
        self.push_raw(
            Duration::ZERO,
            StreamEvent::BlockStop { index },
            "content_block_stop",
            json!({"type":"content_block_stop","index":index}),
        );
    }

    fn finish(&mut self, stop_reason: &str) {
        let output_tokens = (self.output_chars / 4).max(1) as u64;
        self.push_raw(
            self.pace.word,
            StreamEvent::Delta {
                stop_reason: Some(stop_reason.into()),
                usage: Usage {
                    input_tokens: 0,
                    output_tokens,
                    ..Default::default()
                },
            },
            "message_delta",
            json!({"type":"message_delta","delta":{"stop_reason":stop_reason,"stop_sequence":null},"usage":{"output_tokens":output_tokens}}),
        );
        self.push_raw(
            Duration::ZERO,
            StreamEvent::MessageStop,
            "message_stop",
            json!({"type":"message_stop"}),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools_called(messages: Vec<Message>) -> Vec<String> {
        let req = super::super::ModelRequest {
            model: DEMO_MODEL.into(),
            system: String::new().into(),
            messages,
            tools: Vec::new(),
            max_tokens: 100,
            disable_parallel_tool_use: false,
            reasoning: Default::default(),
        };
        script(&req.as_request(), 0, Pace::default())
            .into_iter()
            .filter_map(|(_, e)| match e {
                StreamEvent::BlockStart {
                    kind: BlockKind::ToolUse,
                    name,
                    ..
                } => name,
                _ => None,
            })
            .collect()
    }

    #[test]
    fn after_an_interruption_only_the_new_prompt_counts() {
        let merged = Message::user(vec![
            ContentBlock::text("read Cargo.toml"),
            ContentBlock::text(crate::message::markers::INTERRUPT_MARKER),
            ContentBlock::text("what time is it"),
        ]);
        assert_eq!(tools_called(vec![merged]), vec!["get_current_time"]);
        // Interrupted after a tool ran: its result and the marker precede the new prompt.
        let asked = Message::assistant(vec![ContentBlock::ToolUse {
            id: "toolu_demo_001".into(),
            name: "read_file".into(),
            input: serde_json::json!({"path": "Cargo.toml"}),
        }]);
        let after = Message::user(vec![
            ContentBlock::tool_result("toolu_demo_001", "     1\t[package]", false),
            ContentBlock::text(crate::message::markers::INTERRUPT_MARKER),
            ContentBlock::text("what time is it"),
        ]);
        assert_eq!(
            tools_called(vec![
                Message::user_text("read Cargo.toml"),
                asked.clone(),
                after
            ]),
            vec!["get_current_time"]
        );
        let results_only = Message::user(vec![ContentBlock::tool_result(
            "toolu_demo_001",
            "     1\t[package]",
            false,
        )]);
        assert!(
            tools_called(vec![
                Message::user_text("read Cargo.toml"),
                asked,
                results_only
            ])
            .is_empty(),
            "plain results are summarized, not acted on again"
        );
        assert_eq!(
            tools_called(vec![Message::user_text("list files and read a.txt")]),
            vec!["list_dir", "read_file"]
        );
    }
}
