//! The canonical conversation: the Anthropic MessageParam shape.
//!
//! Every provider converts to and from this shape at its boundary; the loop, the executor,
//! the TUI and transcripts only ever see these types.

pub mod image;
pub mod markers;
pub mod server;
mod validate;
mod wire;

pub use image::ImageSource;
pub use validate::{HistoryCheck, HistoryError, check_ready, validate_history};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One block of a message. Its JSON is the API's (`wire.rs`).
#[derive(Clone, Debug, PartialEq)]
pub enum ContentBlock {
    Text {
        text: String,
        /// Where the text comes from (web search results, documents), exactly as the API
        /// sent them: kept and sent back unchanged.
        citations: Vec<Value>,
    },
    Thinking {
        thinking: String,
        /// Empty for reasoning from OpenAI-compatible servers (not serialized then).
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        /// The result's text.
        content: String,
        is_error: bool,
        /// Images the tool returned (read_file on a picture); on the wire they follow the
        /// text in one `content` array.
        images: Vec<ImageSource>,
        /// Deferred tools this result loads (`tool_search` on Anthropic, issue 39): on the
        /// wire the content is one `tool_reference` block per name instead of the text (the
        /// API puts each tool's definition there); other providers get the text.
        references: Vec<String>,
    },
    /// An image the user attached to a prompt.
    Image {
        source: ImageSource,
    },
    /// A block type tooloop does not model (server tools and their results —
    /// `server_tool_use`, `web_search_tool_result`, `web_fetch_tool_result`,
    /// `code_execution_tool_result`, … — and whatever the API adds later): kept verbatim,
    /// in order, and sent back unchanged, as the API requires.
    Other(Value),
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            citations: Vec::new(),
        }
    }

    /// The `type` of a block tooloop keeps verbatim ("" when it has none).
    pub fn other_type(&self) -> Option<&str> {
        match self {
            ContentBlock::Other(v) => Some(v.get("type").and_then(Value::as_str).unwrap_or("")),
            _ => None,
        }
    }

    pub fn tool_result(id: impl Into<String>, content: impl Into<String>, is_error: bool) -> Self {
        ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: content.into(),
            is_error,
            images: Vec::new(),
            references: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

/// The API accepts `content` as a plain string too; we always write the array form.
impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Content {
            Text(String),
            Blocks(Vec<ContentBlock>),
        }
        #[derive(Deserialize)]
        struct Raw {
            role: Role,
            content: Content,
        }
        let raw = Raw::deserialize(d)?;
        let content = match raw.content {
            Content::Text(text) => vec![ContentBlock::text(text)],
            Content::Blocks(blocks) => blocks,
        };
        Ok(Message {
            role: raw.role,
            content,
        })
    }
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: vec![ContentBlock::text(text)],
        }
    }

    pub fn assistant(content: Vec<ContentBlock>) -> Self {
        Message {
            role: Role::Assistant,
            content,
        }
    }

    pub fn user(content: Vec<ContentBlock>) -> Self {
        Message {
            role: Role::User,
            content,
        }
    }

    /// The tool_use blocks of this message, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }

    /// All text blocks joined, without thinking or tool blocks.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let ContentBlock::Text { text, .. } = block {
                out.push_str(text);
            }
        }
        out
    }
}

/// The shared form of a message: immutable once appended, so the history, the front end and
/// the transcript all hold the same allocation.
impl PartialEq<std::sync::Arc<Message>> for Message {
    fn eq(&self, other: &std::sync::Arc<Message>) -> bool {
        self == &**other
    }
}

impl PartialEq<Message> for std::sync::Arc<Message> {
    fn eq(&self, other: &Message) -> bool {
        &**self == other
    }
}

/// The agent's history: shared messages, immutable once appended. Requests borrow it, front
/// ends and transcripts get the same `Arc`s; indexing and slice methods work through `Deref`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History(Vec<std::sync::Arc<Message>>);

impl History {
    pub fn push(&mut self, message: std::sync::Arc<Message>) {
        self.0.push(message);
    }

