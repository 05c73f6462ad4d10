//! Builders for scripted Anthropic Messages API streams and errors.

use std::time::Duration;

use serde_json::{Value, json};

pub use super::anthropic_validate::{tool_results, validate};
use super::reply::{Ending, Reply, SseEvent};

#[derive(Clone, Debug)]
enum Block {
    Text(String),
    Thinking(String, String),
    RedactedThinking(String),
    ToolUse {
        id: String,
        name: String,
        fragments: Vec<String>,
    },
}

/// Builds a Messages API stream:
/// `ReplyBuilder::new().text("Hi").tool_use("toolu_1", "get_current_time", json!({})).build()`.
#[derive(Clone, Debug)]
pub struct ReplyBuilder {
    blocks: Vec<Block>,
    stop_reason: Option<String>,
    input_tokens: u64,
    output_tokens: u64,
    delay: Duration,
    chunk: Option<usize>,
    ping: bool,
}

impl Default for ReplyBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ReplyBuilder {
    pub fn new() -> Self {
        ReplyBuilder {
            blocks: Vec::new(),
            stop_reason: None,
            input_tokens: 10,
            output_tokens: 5,
            delay: Duration::ZERO,
            chunk: None,
            ping: true,
        }
    }

    pub fn text(mut self, text: &str) -> Self {
        self.blocks.push(Block::Text(text.to_string()));
        self
    }

    /// A redacted_thinking block: its whole `data` comes in content_block_start.
    pub fn redacted_thinking(mut self, data: &str) -> Self {
        super::anthropic_thinking::issue_redacted(data);
        self.blocks.push(Block::RedactedThinking(data.into()));
        self
    }

    /// A thinking block; the mock accepts it back only with exactly this text and signature.
    pub fn thinking(mut self, thinking: &str, signature: &str) -> Self {
        super::anthropic_thinking::issue(thinking, signature);
        self.blocks
            .push(Block::Thinking(thinking.into(), signature.into()));
        self
    }

    /// A thinking block with a made-up signature (`anthropic_thinking::sign(text)`).
    pub fn signed_thinking(self, thinking: &str) -> Self {
        let sig = super::anthropic_thinking::sign(thinking);
        self.thinking(thinking, &sig)
    }

    /// A tool_use whose input JSON is streamed in three fragments (none for `{}`).
    pub fn tool_use(self, id: &str, name: &str, input: Value) -> Self {
        let s = input.to_string();
        let fragments = if s == "{}" { Vec::new() } else { split3(&s) };
        self.tool_use_fragments(id, name, &fragments)
    }

    /// A tool_use with exactly these input_json_delta fragments (may be invalid JSON).
    pub fn tool_use_fragments(
        mut self,
        id: &str,
        name: &str,
        fragments: &[impl AsRef<str>],
    ) -> Self {
        self.blocks.push(Block::ToolUse {
            id: id.into(),
            name: name.into(),
            fragments: fragments.iter().map(|f| f.as_ref().to_string()).collect(),
        });
        self
    }

