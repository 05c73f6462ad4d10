//! The canonical conversation: the Anthropic MessageParam shape.
//!
//! Every provider converts to and from this shape at its boundary; the loop, the executor,
//! the TUI and transcripts only ever see these types.

pub mod image;
pub mod server;
mod wire;

pub use image::ImageSource;

use std::borrow::Borrow;
use std::collections::HashSet;

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

/// A broken invariant, with the index of the message where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    #[error("messages[0] must be a user message")]
    FirstNotUser,
    #[error("messages[{0}]: roles must alternate (two {1:?} messages in a row)")]
    NotAlternating(usize, Role),
    #[error("messages[{0}]: content is empty")]
    EmptyContent(usize),
    #[error("messages[{0}]: tool_use id {1:?} is used more than once")]
    DuplicateToolUseId(usize, String),
    #[error("messages[{0}]: tool_use {1:?} has no tool_result in the next message")]
    UnansweredToolUse(usize, String),
    #[error(
        "messages[{0}]: tool_result for {1:?} has no matching tool_use in the previous message"
    )]
    OrphanToolResult(usize, String),
    #[error("messages[{0}]: tool_use {1:?} is answered more than once")]
    DuplicateToolResult(usize, String),
    #[error(
        "messages[{0}]: the tool_result for {1:?} follows other content; tool_result blocks come first"
    )]
    ResultAfterOtherContent(usize, String),
    #[error("messages[{0}]: a tool_result block must not appear in an assistant message")]
    ResultInAssistant(usize),
    #[error("messages[{0}]: a tool_use block must not appear in a user message")]
    ToolUseInUser(usize),
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

/// Checks DESIGN.md §4 (1–3): alternation starting with the user, every tool_use answered
/// exactly once in the very next message, unique ids, no orphan results.
///
/// A trailing assistant message whose tool_uses are not yet answered is an error too: the
/// history as sent to the API must never end that way.
///
/// This walks the whole history; the loop checks each new message with [`HistoryCheck`]
/// instead, and this stays for tests, loaded sessions and the scripted provider.
pub fn validate_history<M: Borrow<Message>>(messages: &[M]) -> Result<(), HistoryError> {
    let mut check = HistoryCheck::default();
    for i in 0..messages.len() {
        check.message(messages, i)?;
    }
    check_ready(messages)
}

/// The history may be sent as it is: it does not end with unanswered tool_uses.
pub fn check_ready<M: Borrow<Message>>(messages: &[M]) -> Result<(), HistoryError> {
    if let Some(last) = messages.last().map(Borrow::borrow)
        && last.role == Role::Assistant
        && let Some((id, _, _)) = last.tool_uses().next()
    {
        return Err(HistoryError::UnansweredToolUse(
            messages.len() - 1,
            id.to_string(),
        ));
    }
    Ok(())
}

/// Incremental validation: checks one message against the one before it, so a growing
/// history costs the size of its newest message, not its length. Remembers the tool_use ids
/// seen so far (they must be unique across the whole history).
#[derive(Clone, Debug, Default)]
pub struct HistoryCheck {
    ids: HashSet<String>,
}

impl HistoryCheck {
    /// Whether a tool_use with this id is already in the history.
    pub fn knows(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Checks the blocks from `from` on of assistant message `msg` (at `i`), which
    /// continue a paused reply: the blocks before them were checked already.
    pub fn continued(&mut self, msg: &Message, from: usize, i: usize) -> Result<(), HistoryError> {
        for block in msg.content.iter().skip(from) {
            match block {
                ContentBlock::ToolResult { .. } => return Err(HistoryError::ResultInAssistant(i)),
                ContentBlock::ToolUse { id, .. } if !self.ids.insert(id.clone()) => {
                    return Err(HistoryError::DuplicateToolUseId(i, id.clone()));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks `messages[i]` (just appended, or a user message just extended) against
    /// `messages[i - 1]`.
    pub fn message<M: Borrow<Message>>(
        &mut self,
        messages: &[M],
        i: usize,
    ) -> Result<(), HistoryError> {
        let Some(msg) = messages.get(i).map(Borrow::borrow) else {
            return Ok(());
        };
        let prev = i
            .checked_sub(1)
            .and_then(|p| messages.get(p))
            .map(Borrow::borrow);
        if i == 0 && msg.role != Role::User {
            return Err(HistoryError::FirstNotUser);
        }
        if prev.is_some_and(|p| p.role == msg.role) {
            return Err(HistoryError::NotAlternating(i, msg.role));
        }
        if msg.content.is_empty() {
            return Err(HistoryError::EmptyContent(i));
        }
        match msg.role {
            Role::Assistant => {
                if msg
                    .content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
                {
                    return Err(HistoryError::ResultInAssistant(i));
                }
                for (id, _, _) in msg.tool_uses() {
                    if !self.ids.insert(id.to_string()) {
                        return Err(HistoryError::DuplicateToolUseId(i, id.to_string()));
                    }
                }
                Ok(())
            }
            Role::User => check_answers(prev, msg, i),
        }
    }
}

/// A user message answers every tool_use of the message before it exactly once, and nothing
/// else.
fn check_answers(prev: Option<&Message>, msg: &Message, i: usize) -> Result<(), HistoryError> {
    if msg
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::ToolUse { .. }))
    {
        return Err(HistoryError::ToolUseInUser(i));
    }
    let asked: Vec<&str> = prev
        .map(|p| p.tool_uses().map(|(id, _, _)| id).collect())
        .unwrap_or_default();
    let mut answered: HashSet<&str> = HashSet::new();
    // The API takes a result as answering only in the run of tool_result blocks that opens
    // the message; text before it leaves the tool_use unanswered (a 400).
    let mut other_before = false;
    for block in &msg.content {
        let ContentBlock::ToolResult { tool_use_id, .. } = block else {
            other_before = true;
            continue;
        };
        if !asked.contains(&tool_use_id.as_str()) {
            return Err(HistoryError::OrphanToolResult(i, tool_use_id.clone()));
        }
        if !answered.insert(tool_use_id) {
            return Err(HistoryError::DuplicateToolResult(i, tool_use_id.clone()));
        }
        if other_before {
            return Err(HistoryError::ResultAfterOtherContent(
                i,
                tool_use_id.clone(),
            ));
        }
    }
    if let Some(missing) = asked.iter().find(|id| !answered.contains(*id)) {
        return Err(HistoryError::UnansweredToolUse(i - 1, missing.to_string()));
    }
    Ok(())
}

/// A tool as announced to the model: part of every request, owned by neither side (the
/// tools describe themselves with it, the providers put it on the wire).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool_use(id: &str) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: "read_file".into(),
            input: json!({"path": "a"}),
        }
    }

