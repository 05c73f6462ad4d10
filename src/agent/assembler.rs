//! Normalized stream events → the blocks of one assistant message.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::message::ContentBlock;
use crate::provider::{BlockKind, StreamEvent, Usage};

#[derive(Debug)]
enum Partial {
    Text(String),
    Thinking(String),
    ToolUse,
    Other,
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
            StreamEvent::BlockStart { index, kind, .. } => {
                let p = match kind {
                    BlockKind::Text => Partial::Text(String::new()),
                    BlockKind::Thinking => Partial::Thinking(String::new()),
                    BlockKind::ToolUse => Partial::ToolUse,
                    BlockKind::Other => Partial::Other,
                };
                self.partial.insert(index, p);
            }
            StreamEvent::TextDelta { index, text } => {
                match self
                    .partial
                    .entry(index)
                    .or_insert(Partial::Text(String::new()))
                {
                    Partial::Text(buf) => buf.push_str(&text),
                    _ => tracing::warn!("text delta for a non-text block {index}"),
                }
            }
            StreamEvent::ThinkingDelta { index, thinking } => {
                if let Partial::Thinking(buf) = self
                    .partial
                    .entry(index)
                    .or_insert(Partial::Thinking(String::new()))
                {
                    buf.push_str(&thinking);
                }
            }
            StreamEvent::ToolInputDelta { .. } | StreamEvent::Raw { .. } => {}
            StreamEvent::BlockComplete { index, block } => {
                self.partial.remove(&index);
                self.done.insert(index, block);
                return self.done.get(&index).map(Completed::Block);
            }
            StreamEvent::ToolUseInvalid {
                index,
                id,
                name,
                raw_input,
                error,
            } => {
                self.partial.remove(&index);
                let shown = crate::text::ellipsize(&raw_input, 200);
                self.invalid.push((
                    index,
                    InvalidToolUse {
                        id,
                        name,
                        error: format!(
                            "Error: the input of this call is not valid JSON ({error}). \
                             Input received: {shown}"
                        ),
                    },
                ));
                return self.invalid.last().map(|(_, inv)| Completed::Invalid(inv));
            }
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
            }
            StreamEvent::MessageStop => self.saw_stop = true,
        }
        None
    }

    /// The complete blocks in index order; invalid tool_uses appear with `{}` input.
    /// With `keep_invalid` false (a reply cut by max_tokens) they are dropped.
    pub fn blocks(&self, keep_invalid: bool) -> Vec<ContentBlock> {
        self.blocks_indexed(keep_invalid)
            .into_values()
            .filter(not_empty_text)
            .collect()
    }

    /// Complete blocks plus partial text (and thinking) after an interruption; a
    /// half-received tool_use is dropped. `marker` is appended to the partial text.
    pub fn blocks_with_partial(&self, marker: Option<&str>) -> Vec<ContentBlock> {
        let mut all = self.blocks_indexed(true);
        for (index, p) in &self.partial {
            match p {
                Partial::Text(text) if !text.is_empty() => {
                    let text = match marker {
                        Some(m) => format!("{text}{m}"),
                        None => text.clone(),
                    };
                    all.insert(*index, ContentBlock::Text { text });
                }
                // A thinking block without its signature would be rejected by the API.
                _ => {}
            }
        }
        all.into_values().filter(not_empty_text).collect()
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

/// The API rejects empty text blocks.
fn not_empty_text(b: &ContentBlock) -> bool {
    !matches!(b, ContentBlock::Text { text } if text.is_empty())
}
