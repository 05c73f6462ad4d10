//! Model providers behind one trait, emitting normalized [`StreamEvent`]s so the loop never
//! sees a wire format.

pub mod anthropic;
mod compatible;
pub mod connect_error;
pub mod demo;
mod demo_reply;
pub mod exchange;
mod message_json;
mod not_found;
pub mod openai;
pub mod reasoning;
mod registry;
pub mod request;
pub mod retry;
#[cfg(any(test, feature = "test-support"))]
pub mod scripted;
mod settings;
pub mod sse;
pub mod system_prompt;

use std::pin::Pin;
use std::time::Duration;

use futures::Stream;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::Message;
// Shared with the tools (which announce themselves) and re-exported for the wire code.
pub use crate::http::{error_chain, http_client};
pub use crate::message::ToolSpec;

pub use reasoning::{MIN_THINKING_BUDGET, Reasoning, ReasoningEffort};
pub use registry::{ProviderKind, build};
pub use request::{Messages, Request, RequestBody};
pub use settings::{ProviderDefaults, ProviderSettings, ReasoningEcho, SetupError};
pub use system_prompt::{SystemPart, SystemPrompt};

/// Everything one request carries, owned (tests and one-off callers; the loop borrows its
/// history through [`Request`]). The history is sent whole every time: the API is stateless.
#[derive(Clone, Debug, Default)]
pub struct ModelRequest {
    pub model: String,
    /// Named parts; `"text".into()` makes a one-part prompt.
    pub system: SystemPrompt,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: u32,
    /// Ask for at most one tool_use per reply.
    pub disable_parallel_tool_use: bool,
    /// Extended thinking (Anthropic) or reasoning effort (OpenAI-compatible); off by default.
    pub reasoning: Reasoning,
}

/// Token counts as the APIs report them. `input_tokens` is uncached input (the Anthropic
/// meaning; OpenAI's `prompt_tokens` minus its cached part); the cache fields are what was
/// written to / read from the prompt cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Searches the API ran for the server-side web_search tool (Anthropic
    /// `usage.server_tool_use.web_search_requests`); billed per 1,000.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub web_search_requests: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.web_search_requests += other.web_search_requests;
    }

    /// Every input token of the request, cached or not.
    pub fn total_input(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}

/// What a provider's stream says, independent of its wire format.
///
/// Providers only decode: blocks arrive as start, deltas, stop, and the one assembler
/// (`agent::assembler`) buffers them, parses tool input and builds the content blocks.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// The response began; `usage` carries the input tokens known so far.
    MessageStart {
        model: Option<String>,
        usage: Usage,
    },
    /// A content block began. For tool_use, id and name are known from here on.
    BlockStart {
        index: usize,
        kind: BlockKind,
        id: Option<String>,
        name: Option<String>,
    },
    TextDelta {
        index: usize,
        text: String,
    },
    ThinkingDelta {
        index: usize,
        thinking: String,
    },
    /// A piece of a thinking block's signature (kept byte for byte and sent back).
    SignatureDelta {
        index: usize,
        signature: String,
    },
    /// The opaque `data` of a redacted_thinking block (sent back exactly as received).
    RedactedThinking {
        index: usize,
        data: String,
    },
    /// A fragment of a tool_use block's input JSON (shown live; parsed once, at BlockStop).
    ToolInputDelta {
        index: usize,
        partial_json: String,
    },
    /// A block of a type tooloop does not model, as it started (server_tool_use,
    /// web_search_tool_result, …): kept verbatim; for a server_tool_use, input fragments
    /// follow as ToolInputDelta.
    OtherBlock {
        index: usize,
        block: Value,
    },
    /// A citation for a text block (Anthropic `citations_delta`), verbatim.
    Citation {
        index: usize,
        citation: Value,
    },
    /// A content block is complete.
    BlockStop {
        index: usize,
    },
    /// Usage and stop reason as they become known (message_delta).
    Delta {
        stop_reason: Option<String>,
        usage: Usage,
    },
    /// The message ended properly (message_stop). Never emitted for a cut-off stream.
    MessageStop,
    /// A raw wire event, for the JSON pane. `event` is the SSE event name or "data".
    Raw {
        event: std::borrow::Cow<'static, str>,
        data: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Text,
    Thinking,
    RedactedThinking,
    ToolUse,
    /// A block type we do not model (server tools, …): its deltas are ignored.
    Other,
}

