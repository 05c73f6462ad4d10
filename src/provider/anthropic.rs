//! The Anthropic Messages API, streaming: request building, the HTTP exchange and its
//! errors. The stream decoding lives in `anthropic_stream.rs`.

use crate::provider::error_chain;
use crate::text::ellipsize;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use serde_json::Value;

use super::anthropic_stream::event_stream;
use super::connect_error::ConnectFailure;
use super::{
    EventStream, Provider, ProviderError, ProviderSettings, Request, RequestBody, SetupError, retry,
};
use std::sync::atomic::{AtomicUsize, Ordering};

pub const ANTHROPIC_VERSION: &str = "2023-06-01";

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
const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(90);
/// How much of an error body is read; enough for any JSON error, bounded for a hostile one.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// How much of a non-JSON error body is shown.
const SHOWN_ERROR_BODY: usize = 300;

pub struct AnthropicProvider {
    endpoint: reqwest::Url,
    /// Longest wait for the response head; a server that accepts and never answers would
    /// otherwise hold the turn forever (the loop's idle timeout starts with the body).
    head_timeout: Duration,
    /// Only ever placed in the x-api-key header (marked sensitive); never printed.
    api_key: HeaderValue,
    client: reqwest::Client,
    /// Add `cache_control` breakpoints (see `anthropic_cache.rs`).
    prompt_cache: bool,
    /// The last body's size, to allocate the next one at once.
    last_len: AtomicUsize,
    /// The history's messages as JSON, kept between bodies (`message_json.rs`).
    messages_json: std::sync::Mutex<super::message_json::MessageJson>,
}

impl std::fmt::Debug for AnthropicProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicProvider")
            .field("endpoint", &self.endpoint.as_str())
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
            endpoint: endpoint(base_url)?,
            head_timeout: DEFAULT_HEAD_TIMEOUT,
            api_key,
            client: super::http_client(),
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
        self.head_timeout = d;
        self
    }

    /// Turns prompt-caching breakpoints on (the default) or off (`--no-prompt-cache`).
    pub fn with_prompt_cache(mut self, on: bool) -> Self {
        self.prompt_cache = on;
        self
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.endpoint.as_str()
    }

    async fn send(
        &self,
        req: &Request<'_>,
        body: &RequestBody,
    ) -> Result<EventStream, ProviderError> {
        tracing::info!(url = %self.endpoint, model = %req.model, messages = req.messages.len(), bytes = body.len(), "anthropic request");
        // The encoded bytes themselves (reference counted), not a copy.
        let body = reqwest::Body::from(body.bytes().clone());
        let mut send = self
            .client
            .post(self.endpoint.clone())
            .header("x-api-key", self.api_key.clone())
            .header("anthropic-version", ANTHROPIC_VERSION);
        if req.reasoning.thinking_on() {
            // Thinking between tool calls streams in order (Claude 4).
            send = send.header(
                "anthropic-beta",
                super::reasoning::INTERLEAVED_THINKING_BETA,
            );
        }
        let send = send
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .body(body)
            .send();
        let resp = tokio::time::timeout(self.head_timeout, send)
            .await
            .map_err(|_| ProviderError::Idle(self.head_timeout))?
            .map_err(|e| {
                if e.is_builder() {
                    ProviderError::Config(error_chain(&e))
                } else {
                    ProviderError::Connect(ConnectFailure::from_reqwest(
                        self.endpoint.as_str(),
                        &e,
                        str::to_string,
                    ))
                }
            })?;
        let status = resp.status();
        if !status.is_success() {
            let mut err = http_error(resp, self.api_key.to_str().unwrap_or("")).await;
            if let ProviderError::Http {
                status: 404,
                message,
                body,
                ..
            } = &mut err
                && let Some(m) = super::not_found::explain(
                    self.endpoint.as_str(),
                    req.model,
                    body,
                    "the API root; /v1/messages is added to it",
                )
            {
                *message = m;
            }
            return Err(err);
        }
        let is_json = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if is_json {
            // A gateway that answered 200 with a JSON document instead of a stream.
            let text = read_capped(resp).await;
            return Err(ProviderError::Malformed(format!(
                "expected an event stream, got JSON: {}",
                ellipsize(&text, SHOWN_ERROR_BODY)
            )));
        }
        Ok(event_stream(Box::pin(resp.bytes_stream())))
    }
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        "anthropic"
    }

    fn encode(&self, req: &Request<'_>) -> RequestBody {
        // One request at a time per provider; a poisoned lock only loses the kept bytes.
        let mut kept = self.messages_json.lock().unwrap_or_else(|p| p.into_inner());
        let body = super::anthropic_request::encode_kept(
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

fn endpoint(base_url: &str) -> Result<reqwest::Url, SetupError> {
    let invalid = |reason: String| SetupError::BaseUrl {
        provider: "Anthropic",
        url: base_url.to_string(),
        reason,
    };
    let base = base_url.trim().trim_end_matches('/');
    let full = if base.ends_with("/v1/messages") {
        base.to_string()
    } else {
        format!("{base}/v1/messages")
    };
    let url = reqwest::Url::parse(&full).map_err(|e| invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("expected http:// or https://".into()));
    }
    Ok(url)
}

/// A non-2xx answer: the API's error type and message, and what the server says about retrying.
async fn http_error(resp: reqwest::Response, key: &str) -> ProviderError {
    let status = resp.status();
    let retry_after = retry::parse_retry_after(resp.headers());
    let should_retry = retry::parse_should_retry(resp.headers());
    let text = read_capped(resp).await;
    let parsed: Option<Value> = serde_json::from_str(&text).ok();
    let error = parsed.as_ref().map(|v| &v["error"]);
    let error_type = error.and_then(|e| e["type"].as_str()).map(String::from);
    let message = error
        .and_then(|e| e["message"].as_str())
        .map(String::from)
        .unwrap_or_else(|| {
            let t = text.trim();
            if t.is_empty() {
                status.canonical_reason().unwrap_or("no body").to_string()
            } else {
                ellipsize(t, SHOWN_ERROR_BODY)
            }
        });
    ProviderError::Http {
        status: status.as_u16(),
        error_type,
        message,
        retry_after,
        should_retry,
        body: if key.is_empty() {
            text
        } else {
            text.replace(key, "[redacted]")
        },
    }
}

async fn read_capped(resp: reqwest::Response) -> String {
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = MAX_ERROR_BODY.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_ERROR_BODY {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
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
            }],
            max_tokens: 100,
            disable_parallel_tool_use: disable_parallel,
            reasoning: Default::default(),
        }
    }

    #[test]
    fn endpoint_keeps_prefix_and_tolerates_slashes() {
        let e = |b: &str| endpoint(b).map(|u| u.to_string());
        assert_eq!(
            e("https://api.anthropic.com").as_deref(),
            Ok("https://api.anthropic.com/v1/messages")
        );
        assert_eq!(
            e("http://127.0.0.1:9/anthropic/").as_deref(),
            Ok("http://127.0.0.1:9/anthropic/v1/messages")
        );
        assert_eq!(
            e("http://h/x/v1/messages").as_deref(),
            Ok("http://h/x/v1/messages")
        );
        assert!(e("ftp://h").is_err());
        assert!(e("not a url").is_err());
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
