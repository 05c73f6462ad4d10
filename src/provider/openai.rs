//! OpenAI-compatible chat completions, streaming: OpenAI, OpenRouter, and local servers
//! (Ollama, vLLM, llama.cpp, LM Studio).
//!
//! The canonical history is converted to OpenAI messages here and nowhere else
//! ([`convert`]); the reply comes back as normalized events ([`body`]).

pub mod body;
pub mod convert;
mod encode;
mod fast;
mod stream;
mod tool_calls;

use crate::provider::error_chain;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;

use super::connect_error::ConnectFailure;
use super::retry::{parse_retry_after, parse_should_retry};
use super::{
    EventStream, Provider, ProviderError, ProviderSettings, Request, RequestBody, SetupError,
};
use body::Framing;

const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(90);

/// Model, endpoint and key variable when nothing else names them (see the registry).
pub const DEFAULTS: super::settings::ProviderDefaults = super::settings::ProviderDefaults {
    model: "gpt-4.1",
    base_url: "https://api.openai.com/v1",
    api_key_env: Some("OPENAI_API_KEY"),
    base_url_env: Some("OPENAI_BASE_URL"),
    offline: false,
    thinking: false,
    reasoning_effort: true,
    reasoning_echo: super::settings::ReasoningEcho::Never,
    server_tools: false,
};
/// How much of an error body is read: enough for any JSON error, bounded for a hostile one.
const MAX_ERROR_BODY: usize = 64 * 1024;

pub struct OpenAiProvider {
    /// The registry's name for it ("openai", "deepseek", …).
    name: &'static str,
    /// The variable its key is read from, named when the server wants a key.
    key_env: &'static str,
    /// Which replies go back with their reasoning (the registry's rule for this provider).
    echo: super::ReasoningEcho,
    endpoint: reqwest::Url,
    /// Kept only to redact it from error text a server might echo.
    api_key: Option<String>,
    /// `Bearer KEY`, marked sensitive; only when a key is set (local servers need none).
    auth: Option<HeaderValue>,
    /// Longest wait for the response head (the loop's idle timeout starts with the body).
    head_timeout: Duration,
    client: reqwest::Client,
    /// Set once the server said it wants `max_completion_tokens` (OpenAI reasoning models).
    max_completion_tokens: AtomicBool,
    /// The last body's size, to allocate the next one at once.
    last_len: AtomicUsize,
}

/// Never shows the key.
impl std::fmt::Debug for OpenAiProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiProvider")
            .field("endpoint", &self.endpoint.as_str())
            .field("api_key", &self.api_key.as_ref().map(|_| "[set]"))
            .finish()
    }
}

