//! Chat completion chunks → normalized [`StreamEvent`]s.
//!
//! The reply becomes blocks in the order they appear: reasoning (`reasoning_content` or
//! `reasoning`, as sent by vLLM, DeepSeek, OpenRouter and others) as a thinking block, text
//! as a text block, each tool call as a tool_use block. The message ends properly at
//! `data: [DONE]`, or at the end of the body once a `finish_reason` came (for servers that
//! omit `[DONE]`); otherwise the stream is incomplete. `finish_reason` is not trusted to
//! say whether tools were called: servers send `stop` with tool calls.
//!
//! Reasoning has no signature, so its thinking block would be refused by the Anthropic API;
//! the OpenAI conversion drops thinking blocks anyway.

use std::collections::HashSet;

use serde_json::Value;

use super::tool_calls::ToolCalls;
use crate::provider::sse::SseRecord;
use crate::provider::{BlockKind, ProviderError, StreamEvent, Usage};
use crate::text::ellipsize;

/// How much of a bad chunk an error message quotes.
const SHOWN: usize = 200;

/// The text or thinking block being streamed (its index); the assembler keeps the content.
#[derive(Debug)]
enum Open {
    Text(usize),
    Thinking(usize),
}

#[derive(Debug, Default)]
pub struct ChunkDecoder {
    calls: ToolCalls,
    next_block: usize,
    open: Option<Open>,
    started: bool,
    finished: bool,
    stopped: bool,
}

impl ChunkDecoder {
    /// `taken_ids`: tool_use ids already in the history (new ones must differ).
    pub fn new(taken_ids: HashSet<String>) -> Self {
        ChunkDecoder {
            calls: ToolCalls::new(taken_ids),
            ..Self::default()
        }
    }