    pub fn last_mut(&mut self) -> Option<&mut std::sync::Arc<Message>> {
        self.0.last_mut()
    }

    /// Takes the last message out (a prompt the model never answered, before the next one
    /// takes its place).
    pub fn pop(&mut self) -> Option<std::sync::Arc<Message>> {
        self.0.pop()
    }

    /// The shared messages, for a front end or a request.
    /// The messages to rewrite in place (compaction): change one with `Arc::make_mut`, which
    /// copies it only if a request or the front end still holds it.
    pub fn shared_mut(&mut self) -> &mut [std::sync::Arc<Message>] {
        &mut self.0
    }

    /// An owned copy of every message (rare events only: compaction).
    pub fn to_messages(&self) -> Vec<Message> {
        self.0.iter().map(|m| Message::clone(m)).collect()
    }

    pub fn shared(&self) -> &[std::sync::Arc<Message>] {
        &self.0
    }
}

impl std::ops::Deref for History {
    type Target = [std::sync::Arc<Message>];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl From<Vec<Message>> for History {
    fn from(messages: Vec<Message>) -> Self {
        History(messages.into_iter().map(std::sync::Arc::new).collect())
    }
}

impl Serialize for History {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|m| &**m))
    }
}

impl PartialEq<History> for Vec<Message> {
    fn eq(&self, other: &History) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == &**b)
    }
}

impl PartialEq<History> for Vec<std::sync::Arc<Message>> {
    fn eq(&self, other: &History) -> bool {
        self.as_slice() == other.shared()
    }
}

/// A tool as announced to the model: part of every request, owned by neither side (the
/// tools describe themselves with it, the providers put it on the wire).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// Anthropic's deferred loading (issue 39): the definition stays in `tools` (so the
    /// cached prefix never changes) but is out of the model's context until a `tool_reference`
    /// in a tool result loads it. Never set for other providers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_that_loads_tools_is_tool_reference_blocks_and_reads_back() {
        let block = ContentBlock::ToolResult {
            tool_use_id: "toolu_1".into(),
            content: "Found 2 tools".into(),
            is_error: false,
            images: Vec::new(),
            references: vec!["mcp__a__x".into(), "mcp__a__y".into()],
        };
        let v = serde_json::to_value(&block).unwrap();
        assert_eq!(
            v["content"],
            json!([
                {"type": "tool_reference", "tool_name": "mcp__a__x"},
                {"type": "tool_reference", "tool_name": "mcp__a__y"}
            ])
        );
        let back: ContentBlock = serde_json::from_value(v.clone()).unwrap();
        let ContentBlock::ToolResult { references, .. } = &back else {
            panic!("{back:?}");
        };
        assert_eq!(references, &["mcp__a__x", "mcp__a__y"]);
        // Byte-stable: a resumed session sends what it sent before.
        assert_eq!(serde_json::to_value(&back).unwrap(), v);
        let spec = ToolSpec {
            name: "t".into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
            defer_loading: false,
        };
        assert!(
            serde_json::to_value(&spec)
                .unwrap()
                .get("defer_loading")
                .is_none()
        );
    }

    #[test]
    fn serde_matches_the_api_shape() {
        let m = Message::user(vec![ContentBlock::tool_result("t1", "boom", true)]);
        let v = serde_json::to_value(&m).expect("serialize");
        assert_eq!(
            v,
            json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"boom","is_error":true}]})
        );
        let ok = ContentBlock::tool_result("t1", "fine", false);
        assert_eq!(
            serde_json::to_value(&ok).expect("serialize"),
            json!({"type":"tool_result","tool_use_id":"t1","content":"fine"})
        );
        let parsed: Message =
            serde_json::from_value(json!({"role":"user","content":"plain"})).expect("parse");
        assert_eq!(parsed, Message::user_text("plain"));
        let parsed: ContentBlock = serde_json::from_value(json!({
            "type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"}]
        }))
        .expect("parse");
        assert_eq!(parsed, ContentBlock::tool_result("t", "a", false));
    }
}
