//! Normalized stream events → the blocks of one assistant message.
//!
//! The one place where blocks are assembled: providers only decode their wire format into
//! start / delta / stop events; the buffers, the tool-input parse (once, at block stop),
//! the object-only rule and the handling of invalid input all live here.

mod tool_ids;
mod tool_input;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::message::ContentBlock;
use crate::provider::{BlockKind, StreamEvent, Usage};

/// A block that started and has not stopped yet.
#[derive(Debug)]
enum Partial {
    Text {
        text: String,
        citations: Vec<Value>,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking(String),
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    /// A block kept verbatim; `json` collects a server_tool_use's input fragments.
    Other {
        block: Value,
        json: String,
    },
    /// A block of a kind we were told nothing about: dropped.
    Unknown,
}

impl Partial {
    fn new(kind: BlockKind, id: Option<String>, name: Option<String>) -> Self {
        match kind {
            BlockKind::Text => Partial::Text {
                text: String::new(),
                citations: Vec::new(),
            },
            BlockKind::Thinking => Partial::Thinking {
                thinking: String::new(),
                signature: String::new(),
            },
            BlockKind::RedactedThinking => Partial::RedactedThinking(String::new()),
            BlockKind::ToolUse => Partial::ToolUse {
                id: id.unwrap_or_default(),
                name: name.unwrap_or_default(),
                json: String::new(),
            },
            BlockKind::Other => Partial::Unknown,
        }
    }
}

/// A tool_use whose input did not parse: kept in history with `{}` input and answered
/// with this error.
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidToolUse {
    pub id: String,
    pub name: String,
    pub error: String,
}

/// What a completed block means for the loop.
pub enum Completed<'a> {
    Block(&'a ContentBlock),
    Invalid(&'a InvalidToolUse),
}

#[derive(Debug, Default)]
pub struct Assembler {
    done: BTreeMap<usize, ContentBlock>,
    invalid: Vec<(usize, InvalidToolUse)>,
    partial: BTreeMap<usize, Partial>,
    pub stop_reason: Option<String>,
    pub usage: Usage,
    pub saw_stop: bool,
}

impl Assembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a tool_use block of this reply (complete or not) has this id.
    pub fn has_tool_id(&self, id: &str) -> bool {
        self.partial
            .values()
            .any(|p| matches!(p, Partial::ToolUse { id: i, .. } if i == id))
            || self
                .done
                .values()
                .any(|b| matches!(b, ContentBlock::ToolUse { id: i, .. } if i == id))
            || self.invalid.iter().any(|(_, inv)| inv.id == id)
    }

    /// Feeds one event; returns the block it completed, if any.
    pub fn push(&mut self, event: StreamEvent) -> Option<Completed<'_>> {
        match event {
            StreamEvent::MessageStart { usage, .. } => {
                self.usage.input_tokens = self.usage.input_tokens.max(usage.input_tokens);
                self.usage.output_tokens = self.usage.output_tokens.max(usage.output_tokens);
                self.usage.cache_read_tokens =
                    self.usage.cache_read_tokens.max(usage.cache_read_tokens);
                self.usage.cache_write_tokens =
                    self.usage.cache_write_tokens.max(usage.cache_write_tokens);
            }
            StreamEvent::BlockStart {
                index,
                kind,
                id,
                name,
            } => {
                self.partial.insert(index, Partial::new(kind, id, name));
            }
            StreamEvent::TextDelta { index, text } => match self.open(index, BlockKind::Text) {
                Partial::Text { text: buf, .. } => buf.push_str(&text),
                _ => tracing::warn!("text delta for a non-text block {index}"),
            },
            StreamEvent::Citation { index, citation } => {
                if let Partial::Text { citations, .. } = self.open(index, BlockKind::Text) {
                    citations.push(citation);
                }
            }
            StreamEvent::OtherBlock { index, block } => {
                let json = String::new();
                self.partial.insert(index, Partial::Other { block, json });
            }
            StreamEvent::ThinkingDelta { index, thinking } => {
                if let Partial::Thinking { thinking: buf, .. } =
                    self.open(index, BlockKind::Thinking)
                {
                    buf.push_str(&thinking);
                }
            }
            StreamEvent::SignatureDelta { index, signature } => {
                if let Partial::Thinking { signature: buf, .. } =
                    self.open(index, BlockKind::Thinking)
                {
                    buf.push_str(&signature);
                }
            }
            StreamEvent::RedactedThinking { index, data } => {
                if let Partial::RedactedThinking(buf) =
                    self.open(index, BlockKind::RedactedThinking)
                {
                    buf.push_str(&data);
                }
            }
            StreamEvent::ToolInputDelta {
                index,
                partial_json,
            } => {
                if let Some(Partial::ToolUse { json, .. } | Partial::Other { json, .. }) =
                    self.partial.get_mut(&index)
                {
                    json.push_str(&partial_json);
                }
            }
            StreamEvent::BlockStop { index } => return self.stop(index),
            StreamEvent::Delta { stop_reason, usage } => {
                if stop_reason.is_some() {
                    self.stop_reason = stop_reason;
                }
                if usage.input_tokens > 0 {
                    self.usage.input_tokens = usage.input_tokens;
                }
                // A final usage (message_delta, OpenAI's usage chunk) restates the cache
                // counts when it has them.
                if usage.cache_read_tokens > 0 || usage.cache_write_tokens > 0 {
                    self.usage.cache_read_tokens = usage.cache_read_tokens;
                    self.usage.cache_write_tokens = usage.cache_write_tokens;
                }
                self.usage.output_tokens = self.usage.output_tokens.max(usage.output_tokens);
                // Cumulative, like output_tokens.
                self.usage.web_search_requests = self
                    .usage
                    .web_search_requests
                    .max(usage.web_search_requests);
            }
            StreamEvent::MessageStop => self.saw_stop = true,
            StreamEvent::Raw { .. } => {}
        }
        None
    }