    /// Whether the message ended ([DONE] seen); nothing after it matters.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// One SSE event's meaning, appended to `out` (events before an error are kept).
    pub fn frame(
        &mut self,
        frame: &SseRecord,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        if self.stopped {
            return Ok(());
        }
        if frame.data.trim() == "[DONE]" {
            self.finish(None, out)?;
            out.push(StreamEvent::MessageStop);
            self.stopped = true;
            return Ok(());
        }
        // The first chunk (MessageStart, model) and error events take the general path.
        if self.started
            && frame.event != "error"
            && let Some(content) = super::fast::plain_text(&frame.data)
        {
            if let Some(text) = content.filter(|t| !t.is_empty()) {
                self.text(text.to_string(), out);
            }
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(&frame.data).map_err(|e| {
            ProviderError::Malformed(format!("{e} in {}", ellipsize(&frame.data, SHOWN)))
        })?;
        if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream_error(err));
        }
        if frame.event == "error" {
            return Err(stream_error(&chunk));
        }
        self.chunk(&chunk, out)
    }

    /// The body ended.
    pub fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        if self.stopped {
            return Ok(());
        }
        if !self.finished {
            return Err(ProviderError::Incomplete);
        }
        self.finish(None, out)?;
        out.push(StreamEvent::MessageStop);
        self.stopped = true;
        Ok(())
    }

    fn chunk(&mut self, chunk: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        if !self.started {
            self.started = true;
            out.push(StreamEvent::MessageStart {
                model: chunk.get("model").and_then(Value::as_str).map(Into::into),
                usage: Usage::default(),
            });
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        let choice = choices.and_then(|cs| {
            cs.iter()
                .find(|c| c.get("index").and_then(Value::as_u64) == Some(0))
                .or_else(|| cs.first())
        });
        if let Some(choice) = choice {
            // A server that ignored `stream: true` sends one whole `message` instead.
            let delta = choice.get("delta").or_else(|| choice.get("message"));
            if let Some(delta) = delta {
                self.delta(delta, out)?;
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                if reason == "error" {
                    return Err(ProviderError::Stream {
                        error_type: "api_error".into(),
                        message: "the server ended the reply with finish_reason \"error\"".into(),
                    });
                }
                self.finish(Some(reason), out)?;
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            // prompt_tokens includes the cached part; ours is the uncached rest.
            let cached = usage
                .pointer("/prompt_tokens_details/cached_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            out.push(StreamEvent::Delta {
                stop_reason: None,
                usage: Usage {
                    input_tokens: n("prompt_tokens").saturating_sub(cached),
                    output_tokens: n("completion_tokens"),
                    cache_read_tokens: cached,
                    cache_write_tokens: 0,
                    web_search_requests: 0,
                },
            });
        }
        Ok(())
    }

    fn delta(&mut self, delta: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let text_of = |k: &str| {
            delta
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        if let Some(thinking) = text_of("reasoning_content").or_else(|| text_of("reasoning")) {
            self.thinking(thinking, out);
        }
        match delta.get("content") {
            Some(Value::String(text)) if !text.is_empty() => self.text(text.clone(), out),
            // Mistral's reasoning models send a list of parts while they think:
            // `[{"type": "thinking", "thinking": [{"type": "text", "text": "…"}]},
            //   {"type": "text", "text": "…"}]`, then plain strings again.
            Some(Value::Array(parts)) => self.parts(parts, out),
            _ => {}
        }
        if let Some(Value::Array(fragments)) = delta.get("tool_calls") {
            for (position, fragment) in fragments.iter().enumerate() {
                self.close_open(out);
                self.calls
                    .fragment(fragment, position, &mut self.next_block, out)?;
            }
        }
        Ok(())
    }

    /// A content list: text parts are text, thinking parts reasoning, in their order;
    /// other parts (references, images) carry nothing to show.
    fn parts(&mut self, parts: &[Value], out: &mut Vec<StreamEvent>) {
        for part in parts {
            match part.get("type").and_then(Value::as_str) {
                Some("text") => {
                    if let Some(text) = part.get("text").and_then(Value::as_str)
                        && !text.is_empty()
                    {
                        self.text(text.to_string(), out);
                    }
                }
                Some("thinking") => {
                    let thinking = part_text(part.get("thinking"));
                    if !thinking.is_empty() {
                        self.thinking(&thinking, out);
                    }
                }
                _ => {}
            }
        }
    }

    fn text(&mut self, text: String, out: &mut Vec<StreamEvent>) {
        if !matches!(self.open, Some(Open::Text(..))) {
            self.close_open(out);
            let index = self.take_block();
            out.push(block_start(index, BlockKind::Text));
            self.open = Some(Open::Text(index));
        }
        if let Some(Open::Text(index)) = self.open {
            out.push(StreamEvent::TextDelta { index, text });
        }
    }

    fn thinking(&mut self, thinking: &str, out: &mut Vec<StreamEvent>) {
        if !matches!(self.open, Some(Open::Thinking(..))) {
            self.close_open(out);
            let index = self.take_block();
            out.push(block_start(index, BlockKind::Thinking));
            self.open = Some(Open::Thinking(index));
        }
        if let Some(Open::Thinking(index)) = self.open {
            out.push(StreamEvent::ThinkingDelta {
                index,
                thinking: thinking.to_string(),
            });
        }
    }

    fn take_block(&mut self) -> usize {
        let index = self.next_block;
        self.next_block += 1;
        index
    }

    fn close_open(&mut self, out: &mut Vec<StreamEvent>) {
        if let Some(Open::Text(index) | Open::Thinking(index)) = self.open.take() {
            out.push(StreamEvent::BlockStop { index });
        }
    }

    /// The choice finished (`reason`) or the message ended without saying why (None):
    /// everything open is complete, and the stop reason is known.
    fn finish(
        &mut self,
        reason: Option<&str>,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        let first = !self.finished;
        self.close_open(out);
        self.calls.finish(out)?;
        self.finished = true;
        if reason.is_none() && !first {
            return Ok(());
        }
        let stop = match reason {
            Some("length") => "max_tokens",
            Some("content_filter") => "refusal",
            _ if self.calls.seen > 0 => "tool_use",
            _ => "end_turn",
        };
        out.push(StreamEvent::Delta {
            stop_reason: Some(stop.into()),
            usage: Usage::default(),
        });
        Ok(())
    }
}

/// The text of a thinking part: a string, or a list of text parts (Mistral).
fn part_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn block_start(index: usize, kind: BlockKind) -> StreamEvent {
    StreamEvent::BlockStart {
        index,
        kind,
        id: None,
        name: None,
    }
}

/// An error object inside the stream, with its type normalized so the retry policy sees
/// the same names as for Anthropic (`overloaded_error`, `api_error`, `rate_limit_error`);
/// OpenRouter and others put an HTTP status in `code`.
fn stream_error(err: &Value) -> ProviderError {
    let message = match err {
        Value::String(s) => s.clone(),
        _ => err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| ellipsize(&err.to_string(), SHOWN)),
    };
    let kind = err.get("type").and_then(Value::as_str);
    let code = err.get("code").and_then(|c| match c {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    });
    let status: Option<u16> = code.as_deref().and_then(|c| c.parse().ok());
    let overloaded = kind == Some("overloaded_error")
        || matches!(status, Some(529 | 503))
        || message.to_lowercase().contains("overloaded");
    let error_type = if overloaded {
        "overloaded_error".to_string()
    } else if status == Some(429) || kind.is_some_and(|k| k.contains("rate_limit")) {
        "rate_limit_error".to_string()
    } else if matches!(kind, Some("server_error" | "api_error")) || status.is_some_and(|s| s >= 500)
    {
        "api_error".to_string()
    } else {
        kind.map(str::to_string)
            .or(code)
            .unwrap_or_else(|| "error".to_string())
    };
    ProviderError::Stream {
        error_type,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(err: Value) -> String {
        match stream_error(&err) {
            ProviderError::Stream { error_type, .. } => error_type,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn stream_error_types_are_normalized() {
        assert_eq!(
            kind(json!({"message": "x", "type": "server_error"})),
            "api_error"
        );
        assert_eq!(kind(json!({"message": "x", "code": 502})), "api_error");
        assert_eq!(
            kind(json!({"message": "Provider overloaded", "code": 400})),
            "overloaded_error"
        );
        assert_eq!(
            kind(json!({"message": "x", "code": "503"})),
            "overloaded_error"
        );
        assert_eq!(
            kind(json!({"message": "slow down", "code": 429})),
            "rate_limit_error"
        );
        assert_eq!(
            kind(json!({"message": "x", "type": "invalid_request_error"})),
            "invalid_request_error"
        );
        assert_eq!(kind(json!("plain text")), "error");
    }

    #[test]
    fn done_without_finish_infers_the_stop_reason() {
        let mut d = ChunkDecoder::new(HashSet::new());
        let mut out = Vec::new();
        let rec = |data: &str| SseRecord {
            event: "".into(),
            data: data.into(),
        };
        let call = json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "c1", "function": {"name": "glob", "arguments": "{}"}}]}}]});
        d.frame(&rec(&call.to_string()), &mut out).expect("chunk");
        d.frame(&rec("[DONE]"), &mut out).expect("done");
        assert!(d.stopped());
        assert!(out.contains(&StreamEvent::Delta {
            stop_reason: Some("tool_use".into()),
            usage: Usage::default()
        }));
        assert_eq!(out.last(), Some(&StreamEvent::MessageStop));
        let mut after = Vec::new();
        d.frame(&rec("{\"choices\": []}"), &mut after)
            .expect("ignored");
        d.end(&mut after).expect("already stopped");
        assert!(after.is_empty(), "nothing after [DONE]");
    }
}
