//! Messages API stream events → normalized [`StreamEvent`]s.
//!
//! A synchronous decoder fed with body bytes, so every protocol edge case is testable
//! without a socket; [`event_stream`] drives it from a reqwest body.

use crate::provider::error_chain;
use std::collections::VecDeque;

use futures::{Stream, StreamExt};
use serde_json::Value;

use super::events::{WireDelta, delta_field, is_known, usage};
use crate::provider::sse::{SseParser, SseRecord};
use crate::provider::{BlockKind, EventStream, ProviderError, StreamEvent, Usage};

/// What the decoder remembers of an open block: only its kind (the assembler keeps the
/// content), to route deltas and to reject ones for blocks that never started.
#[derive(Debug)]
enum Open {
    Text,
    Thinking,
    RedactedThinking,
    ToolUse {
        /// The input given in content_block_start (normally `{}`), sent as the input when
        /// no fragment came.
        initial: Option<Value>,
        fragments: bool,
    },
    /// A block type we do not model (server tools and their results): kept verbatim; a
    /// server_tool_use's input_json_delta fragments are passed on.
    Other,
}

/// Turns body bytes into results. After the first `Err` it yields nothing more.
#[derive(Debug, Default)]
pub struct Decoder {
    sse: SseParser,
    records: Vec<SseRecord>,
    /// Blocks started and not yet stopped: almost always one, so a short list beats a
    /// hash map on every delta.
    open: Vec<(usize, Open)>,
    stopped: bool,
    failed: bool,
}

pub type Item = Result<StreamEvent, ProviderError>;

