//! web_fetch: GET an http(s) URL and return its text, with a timeout and a size cap.

use crate::http::error_chain;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::args::{one_line, optional_str, optional_u64, required_str};
use super::input::{Check, Positive, Text, check};
use super::{Effect, Tool, ToolContext, ToolOutput, html};

pub const DEFAULT_MAX_BYTES: usize = 100_000;
pub const MAX_MAX_BYTES: usize = 5_000_000;
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

pub struct WebFetch;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    url: Text,
    #[serde(default)]
    max_bytes: Positive,
}

#[async_trait]
impl Tool for WebFetch {
    fn name(&self) -> &str {
        "web_fetch"
    }
    fn description(&self) -> &str {
        "Fetch a web page or text resource with HTTP GET (http or https). Returns the body as \
         text (HTML is roughly converted to plain text), at most `max_bytes` bytes of it \
         (default 100000). Non-text content (images, archives, PDFs) is refused. Times out \
         after 30 s."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "http:// or https:// URL"},
                "max_bytes": {"type": "integer", "minimum": 1, "description": "Most body bytes to read (default 100000)"}
            },
            "required": ["url"],
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    fn timeout(&self, _input: &Value) -> Option<Duration> {
        Some(FETCH_TIMEOUT + Duration::from_secs(5))
    }
    fn summary(&self, input: &Value) -> String {
        one_line(optional_str(input, "url").unwrap_or("?"), 70)
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let url = match required_str(&input, "url") {
            Ok(u) => u.to_string(),
            Err(e) => return e,
        };
        let max_bytes = optional_u64(&input, "max_bytes")
            .map(|m| (m as usize).clamp(1, MAX_MAX_BYTES))
            .unwrap_or(DEFAULT_MAX_BYTES);
        tokio::select! {
            out = tokio::time::timeout(FETCH_TIMEOUT, fetch(&url, max_bytes, &ctx)) => match out {
                Ok(Ok(text)) => ToolOutput::ok(text),
                Ok(Err(e)) => ToolOutput::error(e),
                Err(_) => ToolOutput::error(format!(
                    "Error: fetching {url} timed out after {} s", FETCH_TIMEOUT.as_secs()
                )),
            },
            _ = ctx.cancel.cancelled() => ToolOutput::error("Error: the fetch was cancelled"),
        }
    }
}

async fn fetch(url: &str, max_bytes: usize, ctx: &ToolContext) -> Result<String, String> {
    let parsed =
        reqwest::Url::parse(url).map_err(|e| format!("Error: {url:?} is not a valid URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "Error: only http and https URLs can be fetched, not {}:",
            parsed.scheme()
        ));
    }
    let mut response = ctx
        .http
        .get(parsed)
        .header(
            reqwest::header::ACCEPT,
            "text/html, text/*;q=0.9, application/json;q=0.9, */*;q=0.1",
        )
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(|e| format!("Error: fetching {url} failed: {}", error_chain(&e)))?;
    let status = response.status();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !content_type.is_empty() && !is_text_type(&content_type) {
        if !status.is_success() {
            return Err(format!("Error: HTTP {status} from {url} ({content_type})"));
        }
        return Err(format!(
            "Error: {url} returned content type {content_type}, which is not text; web_fetch \
             only returns text"
        ));
    }
    let final_url = response.url().to_string();
    let mut body: Vec<u8> = Vec::new();
    let mut cut = false;
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("Error: reading {url} failed: {}", error_chain(&e)))?
    {
        let room = max_bytes - body.len();
        if chunk.len() >= room {
            body.extend_from_slice(&chunk[..room]);
            // More may follow; a body that ends exactly at the cap still counts as complete.
            cut = chunk.len() > room || response.chunk().await.ok().flatten().is_some();
            break;
        }
        body.extend_from_slice(&chunk);
    }
    if content_type.is_empty() && super::text::looks_binary(&body) {
        return Err(format!(
            "Error: {url} has no content type and looks binary; web_fetch only returns text"
        ));
    }
    let raw = String::from_utf8_lossy(&body);
    let text = if content_type.contains("html") {
        html::to_text(&raw)
    } else {
        raw.into_owned()
    };
    let mut out = format!(
        "{final_url} — HTTP {}{}\n\n{text}",
        status.as_u16(),
        if content_type.is_empty() {
            String::new()
        } else {
            format!(", {content_type}")
        }
    );
    if cut {
        out.push_str(&format!(
            "\n[body cut at {max_bytes} bytes; raise max_bytes to read more]"
        ));
    }
    if status.is_success() {
        Ok(out)
    } else {
        Err(format!("Error: HTTP {status}\n{out}"))
    }
}

fn is_text_type(content_type: &str) -> bool {
    let mime = content_type.split(';').next().unwrap_or("").trim();
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/toml"
                | "application/yaml"
                | "application/x-yaml"
                | "application/x-sh"
                | "application/ndjson"
                | "application/x-ndjson"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_types() {
        for t in [
            "text/html; charset=utf-8",
            "application/json",
            "application/ld+json",
        ] {
            assert!(is_text_type(t), "{t}");
        }
        for t in ["image/png", "application/octet-stream", "application/pdf"] {
            assert!(!is_text_type(t), "{t}");
        }
    }
}
