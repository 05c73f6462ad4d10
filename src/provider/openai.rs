//! OpenAI-compatible chat completions, streaming: OpenAI, OpenRouter, and local servers
//! (Ollama, vLLM, llama.cpp, LM Studio).
//!
//! The canonical history is converted to OpenAI messages in one place (`encode.rs`); the
//! reply comes back as normalized events ([`body`]). The HTTP exchange is the shared
//! `provider/exchange.rs`.

pub mod body;
mod encode;
mod fast;
mod stream;
mod tool_calls;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, HeaderValue};

use super::exchange::{self, Api, Exchange};
use super::{
    EventStream, Provider, ProviderError, ProviderSettings, Request, RequestBody, SetupError,
};
use body::Framing;

/// Chat completions as the HTTP layer names it.
const API: Api = Api {
    label: "OpenAI-compatible",
    path: "/chat/completions",
    base_hint: "usually ending in /v1; /chat/completions is added to it",
};

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

pub struct OpenAiProvider {
    /// The registry's name for it ("openai", "deepseek", …).
    name: &'static str,
    /// Which replies go back with their reasoning (the registry's rule for this provider).
    echo: super::ReasoningEcho,
    /// Endpoint, client, head timeout and the key to redact (provider/exchange.rs).
    http: Exchange,
    /// `Bearer KEY`, marked sensitive; only when a key is set (local servers need none).
    auth: Option<HeaderValue>,
    /// Set once the server said it wants `max_completion_tokens` (OpenAI reasoning models).
    max_completion_tokens: AtomicBool,
    /// The last body's size, to allocate the next one at once.
    last_len: AtomicUsize,
}

/// Never shows the key.
impl std::fmt::Debug for OpenAiProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiProvider")
            .field("endpoint", &self.http.endpoint().as_str())
            .field("api_key", &self.auth.as_ref().map(|_| "[set]"))
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
            echo: super::ReasoningEcho::Never,
            http: Exchange::new(API, base_url, api_key, "OPENAI_API_KEY")?,
            auth,
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
        self.http.set_head_timeout(d);
        self
    }

    /// Names it as the registry does, with the variable its key comes from.
    pub fn named(mut self, name: &'static str, key_env: &'static str) -> Self {
        self.name = name;
        self.http.set_key_env(key_env);
        self
    }

    /// Sends earlier replies' reasoning back as this provider requires.
    pub fn with_reasoning_echo(mut self, echo: super::ReasoningEcho) -> Self {
        self.echo = echo;
        self
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.http.endpoint().as_str()
    }

    async fn send(
        &self,
        req: &Request<'_>,
        first: &RequestBody,
    ) -> Result<EventStream, ProviderError> {
        let mut switched: Option<RequestBody> = None;
        loop {
            let body = switched.as_ref().unwrap_or(first);
            let mut request = self.http.post(body.bytes());
            if let Some(auth) = &self.auth {
                request = request.header(AUTHORIZATION, auth.clone());
            }
            let response = match self.http.send(request, req.model).await {
                Ok(response) => response,
                // OpenAI's reasoning models refuse max_tokens; say it their way once.
                Err(ProviderError::Http {
                    status: 400,
                    message,
                    ..
                }) if switched.is_none()
                    && !self.max_completion_tokens.load(Ordering::Relaxed)
                    && message.contains("max_completion_tokens") =>
                {
                    self.max_completion_tokens.store(true, Ordering::Relaxed);
                    switched = Some(self.encode(req));
                    continue;
                }
                Err(e) => return Err(e),
            };
            // Servers that do not stream answer with one JSON document: decoded as such.
            let framing = if exchange::is_json(&response) {
                Framing::Json
            } else {
                Framing::Sse
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
                defer_loading: false,
            }],
            max_tokens: 100,
            disable_parallel_tool_use: false,
            reasoning: Default::default(),
        }
    }

    #[test]
    fn requests_go_to_chat_completions_and_a_key_is_optional() {
        let p = OpenAiProvider::new("https://openrouter.ai/api/v1/", None).expect("provider");
        assert_eq!(
            p.endpoint(),
            "https://openrouter.ai/api/v1/chat/completions"
        );
        assert!(OpenAiProvider::new("ftp://h/v1", None).is_err());
        assert!(OpenAiProvider::new("http://h/v1", Some("bad\nkey".into())).is_err());
        assert!(
            OpenAiProvider::new("http://h/v1", Some("  ".into())).is_ok_and(|p| p.auth.is_none())
        );
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
}
