//! A provider that plays back scripted replies in-process, for tests and benchmarks of the
//! loop and the executor under tokio's paused time (no sockets, exact timings).
//!
//! Like the real API it refuses a request whose history breaks the invariants, with a 400.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::{
    BlockKind, EventStream, Provider, ProviderError, Request, RequestBody, StreamEvent, Usage,
};
use crate::message::{Message, validate_history};

/// One step of a scripted reply: wait `after` (since the previous step), then yield.
pub type Step = (Duration, Result<StreamEvent, ProviderError>);

/// What the provider does for one request.
pub enum Reply {
    /// Fail before the first byte (after `delay`).
    Fail(Duration, ProviderError),
    /// Stream these steps. A stream that should hang forever ends with a huge delay.
    Stream(Vec<Step>),
}

/// Picks the reply for a request from its system prompt and messages (None: take the next
/// scripted one). Concurrent subagents send requests in no fixed order; a responder answers
/// each by what it asks.
pub type Responder = Arc<dyn Fn(&str, &[Message]) -> Option<Reply> + Send + Sync>;

#[derive(Clone, Default)]
pub struct ScriptedProvider {
    responder: Option<Responder>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    requests: Arc<Mutex<Vec<Vec<Message>>>>,
    /// The body each request was opened with (the same bytes, not a copy).
    bodies: Arc<Mutex<Vec<bytes::Bytes>>>,
}

impl ScriptedProvider {
    pub fn new(replies: Vec<Reply>) -> Self {
        ScriptedProvider {
            responder: None,
            replies: Arc::new(Mutex::new(replies.into())),
            requests: Arc::default(),
            bodies: Arc::default(),
        }
    }

    /// Requests `responder` answers skip the queue.
    pub fn with_responder(mut self, responder: Responder) -> Self {
        self.responder = Some(responder);
        self
    }

    pub fn push(&self, reply: Reply) {
        if let Ok(mut r) = self.replies.lock() {
            r.push_back(reply);
        }
    }

    /// The encoded body of every request received, in order.
    pub fn bodies(&self) -> Vec<bytes::Bytes> {
        self.bodies.lock().map(|b| b.clone()).unwrap_or_default()
    }

    /// The history of every request received, in order.
    pub fn requests(&self) -> Vec<Vec<Message>> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    fn encode(&self, req: &Request<'_>) -> RequestBody {
        #[derive(serde::Serialize)]
        struct Body<'a> {
            model: &'a str,
            messages: super::Messages<'a>,
        }
        RequestBody::encode(
            &Body {
                model: req.model,
                messages: req.messages,
            },
            0,
        )
    }

    fn open<'a>(
        &'a self,
        req: &'a Request<'a>,
        body: &'a RequestBody,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        if let Ok(mut b) = self.bodies.lock() {
            b.push(body.bytes().clone());
        }
        // A test provider: keeping a copy of every request is what it is for.
        let messages = req.messages.to_vec();
        let invalid = validate_history(&messages).err();
        let answered = self
            .responder
            .as_ref()
            .and_then(|f| f(req.system.text(), &messages));
        if let Ok(mut r) = self.requests.lock() {
            r.push(messages);
        }
        let reply = answered.or_else(|| self.replies.lock().ok().and_then(|mut r| r.pop_front()));
        Box::pin(async move {
            if let Some(e) = invalid {
                return Err(ProviderError::Http {
                    status: 400,
                    error_type: Some("invalid_request_error".into()),
                    message: e.to_string(),
                    retry_after: None,
                    should_retry: None,
                    body: String::new(),
                });
            }
            match reply {
                None => Err(ProviderError::Http {
                    status: 500,
                    error_type: Some("api_error".into()),
                    message: "the script has no reply left".into(),
                    retry_after: None,
                    should_retry: Some(false),
                    body: String::new(),
                }),
                Some(Reply::Fail(delay, e)) => {
                    tokio::time::sleep(delay).await;
                    Err(e)
                }
                Some(Reply::Stream(steps)) => {
                    // A zero wait must not go through the timer wheel (1 ms resolution).
                    let s = futures::stream::iter(steps).then(|(after, item)| async move {
                        if !after.is_zero() {
                            tokio::time::sleep(after).await;
                        }
                        item
                    });
                    Ok(Box::pin(s) as EventStream)
                }
            }
        })
    }
}

