//! The Anthropic Messages API, streaming: the provider, its key and headers. The body is
//! encoded in `anthropic/request.rs` (with `cache.rs`'s breakpoints), the stream decoded in
//! `anthropic/stream.rs`; the HTTP exchange and its errors are the shared
//! `provider/exchange.rs`.

pub mod cache;
mod events;
mod request;
pub mod stream;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use reqwest::header::HeaderValue;

use super::exchange::{self, Api, Exchange};
use super::{
    EventStream, Provider, ProviderError, ProviderSettings, Request, RequestBody, SetupError,
};
use stream::event_stream;

pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// The beta that enables `defer_loading` on tool definitions and `tool_reference` blocks.
pub const ADVANCED_TOOL_USE_BETA: &str = "advanced-tool-use-2025-11-20";

/// Model, endpoint and key variable when nothing else names them (see the registry).
pub const DEFAULTS: super::settings::ProviderDefaults = super::settings::ProviderDefaults {
    model: "claude-sonnet-4-5",
    base_url: "https://api.anthropic.com",
    api_key_env: Some("ANTHROPIC_API_KEY"),
    base_url_env: Some("ANTHROPIC_BASE_URL"),
    offline: false,
    thinking: true,
    reasoning_effort: false,
    reasoning_echo: super::settings::ReasoningEcho::Never,
    server_tools: true,
};
/// The Messages API as the HTTP layer names it.
const API: Api = Api {
    label: "Anthropic",
    path: "/v1/messages",
    base_hint: "the API root; /v1/messages is added to it",
};

pub struct AnthropicProvider {
    /// Endpoint, client, head timeout and the key to redact (provider/exchange.rs).
    http: Exchange,
    /// Only ever placed in the x-api-key header (marked sensitive); never printed.
    api_key: HeaderValue,
    /// Add `cache_control` breakpoints (see `anthropic/cache.rs`).
    prompt_cache: bool,
    /// The last body's size, to allocate the next one at once.
    last_len: AtomicUsize,
    /// The history's messages as JSON, kept between bodies (`message_json.rs`).
    messages_json: std::sync::Mutex<super::message_json::MessageJson>,
}

impl std::fmt::Debug for AnthropicProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicProvider")
            .field("endpoint", &self.http.endpoint().as_str())
            .field("api_key", &"<redacted>")
            .finish()
    }
}

impl AnthropicProvider {
    /// `base_url` is joined with `/v1/messages`, keeping any path prefix
    /// (`http://host/anthropic` → `http://host/anthropic/v1/messages`).
    pub fn new(base_url: &str, api_key: String) -> Result<Self, SetupError> {
        let key = api_key.trim();
        if key.is_empty() {
            return Err(SetupError::MissingKey {
                provider: "Anthropic",
                env: "ANTHROPIC_API_KEY",
            });
        }
        let mut api_key = HeaderValue::from_str(key).map_err(|_| SetupError::KeyNotAHeader {
            env: "ANTHROPIC_API_KEY",
        })?;
        api_key.set_sensitive(true);
        Ok(AnthropicProvider {
            http: Exchange::new(API, base_url, Some(key.to_string()), "ANTHROPIC_API_KEY")?,
            api_key,
            prompt_cache: true,
            last_len: AtomicUsize::new(0),
            messages_json: Default::default(),
        })
    }

    /// The provider the registry builds.
    pub fn from_settings(s: &ProviderSettings) -> Result<Self, SetupError> {
        let key = s.api_key.clone().unwrap_or_default();
        Ok(Self::new(&s.base_url, key)?
            .with_head_timeout(s.head_timeout)
            .with_prompt_cache(s.prompt_cache))
    }

    /// Sets the longest wait for the response head (default 90 s, like the idle timeout).
    pub fn with_head_timeout(mut self, d: Duration) -> Self {
        self.http.set_head_timeout(d);
        self
    }

    /// Turns prompt-caching breakpoints on (the default) or off (`--no-prompt-cache`).
    pub fn with_prompt_cache(mut self, on: bool) -> Self {
        self.prompt_cache = on;
        self
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.http.endpoint().as_str()
    }