    /// The open block at `index`; a delta without a start opens one of its own kind.
    fn open(&mut self, index: usize, kind: BlockKind) -> &mut Partial {
        self.partial
            .entry(index)
            .or_insert_with(|| Partial::new(kind, None, None))
    }

    fn stop(&mut self, index: usize) -> Option<Completed<'_>> {
        let block = match self.partial.remove(&index)? {
            Partial::Text { text, citations } => ContentBlock::Text { text, citations },
            Partial::Thinking {
                thinking,
                signature,
            } => ContentBlock::Thinking {
                thinking,
                signature,
            },
            Partial::RedactedThinking(data) => ContentBlock::RedactedThinking { data },
            Partial::ToolUse { id, name, json } => match tool_input::parse(&json) {
                Ok(input) => ContentBlock::ToolUse { id, name, input },
                Err(error) => {
                    let shown = crate::text::ellipsize(&json, 200);
                    let error = format!(
                        "Error: the input of this call is not valid JSON ({error}). \
                         Input received: {shown}"
                    );
                    self.invalid
                        .push((index, InvalidToolUse { id, name, error }));
                    return self.invalid.last().map(|(_, inv)| Completed::Invalid(inv));
                }
            },
            Partial::Other { mut block, json } => {
                if !json.trim().is_empty() {
                    match serde_json::from_str::<Value>(&json) {
                        Ok(input) => block["input"] = input,
                        // Kept as it started; the API judges it when it comes back.
                        Err(e) => tracing::warn!("server tool input is not JSON ({e}): {json}"),
                    }
                }
                ContentBlock::Other(block)
            }
            Partial::Unknown => return None,
        };
        self.done.insert(index, block);
        self.done.get(&index).map(Completed::Block)
    }

    /// The complete blocks in index order; invalid tool_uses appear with `{}` input.
    /// With `keep_invalid` false (a reply cut by max_tokens) they are dropped, and so is
    /// trailing thinking (see [`acceptable`]).
    pub fn blocks(&self, keep_invalid: bool) -> Vec<ContentBlock> {
        let blocks = self
            .blocks_indexed(keep_invalid)
            .into_values()
            .filter(not_empty_text)
            .collect();
        match keep_invalid {
            true => blocks,
            false => acceptable(blocks),
        }
    }

    /// What history keeps of a reply that did not end properly, without its partial text
    /// (the complete blocks: their tools may have run already).
    pub fn complete_blocks_of_cut_reply(&self) -> Vec<ContentBlock> {
        acceptable(self.blocks(true))
    }

    /// Complete blocks plus partial text after an interruption; a half-received tool_use
    /// or thinking block is dropped. `marker` is appended to the partial text.
    pub fn blocks_with_partial(&self, marker: Option<&str>) -> Vec<ContentBlock> {
        let mut all = self.blocks_indexed(true);
        for (index, p) in &self.partial {
            match p {
                Partial::Text { text, citations } if !text.is_empty() => {
                    let text = match marker {
                        Some(m) => format!("{text}{m}"),
                        None => text.clone(),
                    };
                    let citations = citations.clone();
                    all.insert(*index, ContentBlock::Text { text, citations });
                }
                // A thinking block without its signature would be rejected by the API.
                _ => {}
            }
        }
        acceptable(all.into_values().filter(not_empty_text).collect())
    }

    fn blocks_indexed(&self, keep_invalid: bool) -> BTreeMap<usize, ContentBlock> {
        let mut all: BTreeMap<usize, ContentBlock> = self.done.clone();
        if keep_invalid {
            for (index, inv) in &self.invalid {
                all.insert(
                    *index,
                    ContentBlock::ToolUse {
                        id: inv.id.clone(),
                        name: inv.name.clone(),
                        input: Value::Object(Default::default()),
                    },
                );
            }
        }
        all
    }
}

/// A cut reply as the API accepts it: it rejects an assistant message whose final block
/// is thinking or redacted_thinking ("The final block in an assistant message cannot be
/// `thinking`"), so trailing ones go; a reply of nothing but thinking is not kept at all.
fn acceptable(mut blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
    while matches!(
        blocks.last(),
        Some(ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. })
    ) {
        blocks.pop();
    }
    blocks
}

/// The API rejects empty text blocks.
fn not_empty_text(b: &ContentBlock) -> bool {
    !matches!(b, ContentBlock::Text { text, .. } if text.is_empty())
}

#[cfg(test)]
mod tests;