/// Builds a reply step by step with absolute times (ms since the request started).
#[derive(Default)]
pub struct ReplyBuilder {
    steps: Vec<Step>,
    now_ms: u64,
    index: usize,
}

impl ReplyBuilder {
    pub fn new() -> Self {
        let mut b = ReplyBuilder::default();
        b.steps.push((
            Duration::ZERO,
            Ok(StreamEvent::MessageStart {
                model: None,
                usage: Usage {
                    input_tokens: 10,
                    output_tokens: 1,
                    ..Default::default()
                },
            }),
        ));
        b
    }

    fn at(&mut self, ms: u64, event: Result<StreamEvent, ProviderError>) {
        let after = ms.saturating_sub(self.now_ms);
        self.now_ms = self.now_ms.max(ms);
        self.steps.push((Duration::from_millis(after), event));
    }

    /// Starts block `index` at `ms` and returns its index.
    fn begin(&mut self, ms: u64, kind: BlockKind, tool: Option<(&str, &str)>) -> usize {
        let index = self.index;
        self.index += 1;
        self.at(
            ms,
            Ok(StreamEvent::BlockStart {
                index,
                kind,
                id: tool.map(|(id, _)| id.to_string()),
                name: tool.map(|(_, name)| name.to_string()),
            }),
        );
        index
    }

    /// A whole text block at `ms`.
    pub fn text(self, ms: u64, text: &str) -> Self {
        let mut b = self.partial_text(ms, text);
        let index = b.index - 1;
        b.at(ms, Ok(StreamEvent::BlockStop { index }));
        b
    }

    /// Text that starts streaming at `ms` and never completes (for aborts mid-text).
    pub fn partial_text(mut self, ms: u64, text: &str) -> Self {
        let index = self.begin(ms, BlockKind::Text, None);
        self.at(
            ms,
            Ok(StreamEvent::TextDelta {
                index,
                text: text.into(),
            }),
        );
        self
    }

    /// A tool_use block that starts at `start_ms` and is complete at `done_ms`.
    pub fn tool(self, start_ms: u64, done_ms: u64, id: &str, name: &str, input: Value) -> Self {
        self.raw_tool(start_ms, done_ms, id, name, &input.to_string())
    }

    /// A tool_use block whose input JSON is `raw` exactly (which may not parse).
    pub fn raw_tool(
        mut self,
        start_ms: u64,
        done_ms: u64,
        id: &str,
        name: &str,
        raw: &str,
    ) -> Self {
        let index = self.begin(start_ms, BlockKind::ToolUse, Some((id, name)));
        self.at(
            done_ms,
            Ok(StreamEvent::ToolInputDelta {
                index,
                partial_json: raw.into(),
            }),
        );
        self.at(done_ms, Ok(StreamEvent::BlockStop { index }));
        self
    }

    /// A tool_use whose input JSON starts streaming at `ms` and never completes.
    pub fn partial_tool(mut self, ms: u64, id: &str, name: &str) -> Self {
        let index = self.begin(ms, BlockKind::ToolUse, Some((id, name)));
        self.at(
            ms,
            Ok(StreamEvent::ToolInputDelta {
                index,
                partial_json: "{\"pa".into(),
            }),
        );
        self
    }

    /// An error in the stream at `ms`; the reply ends there.
    pub fn fail(mut self, ms: u64, e: ProviderError) -> Reply {
        self.at(ms, Err(e));
        Reply::Stream(self.steps)
    }

    /// Nothing more arrives until `ms` (then the stream ends without message_stop).
    pub fn stall_until(mut self, ms: u64) -> Reply {
        self.at(
            ms,
            Ok(StreamEvent::Raw {
                event: "ping".into(),
                data: "{}".into(),
            }),
        );
        Reply::Stream(self.steps)
    }

    /// message_delta + message_stop at `ms`.
    pub fn end(mut self, ms: u64, stop_reason: &str) -> Reply {
        self.at(
            ms,
            Ok(StreamEvent::Delta {
                stop_reason: Some(stop_reason.into()),
                usage: Usage {
                    input_tokens: 0,
                    output_tokens: 5,
                    ..Default::default()
                },
            }),
        );
        self.at(ms, Ok(StreamEvent::MessageStop));
        Reply::Stream(self.steps)
    }
}