    async fn send(
        &self,
        req: &Request<'_>,
        body: &RequestBody,
    ) -> Result<EventStream, ProviderError> {
        tracing::info!(url = %self.http.endpoint(), model = %req.model, messages = req.messages.len(), bytes = body.len(), "anthropic request");
        let mut send = self
            .http
            .post(body.bytes())
            .header("x-api-key", self.api_key.clone())
            .header("anthropic-version", ANTHROPIC_VERSION);
        let mut betas = Vec::new();
        if req.reasoning.thinking_on() {
            // Thinking between tool calls streams in order (Claude 4).
            betas.push(super::reasoning::INTERLEAVED_THINKING_BETA);
        }
        if req.tools.iter().any(|t| t.defer_loading) {
            // `defer_loading` and `tool_reference` (deferred MCP tools, issue 39).
            betas.push(ADVANCED_TOOL_USE_BETA);
        }
        if !betas.is_empty() {
            send = send.header("anthropic-beta", betas.join(","));
        }
        let resp = self.http.send(send, req.model).await?;
        if exchange::is_json(&resp) {
            // A gateway that answered 200 with a JSON document instead of a stream.
            return Err(exchange::not_a_stream(resp).await);
        }
        Ok(event_stream(Box::pin(resp.bytes_stream())))
    }
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        "anthropic"
    }

    fn loads_deferred_tools(&self) -> bool {
        true
    }

    fn encode(&self, req: &Request<'_>) -> RequestBody {
        // One request at a time per provider; a poisoned lock only loses the kept bytes.
        let mut kept = self.messages_json.lock().unwrap_or_else(|p| p.into_inner());
        let body = request::encode_kept(
            req,
            self.last_len.load(Ordering::Relaxed),
            self.prompt_cache,
            &mut kept,
        );
        self.last_len.store(body.len(), Ordering::Relaxed);
        body
    }

    fn open<'a>(
        &'a self,
        req: &'a Request<'a>,
        body: &'a RequestBody,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        Box::pin(self.send(req, body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Message;
    use crate::provider::{ModelRequest, ToolSpec};
    use serde_json::json;

    fn req(disable_parallel: bool) -> ModelRequest {
        ModelRequest {
            model: "claude-test".into(),
            system: "be brief".into(),
            messages: vec![Message::user_text("hi")],
            tools: vec![ToolSpec {
                name: "get_current_time".into(),
                description: "the time".into(),
                input_schema: json!({"type": "object"}),
                defer_loading: false,
            }],
            max_tokens: 100,
            disable_parallel_tool_use: disable_parallel,
            reasoning: Default::default(),
        }
    }

    #[test]
    fn requests_go_to_v1_messages_under_the_base_url() {
        let p = AnthropicProvider::new("http://127.0.0.1:9/anthropic/", "k".into()).expect("ok");
        assert_eq!(p.endpoint(), "http://127.0.0.1:9/anthropic/v1/messages");
        assert!(AnthropicProvider::new("ftp://h", "k".into()).is_err());
    }

    #[test]
    fn body_has_the_wire_fields_and_no_key() {
        let p = AnthropicProvider::new("http://h", "sk-secret-key".into()).expect("provider");
        let b = p.request_body(&req(false));
        assert_eq!(b["model"], "claude-test");
        assert_eq!(b["max_tokens"], 100);
        // Prompt caching (the default) sends the system prompt as a marked text block.
        assert_eq!(b["system"][0]["text"], "be brief");
        assert_eq!(b["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(b["stream"], true);
        assert_eq!(b["messages"][0]["content"][0]["text"], "hi");
        assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
        assert!(b.get("tool_choice").is_none());
        assert!(!b.to_string().contains("sk-secret-key"));
        assert!(!format!("{p:?}").contains("sk-secret-key"));
        let plain = AnthropicProvider::new("http://h", "k".into())
            .expect("provider")
            .with_prompt_cache(false)
            .request_body(&req(false));
        assert_eq!(plain["system"], "be brief");
        assert!(!plain.to_string().contains("cache_control"));
        let b = p.request_body(&req(true));
        assert_eq!(
            b["tool_choice"],
            json!({"type": "auto", "disable_parallel_tool_use": true})
        );
    }

    #[test]
    fn missing_or_bad_key_is_a_clear_error() {
        let err = AnthropicProvider::new("http://h", "  ".into())
            .expect_err("no key")
            .to_string();
        assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
        let err = AnthropicProvider::new("http://h", "a\nb".into())
            .expect_err("bad key")
            .to_string();
        assert!(
            err.contains("ANTHROPIC_API_KEY") && !err.contains("a\nb"),
            "{err}"
        );
    }
}
