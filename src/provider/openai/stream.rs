//! Chat completion chunks → normalized [`StreamEvent`]s.
//!
//! The reply becomes blocks in the order they appear: reasoning (`reasoning_content` or
//! `reasoning`, as sent by vLLM, DeepSeek, OpenRouter and others) as a thinking block, text
//! as a text block, each tool call as a tool_use block. The message ends properly at
//! `data: [DONE]`, or at the end of the body once a `finish_reason` came (for servers that
//! omit `[DONE]`); otherwise the stream is incomplete. `finish_reason` is not trusted to
//! say whether tools were called: servers send `stop` with tool calls.

use std::collections::{HashSet, VecDeque};

use futures::{Stream, StreamExt};
use serde_json::Value;

use super::sse_lines::{Frame, SseLines};
use super::tool_calls::ToolCalls;
use crate::message::ContentBlock;
use crate::provider::{BlockKind, EventStream, ProviderError, StreamEvent, Usage};

#[derive(Debug)]
enum Open {
    Text(usize, String),
    Thinking(usize, String),
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

    /// One SSE event: its Raw copy first, then what it means.
    pub fn frame(&mut self, frame: Frame) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut out = vec![StreamEvent::Raw {
            event: frame.event.clone(),
            data: frame.data.clone(),
        }];
        if self.stopped {
            return Ok(out);
        }
        if frame.data.trim() == "[DONE]" {
            self.finish(None, &mut out)?;
            out.push(StreamEvent::MessageStop);
            self.stopped = true;
            return Ok(out);
        }
        let chunk: Value = serde_json::from_str(&frame.data)
            .map_err(|e| ProviderError::Malformed(format!("{e} in {}", shorten(&frame.data))))?;
        if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream_error(err));
        }
        if frame.event == "error" {
            return Err(stream_error(&chunk));
        }
        self.chunk(&chunk, &mut out)?;
        Ok(out)
    }

    /// The body ended.
    pub fn end(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut out = Vec::new();
        if self.stopped {
            return Ok(out);
        }
        if !self.finished {
            return Err(ProviderError::Incomplete);
        }
        self.finish(None, &mut out)?;
        out.push(StreamEvent::MessageStop);
        self.stopped = true;
        Ok(out)
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
            out.push(StreamEvent::Delta {
                stop_reason: None,
                usage: Usage {
                    input_tokens: n("prompt_tokens"),
                    output_tokens: n("completion_tokens"),
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
        if let Some(text) = text_of("content") {
            self.text(text, out);
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

    fn text(&mut self, text: &str, out: &mut Vec<StreamEvent>) {
        if !matches!(self.open, Some(Open::Text(..))) {
            self.close_open(out);
            let index = self.take_block();
            out.push(block_start(index, BlockKind::Text));
            self.open = Some(Open::Text(index, String::new()));
        }
        if let Some(Open::Text(index, buf)) = &mut self.open {
            buf.push_str(text);
            out.push(StreamEvent::TextDelta {
                index: *index,
                text: text.to_string(),
            });
        }
    }

    fn thinking(&mut self, thinking: &str, out: &mut Vec<StreamEvent>) {
        if !matches!(self.open, Some(Open::Thinking(..))) {
            self.close_open(out);
            let index = self.take_block();
            out.push(block_start(index, BlockKind::Thinking));
            self.open = Some(Open::Thinking(index, String::new()));
        }
        if let Some(Open::Thinking(index, buf)) = &mut self.open {
            buf.push_str(thinking);
            out.push(StreamEvent::ThinkingDelta {
                index: *index,
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
        let block = match self.open.take() {
            None => return,
            Some(Open::Text(index, text)) => (index, ContentBlock::Text { text }),
            Some(Open::Thinking(index, thinking)) => (
                index,
                ContentBlock::Thinking {
                    thinking,
                    signature: String::new(),
                },
            ),
        };
        out.push(StreamEvent::BlockComplete {
            index: block.0,
            block: block.1,
        });
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

fn block_start(index: usize, kind: BlockKind) -> StreamEvent {
    StreamEvent::BlockStart {
        index,
        kind,
        id: None,
        name: None,
    }
}

/// An error object inside the stream, with its type normalized so the retry policy sees
/// the same names as for Anthropic (`overloaded_error`, `api_error`).
fn stream_error(err: &Value) -> ProviderError {
    let message = match err {
        Value::String(s) => s.clone(),
        _ => err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| shorten(&err.to_string())),
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

fn shorten(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX).collect();
    format!("{cut}…")
}

/// How the response body is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    Sse,
    /// One JSON object: a server that ignored `stream: true`.
    Json,
}

/// A response body → normalized events. The stream ends after MessageStop or the first
/// error; `taken_ids` are the tool_use ids already in the history.
pub fn decode<S, B, E>(body: S, framing: Framing, taken_ids: HashSet<String>) -> EventStream
where
    S: Stream<Item = Result<B, E>> + Send + Unpin + 'static,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    struct St<S> {
        body: S,
        framing: Framing,
        lines: SseLines,
        whole: Vec<u8>,
        decoder: ChunkDecoder,
        pending: VecDeque<Result<StreamEvent, ProviderError>>,
        done: bool,
    }
    let state = St {
        body,
        framing,
        lines: SseLines::new(),
        whole: Vec::new(),
        decoder: ChunkDecoder::new(taken_ids),
        pending: VecDeque::new(),
        done: false,
    };
    let stream = futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(item) = st.pending.pop_front() {
                return Some((item, st));
            }
            if st.done {
                return None;
            }
            let frames: Result<Vec<Frame>, ProviderError> = match st.body.next().await {
                Some(Ok(bytes)) => match st.framing {
                    Framing::Sse => st
                        .lines
                        .push(bytes.as_ref())
                        .map_err(ProviderError::Malformed),
                    Framing::Json => {
                        st.whole.extend_from_slice(bytes.as_ref());
                        Ok(Vec::new())
                    }
                },
                Some(Err(e)) => {
                    st.fail(ProviderError::Interrupted(e.to_string()));
                    continue;
                }
                None => {
                    st.done = true;
                    match st.framing {
                        Framing::Sse => st.lines.finish().map_err(ProviderError::Malformed),
                        Framing::Json => String::from_utf8(std::mem::take(&mut st.whole))
                            .map(|data| {
                                vec![Frame {
                                    event: "data".into(),
                                    data,
                                }]
                            })
                            .map_err(|e| {
                                ProviderError::Malformed(format!("response is not UTF-8: {e}"))
                            }),
                    }
                }
            };
            let at_end = st.done;
            match frames {
                Ok(frames) => st.feed(frames, at_end),
                Err(e) => st.fail(e),
            }
        }
    });
    impl<S> St<S> {
        fn feed(&mut self, frames: Vec<Frame>, at_end: bool) {
            for frame in frames {
                match self.decoder.frame(frame) {
                    Ok(events) => self.pending.extend(events.into_iter().map(Ok)),
                    Err(e) => return self.fail(e),
                }
                if self.decoder.stopped() {
                    self.done = true;
                    return;
                }
            }
            if at_end {
                match self.decoder.end() {
                    Ok(events) => self.pending.extend(events.into_iter().map(Ok)),
                    Err(e) => self.fail(e),
                }
            }
        }

        fn fail(&mut self, e: ProviderError) {
            self.pending.push_back(Err(e));
            self.done = true;
        }
    }
    Box::pin(stream)
}
