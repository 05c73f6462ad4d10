//! The request side shared by every provider: a borrowed view of one request and the body it
//! was encoded into.
//!
//! A request is serialized exactly once, straight from the typed history (no `Value` tree),
//! into a [`RequestBody`]; the same bytes go to the wire and, behind an `Arc`, to the front
//! end (the JSON pane parses them only when it shows them). Key order is fixed by the
//! encoders' struct order, so two requests over the same history are byte-identical (prompt
//! caching relies on that).

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::Value;

use super::{ModelRequest, Reasoning, SystemPrompt, ToolSpec};
use crate::message::Message;

/// The history of one request, borrowed: the agent's shared messages, or a plain slice (tests,
/// one-off callers).
#[derive(Clone, Copy, Debug)]
pub enum Messages<'a> {
    Shared(&'a [Arc<Message>]),
    Plain(&'a [Message]),
}

impl<'a> Messages<'a> {
    pub fn len(&self) -> usize {
        match self {
            Messages::Shared(m) => m.len(),
            Messages::Plain(m) => m.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<&'a Message> {
        match *self {
            Messages::Shared(m) => m.get(i).map(|m| &**m),
            Messages::Plain(m) => m.get(i),
        }
    }

    pub fn last(&self) -> Option<&'a Message> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    pub fn iter(&self) -> impl Iterator<Item = &'a Message> + 'a {
        let (shared, plain): (&'a [Arc<Message>], &'a [Message]) = match *self {
            Messages::Shared(m) => (m, &[]),
            Messages::Plain(m) => (&[], m),
        };
        shared.iter().map(|m| &**m).chain(plain.iter())
    }

    /// An owned copy (in-process providers that keep what they were sent).
    pub fn to_vec(&self) -> Vec<Message> {
        self.iter().cloned().collect()
    }
}

/// Serializes as the JSON array of messages, each exactly as [`Message`] serializes.
impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for m in self.iter() {
            seq.serialize_element(m)?;
        }
        seq.end()
    }
}

/// Everything one request carries, borrowed from the agent (nothing is copied to build it).
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    pub model: &'a str,
    pub system: &'a SystemPrompt,
    pub messages: Messages<'a>,
    pub tools: &'a [ToolSpec],
    pub max_tokens: u32,
    /// Ask for at most one tool_use per reply.
    pub disable_parallel_tool_use: bool,
    pub reasoning: Reasoning,
    /// Anthropic's server-side web_search tool with its `max_uses` (other providers send
    /// nothing: the config refused it for them).
    pub web_search: Option<u32>,
}

impl ModelRequest {
    /// This request as a borrowed [`Request`].
    pub fn as_request(&self) -> Request<'_> {
        Request {
            model: &self.model,
            system: &self.system,
            messages: Messages::Plain(&self.messages),
            tools: &self.tools,
            max_tokens: self.max_tokens,
            disable_parallel_tool_use: self.disable_parallel_tool_use,
            reasoning: self.reasoning,
            web_search: None,
        }
    }
}

/// One encoded request body: the bytes sent (never with credentials), shared by the wire and
/// the front end, and parsed into a `Value` only if someone looks at it.
pub struct RequestBody {
    bytes: Bytes,
    parsed: OnceLock<Value>,
}

impl RequestBody {
    pub fn new(bytes: impl Into<Bytes>) -> Self {
        RequestBody {
            bytes: bytes.into(),
            parsed: OnceLock::new(),
        }
    }

    /// Serializes `value` (any serde type) into a body. A failure (a map with non-string keys,
    /// which no encoder builds) gives an empty body rather than a panic.
    pub fn encode<T: Serialize + ?Sized>(value: &T, size_hint: usize) -> Self {
        let mut out = Vec::with_capacity(size_hint);
        if let Err(e) = serde_json::to_writer(&mut out, value) {
            tracing::error!("request body could not be serialized: {e}");
            out.clear();
        }
        RequestBody::new(out)
    }

    /// The bytes, cheap to clone (reference counted) for the HTTP body.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The body as JSON, parsed on first use (Null if it is not JSON).
    pub fn json(&self) -> &Value {
        self.parsed
            .get_or_init(|| serde_json::from_slice(&self.bytes).unwrap_or(Value::Null))
    }
}

impl From<Value> for RequestBody {
    fn from(value: Value) -> Self {
        let body = RequestBody::new(value.to_string().into_bytes());
        let _ = body.parsed.set(value);
        body
    }
}

impl std::fmt::Debug for RequestBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RequestBody({} bytes)", self.bytes.len())
    }
}

impl PartialEq for RequestBody {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

/// Capacity for the next body: the last one's size plus room to grow, so a long session's
/// buffer is allocated once per request and never regrown. Rounded up to a size class (eight
/// per power of two) so consecutive requests ask for the same size: glibc serves a large
/// block from the heap once a block of that size was freed, but a block just a little larger
/// than the last freed one is mapped afresh, and a 1 MB body then cost 256 page faults and an
/// `munmap` per request.
pub fn size_hint(last: usize) -> usize {
    let want = last + last / 8 + 4096;
    let step = (want.next_power_of_two() / 8).max(4096);
    want.div_ceil(step) * step
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ContentBlock;
    use serde_json::json;

    #[test]
    fn shared_and_plain_histories_serialize_alike() {
        let plain = vec![
            Message::user_text("hi"),
            Message::assistant(vec![ContentBlock::text("ok")]),
        ];
        let shared: Vec<Arc<Message>> = plain.iter().cloned().map(Arc::new).collect();
        let a = serde_json::to_string(&Messages::Plain(&plain)).expect("plain");
        let b = serde_json::to_string(&Messages::Shared(&shared)).expect("shared");
        assert_eq!(a, b);
        assert_eq!(a, serde_json::to_string(&plain).expect("vec"));
        assert_eq!(Messages::Shared(&shared).len(), 2);
    }

    #[test]
    fn size_hints_fall_in_few_classes() {
        for last in [0, 10, 5_000, 100_000, 920_000, 5_000_000] {
            let hint = size_hint(last);
            assert!(hint >= last + last / 8 + 4096, "{last}: {hint}");
            assert!(
                hint <= (last + last / 8 + 4096) * 9 / 8 + 4096,
                "{last}: {hint}"
            );
        }
        // A long session's body grows by a few hundred bytes a turn: the size asked for
        // stays the same over hundreds of turns.
        let classes: std::collections::BTreeSet<usize> = (0..1_000)
            .map(|turn| size_hint(900_000 + turn * 460))
            .collect();
        assert!(classes.len() <= 3, "{classes:?}");
    }

    #[test]
    fn body_parses_lazily_and_compares_by_bytes() {
        let body = RequestBody::encode(&json!({"a": [1, 2]}), 0);
        assert_eq!(body.bytes().as_ref(), br#"{"a":[1,2]}"#);
        assert_eq!(body.json()["a"][1], 2);
        assert_eq!(body, RequestBody::from(json!({"a": [1, 2]})));
        assert_eq!(RequestBody::new(b"not json".to_vec()).json(), &Value::Null);
    }
}
