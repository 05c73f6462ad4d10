//! Prompt-caching breakpoints for the Anthropic Messages API.
//!
//! The API caches the request prefix (tools, then system, then messages, in that order) up
//! to each block marked `cache_control`; a later request whose prefix matches byte for byte
//! reads it back at a tenth of the input price. The API also looks back about 20 blocks from
//! each breakpoint for an earlier cached prefix, so marking the newest message lets the next
//! request (two messages longer) read what this one wrote.
//!
//! Placement (at most [`MAX_BREAKPOINTS`]):
//! 1. the stable prefix: the system prompt (which covers the tools before it), or the last
//!    tool when there is no system prompt;
//! 2. the last block of the newest message;
//! 3. the last block of the message before it (so a retry or an aborted turn, whose newest
//!    message differs, still reads the previous prefix).
//!
//! Never on an empty text block or a thinking block (the API refuses both).

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::{Value, json};

use crate::message::{ContentBlock, Message, Role};
use crate::provider::request::{Messages, Request};
use crate::provider::{SystemPrompt, ToolSpec};

/// The API's limit on `cache_control` blocks per request.
pub const MAX_BREAKPOINTS: usize = 4;

fn marker() -> Value {
    json!({"type": "ephemeral"})
}

/// Where one request's breakpoints go, decided once on the typed request; the encoder writes
/// them as it serializes (no `Value` tree for the body).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Breakpoints {
    pub system: bool,
    pub last_tool: bool,
    /// (message index, block index), newest message first.
    pub messages: [Option<(usize, usize)>; 2],
}

impl Breakpoints {
    pub fn place(req: &Request<'_>, on: bool) -> Breakpoints {
        let mut marks = Breakpoints::default();
        if !on {
            return marks;
        }
        let mut placed = 0;
        if !req.system.is_empty() {
            marks.system = true;
            placed += 1;
        } else if !req.tools.is_empty() {
            marks.last_tool = true;
            placed += 1;
        }
        let n = req.messages.len();
        let mut slot = 0;
        for i in (0..n).rev().take(2) {
            if placed >= MAX_BREAKPOINTS {
                break;
            }
            if let Some(b) = req.messages.get(i).and_then(last_cacheable_block) {
                marks.messages[slot] = Some((i, b));
                slot += 1;
                placed += 1;
            }
        }
        marks
    }

    fn block_of(&self, message: usize) -> Option<usize> {
        self.messages
            .iter()
            .flatten()
            .find(|(i, _)| *i == message)
            .map(|(_, b)| *b)
    }
}

fn last_cacheable_block(m: &Message) -> Option<usize> {
    m.content.iter().rposition(|b| match b {
        ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => false,
        ContentBlock::Text { text, .. } => !text.is_empty(),
        _ => true,
    })
}

#[derive(Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };

/// `system`: a plain string for a one-part prompt, else one text block per part (the JSON
/// pane shows them apart); with the breakpoint, blocks, the last one carrying it (the parts
/// are stable for the session, so one mark after them caches them all).
pub struct System<'a> {
    pub prompt: &'a SystemPrompt,
    pub cached: bool,
}

impl System<'_> {
    pub fn is_empty(&self) -> bool {
        self.prompt.is_empty()
    }
}

impl Serialize for System<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let parts = self.prompt.parts();
        if !self.cached && parts.len() == 1 {
            return s.serialize_str(&parts[0].text);
        }
        #[derive(Serialize)]
        struct Block<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            text: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            cache_control: Option<CacheControl>,
        }
        let mut seq = s.serialize_seq(Some(parts.len()))?;
        for (i, part) in parts.iter().enumerate() {
            seq.serialize_element(&Block {
                kind: "text",
                text: &part.text,
                cache_control: (self.cached && i + 1 == parts.len()).then_some(EPHEMERAL),
            })?;
        }
        seq.end()
    }
}

/// `tools`, the last one carrying the breakpoint when there is no system prompt.
pub struct CachedTools<'a> {
    pub tools: &'a [ToolSpec],
    pub mark_last: bool,
    /// The server-side web_search tool with its `max_uses`, after the client tools.
    pub web_search: Option<u32>,
}

impl CachedTools<'_> {
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.web_search.is_none()
    }
}