    pub fn stop_reason(mut self, reason: &str) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.input_tokens = input;
        self.output_tokens = output;
        self
    }

    /// The delay before every event.
    pub fn delay(mut self, d: Duration) -> Self {
        self.delay = d;
        self
    }

    pub fn delay_ms(self, ms: u64) -> Self {
        self.delay(Duration::from_millis(ms))
    }

    /// Write the body in `n`-byte pieces.
    pub fn chunk(mut self, n: usize) -> Self {
        self.chunk = Some(n);
        self
    }

    /// Without the `ping` the real API sends after message_start.
    pub fn no_ping(mut self) -> Self {
        self.ping = false;
        self
    }

    /// The events, to edit before wrapping them with [`Reply::sse`].
    pub fn events(&self) -> Vec<SseEvent> {
        let mut ev = Vec::new();
        ev.push(named(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": "msg_mock", "type": "message", "role": "assistant", "model": "mock-model",
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": self.input_tokens, "output_tokens": 1}
            }}),
        ));
        if self.ping {
            ev.push(named("ping", json!({"type": "ping"})));
        }
        for (index, block) in self.blocks.iter().enumerate() {
            match block {
                Block::Text(text) => {
                    ev.push(block_start(index, json!({"type": "text", "text": ""})));
                    for piece in split_words(text) {
                        ev.push(delta(index, json!({"type": "text_delta", "text": piece})));
                    }
                }
                Block::Thinking(thinking, sig) => {
                    ev.push(block_start(
                        index,
                        json!({"type": "thinking", "thinking": "", "signature": ""}),
                    ));
                    for piece in split_words(thinking) {
                        ev.push(delta(
                            index,
                            json!({"type": "thinking_delta", "thinking": piece}),
                        ));
                    }
                    ev.push(delta(
                        index,
                        json!({"type": "signature_delta", "signature": sig}),
                    ));
                }
                Block::RedactedThinking(data) => ev.push(block_start(
                    index,
                    json!({"type": "redacted_thinking", "data": data}),
                )),
                Block::ToolUse {
                    id,
                    name,
                    fragments,
                } => {
                    ev.push(block_start(
                        index,
                        json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                    ));
                    for f in fragments {
                        ev.push(delta(
                            index,
                            json!({"type": "input_json_delta", "partial_json": f}),
                        ));
                    }
                }
            }
            ev.push(named(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": index}),
            ));
        }
        let has_tools = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }));
        let stop = self
            .stop_reason
            .clone()
            .unwrap_or_else(|| if has_tools { "tool_use" } else { "end_turn" }.to_string());
        ev.push(named(
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": self.output_tokens}}),
        ));
        ev.push(named("message_stop", json!({"type": "message_stop"})));
        ev
    }

    pub fn build(&self) -> Reply {
        self.wrap(self.events(), Ending::Complete)
    }

    /// The stream cut after `n` events by closing the connection mid-body.
    pub fn drop_after(&self, n: usize) -> Reply {
        let mut ev = self.events();
        ev.truncate(n);
        self.wrap(ev, Ending::Drop)
    }

    /// `n` events, then `event: error` (e.g. overloaded_error) and a clean end of body.
    pub fn error_after(&self, n: usize, error_type: &str, message: &str) -> Reply {
        let mut ev = self.events();
        ev.truncate(n);
        ev.push(stream_error(error_type, message));
        self.wrap(ev, Ending::Complete)
    }

    /// `n` events, then an event whose data is not JSON.
    pub fn malformed_after(&self, n: usize) -> Reply {
        let mut ev = self.events();
        ev.truncate(n);
        ev.push(SseEvent::raw(
            "event: content_block_delta\ndata: {\"type\": \"content_blo\n\n",
        ));
        self.wrap(ev, Ending::Complete)
    }

    /// Every event but message_stop, then a clean end of body.
    pub fn without_message_stop(&self) -> Reply {
        let mut ev = self.events();
        ev.pop();
        self.wrap(ev, Ending::Complete)
    }

    /// `n` events, then silence with the connection open.
    pub fn stall_after(&self, n: usize) -> Reply {
        let mut ev = self.events();
        ev.truncate(n);
        self.wrap(ev, Ending::Stall)
    }

    fn wrap(&self, mut events: Vec<SseEvent>, ending: Ending) -> Reply {
        for e in &mut events {
            e.delay = self.delay;
        }
        let mut r = Reply::sse(events).ending(ending);
        if let Some(n) = self.chunk {
            r = r.chunked(n);
        }
        r
    }
}

/// A plain text answer.
pub fn text_reply(text: &str) -> Reply {
    ReplyBuilder::new().text(text).build()
}

/// A reply asking for these tools, in order: `(id, name, input)`.
pub fn tool_reply(calls: &[(&str, &str, Value)]) -> Reply {
    let mut b = ReplyBuilder::new();
    for (id, name, input) in calls {
        b = b.tool_use(id, name, input.clone());
    }
    b.build()
}

/// 529 overloaded_error, the API's "try again later".
pub fn overloaded() -> Reply {
    Reply::error(529, "overloaded_error", "Overloaded")
}

/// 429 rate_limit_error with `retry-after-ms`.
pub fn rate_limited(retry_after_ms: u64) -> Reply {
    Reply::error(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
    )
    .header("retry-after-ms", &retry_after_ms.to_string())
    .header("retry-after", &retry_after_ms.div_ceil(1000).to_string())
}

/// An `event: error` SSE event.
pub fn stream_error(error_type: &str, message: &str) -> SseEvent {
    named(
        "error",
        json!({"type": "error", "error": {"type": error_type, "message": message}}),
    )
}

pub fn named(name: &str, data: Value) -> SseEvent {
    SseEvent::named(name, &data)
}

fn block_start(index: usize, block: Value) -> SseEvent {
    named(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": block}),
    )
}

fn delta(index: usize, delta: Value) -> SseEvent {
    named(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

/// Words with their trailing spaces, so deltas join back to the text.
fn split_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if c == ' ' {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn split3(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let step = chars.len().div_ceil(3).max(1);
    chars.chunks(step).map(|c| c.iter().collect()).collect()
}

/// 400 with the API's prompt-too-long message.
pub fn prompt_too_long() -> Reply {
    Reply::error(
        400,
        "invalid_request_error",
        "prompt is too long: 210000 tokens > 200000 maximum",
    )
}