impl OpenAiProvider {
    /// `base_url` usually ends in `/v1`; `/chat/completions` is appended to it (any path
    /// prefix is kept, a trailing slash is fine, and a URL that already names the endpoint
    /// is taken as it is).
    pub fn new(base_url: &str, api_key: Option<String>) -> Result<Self, SetupError> {
        let api_key = api_key
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty());
        let auth = match &api_key {
            Some(key) => {
                let mut v = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                    SetupError::KeyNotAHeader {
                        env: "OPENAI_API_KEY",
                    }
                })?;
                v.set_sensitive(true);
                Some(v)
            }
            None => None,
        };
        Ok(OpenAiProvider {
            name: "openai",
            key_env: "OPENAI_API_KEY",
            echo: super::ReasoningEcho::Never,
            endpoint: endpoint(base_url)?,
            api_key,
            auth,
            head_timeout: DEFAULT_HEAD_TIMEOUT,
            client: super::http_client(),
            max_completion_tokens: AtomicBool::new(false),
            last_len: AtomicUsize::new(0),
        })
    }

    /// The provider the registry builds.
    pub fn from_settings(s: &ProviderSettings) -> Result<Self, SetupError> {
        Ok(Self::new(&s.base_url, s.api_key.clone())?.with_head_timeout(s.head_timeout))
    }

    /// Sets the longest wait for the response head (default 90 s, like the idle timeout).
    pub fn with_head_timeout(mut self, d: Duration) -> Self {
        self.head_timeout = d;
        self
    }

    /// Names it as the registry does, with the variable its key comes from.
    pub fn named(mut self, name: &'static str, key_env: &'static str) -> Self {
        self.name = name;
        self.key_env = key_env;
        self
    }

    /// Sends earlier replies' reasoning back as this provider requires.
    pub fn with_reasoning_echo(mut self, echo: super::ReasoningEcho) -> Self {
        self.echo = echo;
        self
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.endpoint.as_str()
    }

    async fn send(
        &self,
        req: &Request<'_>,
        first: &RequestBody,
    ) -> Result<EventStream, ProviderError> {
        let mut switched: Option<RequestBody> = None;
        loop {
            let body = switched.as_ref().unwrap_or(first);
            let mut request = self
                .client
                .post(self.endpoint.clone())
                .header(ACCEPT, "text/event-stream")
                .header(CONTENT_TYPE, "application/json")
                // The encoded bytes themselves (reference counted), not a copy.
                .body(reqwest::Body::from(body.bytes().clone()));
            if let Some(auth) = &self.auth {
                request = request.header(AUTHORIZATION, auth.clone());
            }
            let response = tokio::time::timeout(self.head_timeout, request.send())
                .await
                .map_err(|_| ProviderError::Idle(self.head_timeout))?
                .map_err(|e| {
                    if e.is_builder() {
                        ProviderError::Config(self.redact(&error_chain(&e)))
                    } else {
                        ProviderError::Connect(ConnectFailure::from_reqwest(
                            self.endpoint.as_str(),
                            &e,
                            |t| self.redact(t),
                        ))
                    }
                })?;
            let status = response.status();
            if !status.is_success() {
                let headers = response.headers().clone();
                let text = read_capped(response).await;
                let mut err = self.http_error(status.as_u16(), &headers, &text);
                if let ProviderError::Http {
                    status: 404,
                    message,
                    ..
                } = &mut err
                    && let Some(m) = super::not_found::explain(
                        self.endpoint.as_str(),
                        req.model,
                        &text,
                        "usually ending in /v1; /chat/completions is added to it",
                    )
                {
                    *message = m;
                }
                // OpenAI's reasoning models refuse max_tokens; say it their way once.
                if switched.is_none()
                    && !self.max_completion_tokens.load(Ordering::Relaxed)
                    && matches!(&err, ProviderError::Http { status: 400, message, .. }
                        if message.contains("max_completion_tokens"))
                {
                    self.max_completion_tokens.store(true, Ordering::Relaxed);
                    switched = Some(self.encode(req));
                    continue;
                }
                return Err(err);
            }
            let framing = match response.headers().get(CONTENT_TYPE) {
                Some(v) if v.to_str().is_ok_and(|t| t.starts_with("application/json")) => {
                    Framing::Json
                }
                _ => Framing::Sse,
            };
            let taken: HashSet<String> = req
                .messages
                .iter()
                .flat_map(|m| m.tool_uses().map(|(id, _, _)| id.to_string()))
                .collect();
            let body = response.bytes_stream();
            return Ok(body::decode(Box::pin(body), framing, taken));
        }
    }

    fn http_error(&self, status: u16, headers: &HeaderMap, body: &str) -> ProviderError {
        let (mut message, error_type) = parse_error_body(body);
        if message.is_empty() {
            message = reqwest::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("error")
                .to_string();
        }
        if matches!(status, 401 | 403) && self.api_key.is_none() {
            message.push_str(&format!(" (no API key is set: export {})", self.key_env));
        }
        // A 429 for an exhausted quota does not pass by waiting.
        let out_of_quota = status == 429 && error_type.as_deref() == Some("insufficient_quota");
        ProviderError::Http {
            status,
            error_type,
            message: self.redact(&message),
            retry_after: parse_retry_after(headers),
            should_retry: parse_should_retry(headers).or(out_of_quota.then_some(false)),
            body: self.redact(body),
        }
    }

    /// A server that echoes the key must not put it into an error message.
    fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(key) if text.contains(key.as_str()) => text.replace(key.as_str(), "[redacted]"),
            _ => text.to_string(),
        }
    }
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        self.name
    }

    fn encode(&self, req: &Request<'_>) -> RequestBody {
        let completion = self.max_completion_tokens.load(Ordering::Relaxed);
        let last_len = self.last_len.load(Ordering::Relaxed);
        let body = encode::encode(req, completion, last_len, self.echo);
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

/// The start of a body, at most MAX_ERROR_BODY bytes.
async fn read_capped(mut response: reqwest::Response) -> String {
    let mut buf = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        buf.extend_from_slice(&chunk);
        if buf.len() >= MAX_ERROR_BODY {
            buf.truncate(MAX_ERROR_BODY);
            break;
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}

fn endpoint(base_url: &str) -> Result<reqwest::Url, SetupError> {
    let invalid = |reason: String| SetupError::BaseUrl {
        provider: "OpenAI-compatible",
        url: base_url.to_string(),
        reason,
    };
    let base = base_url.trim().trim_end_matches('/');
    let full = if base.ends_with("/chat/completions") {
        base.to_string()
    } else {
        format!("{base}/chat/completions")
    };
    let url = reqwest::Url::parse(&full).map_err(|e| invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("the scheme must be http or https".into()));
    }
    Ok(url)
}

/// The message and type of an error body. OpenAI sends `{"error": {"message", "type",
/// "code"}}`; others send `{"error": "text"}` (Ollama), or put `message` and `type` at the
/// top level (vLLM); anything else is shown shortened.
fn parse_error_body(body: &str) -> (String, Option<String>) {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        let text: String = body.trim().chars().take(500).collect();
        return (text, None);
    };
    let obj = match v.get("error") {
        Some(Value::String(s)) => return (s.clone(), None),
        Some(e @ Value::Object(_)) => e,
        _ => &v,
    };
    let message = obj
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| body.trim().chars().take(500).collect());
    // OpenAI's string code is the more precise of the two (`context_length_exceeded`,
    // `invalid_api_key`, `insufficient_quota` under types that say less).
    let error_type = match obj.get("code") {
        Some(Value::String(code)) if !code.is_empty() => Some(code.clone()),
        _ => obj.get("type").and_then(Value::as_str).map(str::to_string),
    };
    (message, error_type)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ContentBlock, Message};
    use crate::provider::{ModelRequest, ToolSpec};
    use serde_json::json;

    fn request() -> ModelRequest {
        ModelRequest {
            model: "m".into(),
            system: "sys".into(),
            messages: vec![Message::user_text("hi")],
            tools: vec![ToolSpec {
                name: "glob".into(),
                description: "d".into(),
                input_schema: json!({"type": "object"}),
            }],
            max_tokens: 100,
            disable_parallel_tool_use: false,
            reasoning: Default::default(),
        }
    }

    #[test]
    fn endpoint_keeps_prefixes_and_tolerates_slashes() {
        let e = |b: &str| endpoint(b).map(|u| u.to_string());
        assert_eq!(
            e("http://localhost:11434/v1").as_deref(),
            Ok("http://localhost:11434/v1/chat/completions")
        );
        assert_eq!(
            e("https://openrouter.ai/api/v1/").as_deref(),
            Ok("https://openrouter.ai/api/v1/chat/completions")
        );
        assert_eq!(
            e("http://h/v1/chat/completions").as_deref(),
            Ok("http://h/v1/chat/completions")
        );
        assert!(e("ftp://h/v1").is_err());
        assert!(OpenAiProvider::new("http://h/v1", Some("bad\nkey".into())).is_err());
        assert!(
            OpenAiProvider::new("http://h/v1", Some("  ".into())).is_ok_and(|p| p.auth.is_none())
        );
        assert!(e("not a url").is_err());
    }

    #[test]
    fn body_has_what_the_api_needs_and_no_key() {
        let p = OpenAiProvider::new("http://h/v1", Some("sk-secret".into())).expect("provider");
        let mut req = request();
        let body = p.request_body(&req);
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
        assert_eq!(body["max_tokens"], 100);
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "sys"})
        );
        assert_eq!(body["tools"][0]["function"]["name"], "glob");
        assert!(body.get("parallel_tool_calls").is_none());
        assert!(!body.to_string().contains("sk-secret"));
        assert!(!format!("{p:?}").contains("sk-secret"));
        req.disable_parallel_tool_use = true;
        assert_eq!(p.request_body(&req)["parallel_tool_calls"], false);
        req.tools.clear();
        let body = p.request_body(&req);
        assert!(body.get("tools").is_none() && body.get("parallel_tool_calls").is_none());
        req.messages
            .push(Message::assistant(vec![ContentBlock::text("x")]));
        assert_eq!(p.request_body(&req)["messages"][2]["role"], "assistant");
    }

    #[test]
    fn error_bodies_of_several_servers() {
        assert_eq!(
            parse_error_body(
                r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}"#
            ),
            ("Incorrect API key".into(), Some("invalid_api_key".into()))
        );
        assert_eq!(
            parse_error_body(r#"{"error":"model \"x\" not found"}"#),
            ("model \"x\" not found".into(), None)
        );
        assert_eq!(
            parse_error_body(
                r#"{"object":"error","message":"too long","type":"BadRequestError","code":400}"#
            ),
            ("too long".into(), Some("BadRequestError".into()))
        );
        assert_eq!(
            parse_error_body("<html>bad gateway</html>").0,
            "<html>bad gateway</html>"
        );
    }

    #[test]
    fn http_errors_redact_the_key_and_hint_when_none_is_set() {
        let p = OpenAiProvider::new("http://h/v1", Some("sk-secret".into())).expect("provider");
        let err = p.http_error(
            401,
            &HeaderMap::new(),
            r#"{"error":{"message":"bad key sk-secret"}}"#,
        );
        assert!(!err.to_string().contains("sk-secret"), "{err}");
        let p = OpenAiProvider::new("http://h/v1", None).expect("provider");
        let err = p.http_error(401, &HeaderMap::new(), "");
        assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");
        let quota = p.http_error(
            429,
            &HeaderMap::new(),
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        );
        assert!(!quota.is_retryable(), "{quota:?}");
        assert!(p.http_error(429, &HeaderMap::new(), "").is_retryable());
        let mut h = HeaderMap::new();
        h.insert("retry-after-ms", "250".parse().expect("header"));
        h.insert("x-should-retry", "false".parse().expect("header"));
        match p.http_error(429, &h, "") {
            ProviderError::Http {
                retry_after,
                should_retry,
                message,
                ..
            } => {
                assert_eq!(retry_after, Some(std::time::Duration::from_millis(250)));
                assert_eq!(should_retry, Some(false));
                assert_eq!(message, "Too Many Requests");
            }
            other => panic!("{other:?}"),
        }
    }
}
