//! Model providers behind one trait, emitting normalized [`StreamEvent`]s so the loop never
//! sees a wire format.

pub mod anthropic;
pub mod anthropic_stream;
pub mod demo;
mod demo_reply;
pub mod openai;
mod registry;
pub mod retry;
pub mod scripted;
pub mod sse;

use std::pin::Pin;
use std::time::Duration;

use futures::Stream;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::Message;

pub use registry::{ProviderKind, ProviderSettings, SetupError, build};

/// A tool as announced to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// Everything one request carries. The history is sent whole every time: the API is stateless.
#[derive(Clone, Debug)]
pub struct ModelRequest {
    pub model: String,
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: u32,
    /// Ask for at most one tool_use per reply.
    pub disable_parallel_tool_use: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
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
    },
    /// No connection could be made, or it broke before the response head.
    #[error("connection error: {0}")]
    Connect(String),
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

/// A model behind some API. `start` sends the request and resolves once the response head
/// is in (so HTTP errors surface here, before the first byte); the stream yields the body.
pub trait Provider: Send + Sync {
    /// "anthropic", "openai" or "demo".
    fn name(&self) -> &str;
    /// The JSON body `start` would send, for the JSON pane (never includes credentials).
    fn request_body(&self, req: &ModelRequest) -> Value;
    fn start<'a>(
        &'a self,
        req: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>>;
}

/// The one HTTP client shared by providers and web_fetch (connection reuse, rustls).
pub fn http_client() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(15))
                .build()
                .unwrap_or_else(|e| {
                    tracing::error!("HTTP client with settings failed ({e}); using defaults");
                    reqwest::Client::new()
                })
        })
        .clone()
}

/// reqwest's Display hides the cause ("error sending request"); the chain says what broke.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}