/// Why a request or stream failed. Everything a retry policy needs to decide is here.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// The server answered with an error status.
    #[error("HTTP {status}{}: {message}", error_type.as_deref().map(|t| format!(" {t}")).unwrap_or_default())]
    Http {
        status: u16,
        error_type: Option<String>,
        message: String,
        retry_after: Option<Duration>,
        /// `x-should-retry` if the server sent it.
        should_retry: Option<bool>,
        /// The error body as the server sent it (at most 64 KiB; the API key, should the
        /// server echo it, replaced by `[redacted]`), for the request stepper and recordings.
        body: String,
    },
    /// No connection could be made, or it broke before the response head; says to which URL.
    #[error("{0}")]
    Connect(connect_error::ConnectFailure),
    /// An `event: error` inside the stream (overloaded_error, api_error, …).
    #[error("stream error {error_type}: {message}")]
    Stream { error_type: String, message: String },
    /// The connection dropped mid-stream.
    #[error("stream interrupted: {0}")]
    Interrupted(String),
    /// The stream ended without message_stop.
    #[error("stream ended before the message was complete (no message_stop / [DONE])")]
    Incomplete,
    /// An event could not be understood.
    #[error("malformed stream event: {0}")]
    Malformed(String),
    /// No byte arrived for the idle timeout.
    #[error("no data for {0:?}")]
    Idle(Duration),
    /// A request could not be built (bad base URL, …). Never retried.
    #[error("{0}")]
    Config(String),
}

impl ProviderError {
    /// Whether a retry before the first byte may help.
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Http {
                status,
                should_retry,
                ..
            } => match should_retry {
                Some(v) => *v,
                None => matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529),
            },
            ProviderError::Connect(_) => true,
            ProviderError::Stream { error_type, .. } => {
                matches!(
                    error_type.as_str(),
                    "overloaded_error" | "api_error" | "rate_limit_error"
                )
            }
            ProviderError::Interrupted(_)
            | ProviderError::Incomplete
            | ProviderError::Malformed(_)
            | ProviderError::Idle(_) => true,
            ProviderError::Config(_) => false,
        }
    }

    /// Another attempt soon will not help (nothing listens at the URL, its host does not
    /// resolve): retried only briefly, so a wrong base URL fails in seconds.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, ProviderError::Connect(f) if f.unreachable)
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    pub fn is_overloaded(&self) -> bool {
        match self {
            ProviderError::Http {
                status, error_type, ..
            } => *status == 529 || error_type.as_deref() == Some("overloaded_error"),
            ProviderError::Stream { error_type, .. } => error_type == "overloaded_error",
            _ => false,
        }
    }
}

pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, ProviderError>> + Send>>;

/// A model behind some API. A request is encoded once ([`Provider::encode`]); `open` sends
/// that body and resolves once the response head is in (so HTTP errors surface here, before
/// the first byte); the stream yields the reply.
pub trait Provider: Send + Sync {
    /// "anthropic", "openai" or "demo".
    fn name(&self) -> &str;
    /// The body for `req`, serialized once: the bytes `open` sends and the JSON pane shows
    /// (never with credentials). Byte-stable: the same request gives the same bytes.
    fn encode(&self, req: &Request<'_>) -> RequestBody;
    /// Whether the API loads deferred tools itself (`defer_loading` definitions and
    /// `tool_reference` blocks in tool results, Anthropic's mechanism; issue 39). Others get
    /// the found definitions appended to `tools`.
    fn loads_deferred_tools(&self) -> bool {
        false
    }
    /// Sends `body`, which `encode` made from `req` (in-process providers read `req`).
    fn open<'a>(
        &'a self,
        req: &'a Request<'a>,
        body: &'a RequestBody,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>>;

    /// The JSON body `start` would send, as a `Value` (tests, one-off callers).
    fn request_body(&self, req: &ModelRequest) -> Value {
        self.encode(&req.as_request()).json().clone()
    }

    /// Encodes and sends an owned request (tests, one-off callers).
    fn start<'a>(
        &'a self,
        req: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        Box::pin(async move {
            let req = req.as_request();
            let body = self.encode(&req);
            self.open(&req, &body).await
        })
    }
}