/// Anthropic's server-side search tool as the API defines it (the API runs the searches).
#[derive(Serialize)]
struct WebSearchTool {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'static str,
    max_uses: u32,
}

impl Serialize for CachedTools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Marked<'a> {
            name: &'a str,
            description: &'a str,
            input_schema: &'a Value,
            cache_control: CacheControl,
        }
        // The last tool the model always sees: a deferred definition is not in the prefix
        // the API caches until a tool_reference loads it.
        let marked = self
            .tools
            .iter()
            .rposition(|t| !t.defer_loading)
            .filter(|_| self.mark_last);
        let mut seq = s.serialize_seq(None)?;
        for (i, t) in self.tools.iter().enumerate() {
            if marked == Some(i) {
                seq.serialize_element(&Marked {
                    name: &t.name,
                    description: &t.description,
                    input_schema: &t.input_schema,
                    cache_control: EPHEMERAL,
                })?;
            } else {
                seq.serialize_element(t)?;
            }
        }
        if let Some(max_uses) = self.web_search {
            seq.serialize_element(&WebSearchTool {
                kind: "web_search_20250305",
                name: "web_search",
                max_uses,
            })?;
        }
        seq.end()
    }
}

/// `messages`, with the marked blocks carrying `cache_control`. Only the (at most two) marked
/// blocks go through a `Value`; everything else serializes straight from the history.
pub struct CachedMessages<'a> {
    pub messages: Messages<'a>,
    pub marked: [Option<(usize, usize)>; 2],
}

impl Serialize for CachedMessages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let marks = Breakpoints {
            messages: self.marked,
            ..Breakpoints::default()
        };
        let mut seq = s.serialize_seq(Some(self.messages.len()))?;
        for (i, m) in self.messages.iter().enumerate() {
            match marks.block_of(i) {
                None => seq.serialize_element(m)?,
                Some(b) => seq.serialize_element(&MarkedMessage {
                    role: &m.role,
                    content: MarkedContent {
                        blocks: &m.content,
                        mark: b,
                    },
                })?,
            }
        }
        seq.end()
    }
}

/// The block of message `i` that `marked` (as in [`CachedMessages`]) puts a breakpoint on.
pub fn marked_block(marked: &[Option<(usize, usize)>; 2], i: usize) -> Option<usize> {
    Breakpoints {
        messages: *marked,
        ..Breakpoints::default()
    }
    .block_of(i)
}

/// Message `m` with a breakpoint on `block`, exactly as [`CachedMessages`] writes it.
pub fn write_marked(m: &Message, block: usize, out: &mut Vec<u8>) {
    let marked = MarkedMessage {
        role: &m.role,
        content: MarkedContent {
            blocks: &m.content,
            mark: block,
        },
    };
    if let Err(e) = serde_json::to_writer(&mut *out, &marked) {
        tracing::error!("message could not be serialized: {e}");
        out.extend_from_slice(b"null");
    }
}

/// A message exactly as [`Message`] serializes, one block marked.
#[derive(Serialize)]
struct MarkedMessage<'a> {
    role: &'a Role,
    content: MarkedContent<'a>,
}

struct MarkedContent<'a> {
    blocks: &'a [ContentBlock],
    mark: usize,
}

impl Serialize for MarkedContent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.blocks.len()))?;
        for (j, b) in self.blocks.iter().enumerate() {
            if j == self.mark {
                let mut v = serde_json::to_value(b).map_err(serde::ser::Error::custom)?;
                if let Value::Object(map) = &mut v {
                    map.insert("cache_control".into(), marker());
                }
                seq.serialize_element(&v)?;
            } else {
                seq.serialize_element(b)?;
            }
        }
        seq.end()
    }
}

