//! One streaming POST to a provider's endpoint, and what its failures become: the HTTP layer
//! every provider that talks to a server shares (Anthropic, the OpenAI-compatible ones).
//! A provider keeps only what its API does differently: its headers, the body it encodes,
//! the stream it decodes.
//!
//! Here: the endpoint (a base URL with the API's path added), the wait for the response
//! head, connect and send errors, an error answer read at most 64 KiB and turned into
//! [`ProviderError::Http`] (its message and type from any of the JSON shapes servers use,
//! the key redacted wherever a server echoed it, a base-URL hint for a gateway's 404), and
//! the "JSON instead of a stream" check.

use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::Value;

use super::retry::{parse_retry_after, parse_should_retry};
use super::{ProviderError, SetupError};
use crate::http::error_chain;
use crate::text::ellipsize;

/// How much of an error body is read: enough for any JSON error, bounded for a hostile one.
pub const MAX_ERROR_BODY: usize = 64 * 1024;
/// How much of an error body that is not a JSON error is shown in the message.
pub const SHOWN_ERROR_BODY: usize = 300;
/// The longest wait for the response head unless the settings say otherwise.
pub const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(90);

/// What a provider needs to name its API in setup errors and 404 hints.
#[derive(Clone, Copy, Debug)]
pub struct Api {
    /// "Anthropic", "OpenAI-compatible" (setup errors).
    pub label: &'static str,
    /// The path added to the base URL (`/v1/messages`, `/chat/completions`).
    pub path: &'static str,
    /// What `--base-url` should be, for a gateway's 404.
    pub base_hint: &'static str,
}

/// One provider's endpoint, client and secret.
pub struct Exchange {
    endpoint: reqwest::Url,
    client: reqwest::Client,
    /// Longest wait for the response head; a server that accepts and never answers would
    /// otherwise hold the turn forever (the loop's idle timeout starts with the body).
    head_timeout: Duration,
    /// Kept only to redact it from text a server might echo; never printed.
    secret: Option<String>,
    /// The variable a key comes from, named when the server wants one and none is set.
    key_env: &'static str,
    api: Api,
}

impl std::fmt::Debug for Exchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchange")
            .field("endpoint", &self.endpoint.as_str())
            .field("secret", &self.secret.as_ref().map(|_| "[set]"))
            .finish()
    }
}

impl Exchange {
    /// `base_url` with `api.path` added (a path prefix kept, a trailing slash fine, a URL
    /// that already names the endpoint taken as it is); http and https only.
    pub fn new(
        api: Api,
        base_url: &str,
        secret: Option<String>,
        key_env: &'static str,
    ) -> Result<Self, SetupError> {
        Ok(Exchange {
            endpoint: endpoint(api, base_url)?,
            client: crate::http::http_client(),
            head_timeout: DEFAULT_HEAD_TIMEOUT,
            secret,
            key_env,
            api,
        })
    }

    pub fn set_head_timeout(&mut self, d: Duration) {
        self.head_timeout = d;
    }