    #[test]
    fn valid_round_trip_passes() {
        let h = vec![
            Message::user_text("hi"),
            Message::assistant(vec![
                ContentBlock::text("ok"),
                tool_use("t1"),
                tool_use("t2"),
            ]),
            Message::user(vec![
                ContentBlock::tool_result("t1", "x", false),
                ContentBlock::tool_result("t2", "y", true),
            ]),
            Message::assistant(vec![ContentBlock::text("done")]),
        ];
        assert_eq!(validate_history(&h), Ok(()));
    }

    /// Text after the results is fine (the interrupt marker, a prompt sent along with them).
    #[test]
    fn text_after_the_results_passes() {
        let h = vec![
            Message::user_text("hi"),
            Message::assistant(vec![tool_use("t1")]),
            Message::user(vec![
                ContentBlock::tool_result("t1", "x", false),
                ContentBlock::text("[interrupted by user]"),
            ]),
        ];
        assert_eq!(validate_history(&h), Ok(()));
    }

    #[test]
    fn each_broken_rule_is_named() {
        let cases: Vec<(Vec<Message>, HistoryError)> = vec![
            (
                vec![Message::assistant(vec![ContentBlock::text("x")])],
                HistoryError::FirstNotUser,
            ),
            (
                vec![Message::user_text("a"), Message::user_text("b")],
                HistoryError::NotAlternating(1, Role::User),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1")]),
                    Message::user_text("b"),
                ],
                HistoryError::UnansweredToolUse(1, "t1".into()),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1")]),
                ],
                HistoryError::UnansweredToolUse(1, "t1".into()),
            ),
            (
                vec![Message::user(vec![ContentBlock::tool_result(
                    "zz", "x", false,
                )])],
                HistoryError::OrphanToolResult(0, "zz".into()),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1")]),
                    Message::user(vec![
                        ContentBlock::tool_result("t1", "x", false),
                        ContentBlock::tool_result("t1", "x", false),
                    ]),
                ],
                HistoryError::DuplicateToolResult(2, "t1".into()),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1")]),
                    Message::user(vec![ContentBlock::tool_result("t1", "x", false)]),
                    Message::assistant(vec![tool_use("t1")]),
                    Message::user(vec![ContentBlock::tool_result("t1", "x", false)]),
                ],
                HistoryError::DuplicateToolUseId(3, "t1".into()),
            ),
            (
                vec![Message::user_text("a"), Message::assistant(vec![])],
                HistoryError::EmptyContent(1),
            ),
            (
                vec![
                    Message::user_text("a"),
                    Message::assistant(vec![tool_use("t1"), tool_use("t2")]),
                    Message::user(vec![
                        ContentBlock::tool_result("t1", "x", false),
                        ContentBlock::text("typed while it ran"),
                        ContentBlock::tool_result("t2", "x", false),
                    ]),
                ],
                HistoryError::ResultAfterOtherContent(2, "t2".into()),
            ),
        ];
        for (history, want) in cases {
            assert_eq!(validate_history(&history), Err(want.clone()));
            // Checked one message at a time, the same break is found.
            let mut check = HistoryCheck::default();
            let found = (0..history.len())
                .try_for_each(|i| check.message(&history, i))
                .and_then(|()| check_ready(&history));
            assert_eq!(found, Err(want));
        }
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
