//! The Anthropic Messages API, streaming: request building, the HTTP exchange and its
//! errors. The stream decoding lives in `anthropic_stream.rs`.

use crate::provider::error_chain;
use crate::text::ellipsize;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use serde_json::{Value, json};

use super::anthropic_stream::event_stream;
use super::{
    EventStream, ModelRequest, Provider, ProviderError, ProviderSettings, SetupError, retry,
};

pub const ANTHROPIC_VERSION: &str = "2023-06-01";
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
        })
    }

    /// The provider the registry builds.
    pub fn from_settings(s: &ProviderSettings) -> Result<Self, SetupError> {
        let key = s.api_key.clone().unwrap_or_default();
        Ok(Self::new(&s.base_url, key)?.with_head_timeout(s.head_timeout))
    }

    /// Sets the longest wait for the response head (default 90 s, like the idle timeout).
    pub fn with_head_timeout(mut self, d: Duration) -> Self {
        self.head_timeout = d;
        self
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.endpoint.as_str()
    }

    async fn send(&self, req: &ModelRequest) -> Result<EventStream, ProviderError> {
        let body = self.request_body(req).to_string();
        tracing::info!(url = %self.endpoint, model = %req.model, messages = req.messages.len(), bytes = body.len(), "anthropic request");
        let send = self
            .client
            .post(self.endpoint.clone())
            .header("x-api-key", self.api_key.clone())
            .header("anthropic-version", ANTHROPIC_VERSION)
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
                    ProviderError::Connect(error_chain(&e))
                }
            })?;
        let status = resp.status();
        if !status.is_success() {
            return Err(http_error(resp).await);
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

    fn request_body(&self, req: &ModelRequest) -> Value {
        let mut body = json!({
            "model": req.model,
            "max_tokens": req.max_tokens,
            "messages": req.messages,
            "stream": true,
        });
        let Value::Object(map) = &mut body else {
            return body;
        };
        if !req.system.is_empty() {
            map.insert("system".into(), json!(req.system));
        }
        if !req.tools.is_empty() {
            let tools: Vec<Value> = req
                .tools
                .iter()
                .map(|t| {
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": t.input_schema,
                    })
                })
                .collect();
            map.insert("tools".into(), Value::Array(tools));
            // The API refuses tool_choice without tools, so it only goes with them.
            if req.disable_parallel_tool_use {
                map.insert(
                    "tool_choice".into(),
                    json!({"type": "auto", "disable_parallel_tool_use": true}),
                );
            }
        }
        body
    }

    fn start<'a>(
        &'a self,
        req: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        Box::pin(self.send(req))
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
async fn http_error(resp: reqwest::Response) -> ProviderError {
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
    use crate::provider::ToolSpec;

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
        assert_eq!(b["system"], "be brief");
        assert_eq!(b["stream"], true);
        assert_eq!(b["messages"][0]["content"][0]["text"], "hi");
        assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
        assert!(b.get("tool_choice").is_none());
        assert!(!b.to_string().contains("sk-secret-key"));
        assert!(!format!("{p:?}").contains("sk-secret-key"));
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