impl Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the stream is over (message_stop seen, or an error reported).
    pub fn is_done(&self) -> bool {
        self.stopped || self.failed
    }

    pub fn feed(&mut self, bytes: &[u8], out: &mut VecDeque<Item>) {
        if self.is_done() {
            return;
        }
        let mut records = std::mem::take(&mut self.records);
        self.sse.feed(bytes, &mut records);
        for rec in records.drain(..) {
            if self.is_done() {
                break;
            }
            self.record(rec, out);
        }
        self.records = records;
    }

    /// The body ended: without message_stop that is an error, never success.
    pub fn finish(&mut self, out: &mut VecDeque<Item>) {
        if !self.is_done() {
            self.fail(ProviderError::Incomplete, out);
        }
    }

    /// The body could not be read to its end.
    pub fn interrupted(&mut self, error: String, out: &mut VecDeque<Item>) {
        if !self.is_done() {
            self.fail(ProviderError::Interrupted(error), out);
        }
    }

    fn fail(&mut self, e: ProviderError, out: &mut VecDeque<Item>) {
        self.failed = true;
        out.push_back(Err(e));
    }

    fn record(&mut self, rec: SseRecord, out: &mut VecDeque<Item>) {
        let SseRecord { event, data } = rec;
        let name = if event.is_empty() {
            std::borrow::Cow::Borrowed("data")
        } else {
            event
        };
        // The Raw copy goes first in `out`; it is inserted after decoding so `data` moves
        // into it instead of being cloned (a copy per event showed in the parse bench).
        let raw_at = out.len();
        if name != "ping" {
            self.decode(&name, &data, out);
        }
        out.insert(raw_at, Ok(StreamEvent::Raw { event: name, data }));
    }

    fn decode(&mut self, name: &str, data: &str, out: &mut VecDeque<Item>) {
        // Nearly every event of a stream is a content_block_delta: parsed into a typed
        // struct it costs a fraction of a `Value` tree. Anything unusual takes the general
        // path below, which gives the same results and the error messages.
        if name == "content_block_delta"
            && let Ok(d) = serde_json::from_str::<WireDelta>(data)
            && d.ty == "content_block_delta"
            && d.delta.ty != "citations_delta"
        {
            let (kind, value) = d.delta.field();
            if let Err(msg) = self.block_delta(d.index, &kind, value, out) {
                self.fail(ProviderError::Malformed(format!("{}: {msg}", d.ty)), out);
            }
            return;
        }
        let json: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) if !is_known(name) && name != "data" => return,
            Err(e) => {
                let shown: String = data.chars().take(120).collect();
                return self.fail(
                    ProviderError::Malformed(format!("{name} event is not JSON ({e}): {shown}")),
                    out,
                );
            }
        };
        let ty = json
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(name)
            .to_string();
        if let Err(msg) = self.event(&ty, &json, out) {
            self.fail(ProviderError::Malformed(format!("{ty}: {msg}")), out);
        }
    }

    fn event(&mut self, ty: &str, v: &Value, out: &mut VecDeque<Item>) -> Result<(), BlockError> {
        match ty {
            "message_start" => {
                let msg = &v["message"];
                out.push_back(Ok(StreamEvent::MessageStart {
                    model: msg["model"].as_str().map(String::from),
                    usage: usage(&msg["usage"]),
                }));
                self.prefilled(msg, out)?;
            }
            "content_block_start" => self.block_start(index(v)?, &v["content_block"], out)?,
            "content_block_delta" => {
                let delta = &v["delta"];
                let kind = delta["type"].as_str().unwrap_or("");
                if kind == "citations_delta" {
                    return self.citation(index(v)?, &delta["citation"], out);
                }
                let value = delta[delta_field(kind)].as_str().unwrap_or("").to_string();
                self.block_delta(index(v)?, kind, value, out)?
            }
            "content_block_stop" => self.block_stop(index(v)?, out)?,
            "message_delta" => out.push_back(Ok(StreamEvent::Delta {
                stop_reason: v["delta"]["stop_reason"].as_str().map(String::from),
                usage: usage(&v["usage"]),
            })),
            "message_stop" => {
                self.stopped = true;
                out.push_back(Ok(StreamEvent::MessageStop));
            }
            "error" => {
                let err = &v["error"];
                let error_type = err["type"].as_str().unwrap_or("error").to_string();
                let message = err["message"]
                    .as_str()
                    .map(String::from)
                    .unwrap_or_else(|| err.to_string());
                self.fail(
                    ProviderError::Stream {
                        error_type,
                        message,
                    },
                    out,
                );
            }
            // New event types appear over time; the API's versioning policy says to ignore them.
            _ => {}
        }
        Ok(())
    }

    fn block_start(
        &mut self,
        index: usize,
        block: &Value,
        out: &mut VecDeque<Item>,
    ) -> Result<(), BlockError> {
        let ty = block["type"].as_str().unwrap_or("");
        let (kind, open, id, name) = match ty {
            "text" => (BlockKind::Text, Open::Text, None, None),
            "thinking" => (BlockKind::Thinking, Open::Thinking, None, None),
            "redacted_thinking" => (
                BlockKind::RedactedThinking,
                Open::RedactedThinking,
                None,
                None,
            ),
            "tool_use" => {
                // Without an id the call could never be answered, so the history would break.
                let (Some(id), Some(name)) = (
                    block["id"].as_str().filter(|s| !s.is_empty()),
                    block["name"].as_str().filter(|s| !s.is_empty()),
                ) else {
                    return Err(BlockError::ToolWithoutId(index));
                };
                let initial = block
                    .get("input")
                    .filter(|v| !v.is_null() && v.as_object().is_none_or(|o| !o.is_empty()))
                    .cloned();
                let open = Open::ToolUse {
                    initial,
                    fragments: false,
                };
                (
                    BlockKind::ToolUse,
                    open,
                    Some(id.to_string()),
                    Some(name.to_string()),
                )
            }
            _ => {
                // Kept verbatim (server tools, their results, future types): the whole
                // block as it started; a server_tool_use's input streams in as JSON deltas.
                match self.open.iter_mut().find(|(i, _)| *i == index) {
                    Some(slot) => slot.1 = Open::Other,
                    None => self.open.push((index, Open::Other)),
                }
                out.push_back(Ok(StreamEvent::OtherBlock {
                    index,
                    block: block.clone(),
                }));
                return Ok(());
            }
        };
        match self.open.iter_mut().find(|(i, _)| *i == index) {
            Some(slot) => slot.1 = open,
            None => self.open.push((index, open)),
        }
        out.push_back(Ok(StreamEvent::BlockStart {
            index,
            kind,
            id,
            name,
        }));
        // Text and thinking blocks may carry their first piece in the start event, a
        // thinking block its signature, a redacted one its whole data.
        let field = |k: &str| block[k].as_str().filter(|t| !t.is_empty());
        match kind {
            BlockKind::Text => {
                if let Some(text) = field("text") {
                    self.block_delta(index, "text_delta", text.to_string(), out)?;
                }
                for citation in block["citations"].as_array().into_iter().flatten() {
                    self.citation(index, citation, out)?;
                }
            }
            BlockKind::Thinking => {
                if let Some(t) = field("thinking") {
                    self.block_delta(index, "thinking_delta", t.to_string(), out)?;
                }
                if let Some(sig) = field("signature") {
                    self.block_delta(index, "signature_delta", sig.to_string(), out)?;
                }
            }
            BlockKind::RedactedThinking => out.push_back(Ok(StreamEvent::RedactedThinking {
                index,
                data: field("data").unwrap_or("").to_string(),
            })),
            BlockKind::ToolUse | BlockKind::Other => {}
        }
        Ok(())
    }

    /// `value` is the delta's payload field for its `kind` (see [`delta_field`]).
    fn block_delta(
        &mut self,
        index: usize,
        kind: &str,
        value: String,
        out: &mut VecDeque<Item>,
    ) -> Result<(), BlockError> {
        let Some((_, open)) = self.open.iter_mut().find(|(i, _)| *i == index) else {
            return Err(BlockError::NeverStarted("delta", index));
        };
        let event = match (kind, open) {
            ("text_delta", Open::Text) => StreamEvent::TextDelta { index, text: value },
            ("thinking_delta", Open::Thinking) => StreamEvent::ThinkingDelta {
                index,
                thinking: value,
            },
            ("signature_delta", Open::Thinking) => StreamEvent::SignatureDelta {
                index,
                signature: value,
            },
            ("input_json_delta", Open::ToolUse { fragments, .. }) => {
                *fragments |= !value.trim().is_empty();
                StreamEvent::ToolInputDelta {
                    index,
                    partial_json: value,
                }
            }
            // A server_tool_use's input (the search query, the code to run).
            ("input_json_delta", Open::Other) => StreamEvent::ToolInputDelta {
                index,
                partial_json: value,
            },
            // Deltas this decoder does not know (the API adds types over time).
            _ => return Ok(()),
        };
        out.push_back(Ok(event));
        Ok(())
    }

    /// A `citations_delta` (or a citation already in a text block's start): the citation
    /// object verbatim, appended to the text block's `citations`.
    fn citation(
        &mut self,
        index: usize,
        citation: &Value,
        out: &mut VecDeque<Item>,
    ) -> Result<(), BlockError> {
        match self.open.iter().find(|(i, _)| *i == index) {
            None => Err(BlockError::NeverStarted("citation", index)),
            Some((_, Open::Text)) if citation.is_object() => {
                out.push_back(Ok(StreamEvent::Citation {
                    index,
                    citation: citation.clone(),
                }));
                Ok(())
            }
            Some(_) => Ok(()),
        }
    }

    /// A `message_start` whose message already holds content (a resumed or prefilled
    /// reply, e.g. a tool call that arrives inside it): those blocks arrived, complete, in
    /// order, at the indices the later content_block events continue from. Its stop_reason
    /// counts as well, as in the SDKs' accumulators.
    fn prefilled(&mut self, msg: &Value, out: &mut VecDeque<Item>) -> Result<(), BlockError> {
        for (index, block) in msg["content"].as_array().into_iter().flatten().enumerate() {
            self.block_start(index, block, out)?;
            self.block_stop(index, out)?;
        }
        if let Some(reason) = msg["stop_reason"].as_str() {
            out.push_back(Ok(StreamEvent::Delta {
                stop_reason: Some(reason.to_string()),
                usage: Usage::default(),
            }));
        }
        Ok(())
    }

    fn block_stop(&mut self, index: usize, out: &mut VecDeque<Item>) -> Result<(), BlockError> {
        let Some(at) = self.open.iter().position(|(i, _)| *i == index) else {
            return Err(BlockError::NeverStarted("stop", index));
        };
        let (_, open) = self.open.swap_remove(at);
        if let Open::ToolUse {
            initial: Some(input),
            fragments: false,
        } = open
        {
            out.push_back(Ok(StreamEvent::ToolInputDelta {
                index,
                partial_json: input.to_string(),
            }));
        }
        out.push_back(Ok(StreamEvent::BlockStop { index }));
        Ok(())
    }
}