/// Adds breakpoints to a request body built as a `Value` (tests compare the typed encoder
/// against it).
pub fn add_breakpoints(body: &mut Value) {
    let Value::Object(map) = body else {
        return;
    };
    let mut placed = 0;
    match map.get_mut("system") {
        Some(Value::String(text)) if !text.is_empty() => {
            let text = std::mem::take(text);
            map.insert(
                "system".into(),
                json!([{"type": "text", "text": text, "cache_control": marker()}]),
            );
            placed += 1;
        }
        _ => {
            if let Some(Value::Object(last)) = map
                .get_mut("tools")
                .and_then(Value::as_array_mut)
                .and_then(|t| t.last_mut())
            {
                last.insert("cache_control".into(), marker());
                placed += 1;
            }
        }
    }
    let Some(messages) = map.get_mut("messages").and_then(Value::as_array_mut) else {
        return;
    };
    for message in messages.iter_mut().rev().take(2) {
        if placed >= MAX_BREAKPOINTS {
            break;
        }
        if mark_last_cacheable(message) {
            placed += 1;
        }
    }
}

/// Marks the last block of `message` that may carry `cache_control`; false if none may.
fn mark_last_cacheable(message: &mut Value) -> bool {
    let Some(content) = message.get_mut("content").and_then(Value::as_array_mut) else {
        return false;
    };
    for block in content.iter_mut().rev() {
        if cacheable(block)
            && let Value::Object(b) = block
        {
            b.insert("cache_control".into(), marker());
            return true;
        }
    }
    false
}

fn cacheable(block: &Value) -> bool {
    match block["type"].as_str() {
        Some("thinking" | "redacted_thinking") | None => false,
        Some("text") => block["text"].as_str().is_some_and(|t| !t.is_empty()),
        Some(_) => true,
    }
}

/// How many blocks of `body` carry `cache_control`.
pub fn count_breakpoints(body: &Value) -> usize {
    match body {
        Value::Object(map) => {
            usize::from(map.contains_key("cache_control"))
                + map.values().map(count_breakpoints).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_breakpoints).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(messages: Value, system: &str, tools: bool) -> Value {
        let mut b = json!({"model": "m", "max_tokens": 10, "messages": messages, "stream": true});
        if !system.is_empty() {
            b["system"] = json!(system);
        }
        if tools {
            b["tools"] =
                json!([{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": {}}]);
        }
        b
    }

    #[test]
    fn system_and_the_two_newest_messages() {
        let mut b = body(
            json!([
                {"role": "user", "content": [{"type": "text", "text": "one"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "two"}]},
                {"role": "user", "content": [{"type": "text", "text": "three"}]},
            ]),
            "sys",
            true,
        );
        add_breakpoints(&mut b);
        assert_eq!(count_breakpoints(&b), 3);
        assert_eq!(b["system"][0]["text"], "sys");
        assert!(b["system"][0]["cache_control"].is_object());
        assert!(b["tools"][1].get("cache_control").is_none());
        assert!(
            b["messages"][0]["content"][0]
                .get("cache_control")
                .is_none()
        );
        assert!(b["messages"][1]["content"][0]["cache_control"].is_object());
        assert!(b["messages"][2]["content"][0]["cache_control"].is_object());
    }

    #[test]
    fn last_tool_without_a_system_prompt() {
        let mut b = body(
            json!([{"role": "user", "content": [{"type": "text", "text": "x"}]}]),
            "",
            true,
        );
        add_breakpoints(&mut b);
        assert!(b["tools"][1]["cache_control"].is_object());
        assert_eq!(count_breakpoints(&b), 2);
    }

    #[test]
    fn never_on_thinking_or_empty_text() {
        let mut b = body(
            json!([
                {"role": "user", "content": [{"type": "text", "text": "q"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "a"},
                    {"type": "thinking", "thinking": "t", "signature": "s"},
                    {"type": "text", "text": ""},
                ]},
            ]),
            "sys",
            false,
        );
        add_breakpoints(&mut b);
        let blocks = &b["messages"][1]["content"];
        assert!(blocks[0]["cache_control"].is_object());
        assert!(blocks[1].get("cache_control").is_none());
        assert!(blocks[2].get("cache_control").is_none());
        assert!(count_breakpoints(&b) <= MAX_BREAKPOINTS);
    }

    #[test]
    fn the_same_history_gives_the_same_bytes() {
        let msgs = json!([{"role": "user", "content": [{"type": "text", "text": "x"}]}]);
        let mut a = body(msgs.clone(), "sys", true);
        let mut b = body(msgs, "sys", true);
        add_breakpoints(&mut a);
        add_breakpoints(&mut b);
        assert_eq!(a.to_string(), b.to_string());
    }
}