    /// The variable the key comes from (an OpenAI-compatible provider's own, `DEEPSEEK_API_KEY`).
    pub fn set_key_env(&mut self, key_env: &'static str) {
        self.key_env = key_env;
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &reqwest::Url {
        &self.endpoint
    }

    /// A POST of `body` (the encoded bytes themselves, reference counted) that asks for an
    /// event stream; the provider adds its own headers.
    pub fn post(&self, body: &bytes::Bytes) -> reqwest::RequestBuilder {
        self.client
            .post(self.endpoint.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .body(reqwest::Body::from(body.clone()))
    }

    /// Sends `request` and waits for a successful response head; anything else is the
    /// error the retry policy and the user see. `model` names the model in a 404's hint.
    pub async fn send(
        &self,
        request: reqwest::RequestBuilder,
        model: &str,
    ) -> Result<reqwest::Response, ProviderError> {
        let response = tokio::time::timeout(self.head_timeout, request.send())
            .await
            .map_err(|_| ProviderError::Idle(self.head_timeout))?
            .map_err(|e| {
                if e.is_builder() {
                    ProviderError::Config(self.redact(&error_chain(&e)))
                } else {
                    // Says which URL could not be reached (a wrong base URL shows at once).
                    ProviderError::Connect(super::connect_error::ConnectFailure::from_reqwest(
                        self.endpoint.as_str(),
                        &e,
                        |t| self.redact(t),
                    ))
                }
            })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let headers = response.headers().clone();
        let text = read_capped(response).await;
        let mut err = self.http_error(status.as_u16(), &headers, &text);
        if let ProviderError::Http {
            status: 404,
            message,
            ..
        } = &mut err
        {
            *message = super::not_found::explain(
                self.endpoint.as_str(),
                model,
                &text,
                message,
                self.api.base_hint,
            );
        }
        Err(err)
    }

    /// A non-2xx answer: its message and type, what the server says about retrying, and
    /// the body as sent (the key redacted).
    pub fn http_error(&self, status: u16, headers: &HeaderMap, body: &str) -> ProviderError {
        let (mut message, error_type) = parse_error_body(body);
        if message.is_empty() {
            message = reqwest::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("no body")
                .to_string();
        }
        if matches!(status, 401 | 403) && self.secret.is_none() {
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

    /// A server that echoes the key must not put it into an error message or a recording.
    pub fn redact(&self, text: &str) -> String {
        match &self.secret {
            Some(key) if !key.is_empty() && text.contains(key.as_str()) => {
                text.replace(key.as_str(), "[redacted]")
            }
            _ => text.to_string(),
        }
    }
}

/// Whether a successful response is a JSON document rather than an event stream.
pub fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// The error for a gateway that answered 200 with a JSON document where a stream was asked
/// for (for an API that always streams).
pub async fn not_a_stream(response: reqwest::Response) -> ProviderError {
    let text = read_capped(response).await;
    ProviderError::Malformed(format!(
        "expected an event stream, got JSON: {}",
        ellipsize(&text, SHOWN_ERROR_BODY)
    ))
}

/// The start of a body, at most [`MAX_ERROR_BODY`] bytes.
pub async fn read_capped(mut response: reqwest::Response) -> String {
    let mut buf = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let room = MAX_ERROR_BODY.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if buf.len() >= MAX_ERROR_BODY {
            break;
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}

fn endpoint(api: Api, base_url: &str) -> Result<reqwest::Url, SetupError> {
    let invalid = |reason: String| SetupError::BaseUrl {
        provider: api.label,
        url: base_url.to_string(),
        reason,
    };
    let base = base_url.trim().trim_end_matches('/');
    let full = if base.ends_with(api.path) {
        base.to_string()
    } else {
        format!("{base}{}", api.path)
    };
    let url = reqwest::Url::parse(&full).map_err(|e| invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("expected http:// or https://".into()));
    }
    Ok(url)
}

/// The message and type of an error body. Anthropic and OpenAI send `{"error": {"message",
/// "type"}}` (OpenAI with a `code`); Ollama sends `{"error": "text"}`, vLLM puts `message`
/// and `type` at the top level; anything else is shown shortened.
fn parse_error_body(body: &str) -> (String, Option<String>) {
    let shortened = || ellipsize(body.trim(), SHOWN_ERROR_BODY);
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return (shortened(), None);
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
        .unwrap_or_else(shortened);
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

    const API: Api = Api {
        label: "Test",
        path: "/v1/messages",
        base_hint: "the API root",
    };

    fn exchange(secret: Option<&str>) -> Exchange {
        Exchange::new(API, "http://h", secret.map(str::to_string), "TEST_KEY").expect("exchange")
    }

    #[test]
    fn endpoint_keeps_prefixes_and_tolerates_slashes() {
        let e = |b: &str| endpoint(API, b).map(|u| u.to_string());
        assert_eq!(
            e("https://api.example.com").as_deref(),
            Ok("https://api.example.com/v1/messages")
        );
        assert_eq!(
            e("http://127.0.0.1:9/prefix/").as_deref(),
            Ok("http://127.0.0.1:9/prefix/v1/messages")
        );
        assert_eq!(
            e("http://h/x/v1/messages").as_deref(),
            Ok("http://h/x/v1/messages")
        );
        assert!(e("ftp://h").is_err());
        assert!(e("not a url").is_err());
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
            parse_error_body(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            ("Overloaded".into(), Some("overloaded_error".into()))
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
        assert!(parse_error_body(&"x".repeat(5000)).0.chars().count() <= SHOWN_ERROR_BODY + 1);
    }

    #[test]
    fn http_errors_redact_the_key_and_hint_when_none_is_set() {
        let p = exchange(Some("sk-secret"));
        let err = p.http_error(
            401,
            &HeaderMap::new(),
            r#"{"error":{"message":"bad key sk-secret"}}"#,
        );
        assert!(!err.to_string().contains("sk-secret"), "{err}");
        match &err {
            ProviderError::Http { body, .. } => assert!(!body.contains("sk-secret")),
            other => panic!("{other:?}"),
        }
        let p = exchange(None);
        let err = p.http_error(401, &HeaderMap::new(), "");
        assert!(err.to_string().contains("TEST_KEY"), "{err}");
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