/// Why an event broke the protocol (reported as [`ProviderError::Malformed`]).
#[derive(Debug, thiserror::Error)]
enum BlockError {
    #[error("{0} for block {1}, which was never started")]
    NeverStarted(&'static str, usize),
    #[error("tool_use block {0} without an id or name")]
    ToolWithoutId(usize),
    #[error("missing block index")]
    MissingIndex,
}

fn index(v: &Value) -> Result<usize, BlockError> {
    v["index"]
        .as_u64()
        .map(|i| i as usize)
        .ok_or(BlockError::MissingIndex)
}

/// Drives a [`Decoder`] from a body stream. A read error mid-body is `Interrupted`.
pub fn event_stream<S, B, E>(body: S) -> EventStream
where
    S: Stream<Item = Result<B, E>> + Send + Unpin + 'static,
    B: AsRef<[u8]>,
    E: std::error::Error,
{
    let state = (body, Decoder::new(), VecDeque::new());
    Box::pin(futures::stream::unfold(
        state,
        |(mut body, mut dec, mut queue)| async move {
            loop {
                if let Some(item) = queue.pop_front() {
                    return Some((item, (body, dec, queue)));
                }
                if dec.is_done() {
                    return None;
                }
                match body.next().await {
                    Some(Ok(bytes)) => dec.feed(bytes.as_ref(), &mut queue),
                    Some(Err(e)) => dec.interrupted(error_chain(&e), &mut queue),
                    None => dec.finish(&mut queue),
                }
            }
        },
    ))
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
