//! The mock's prompt-cache and context-window rules, like the Messages API's.
//!
//! - At most 4 blocks may carry `cache_control` (400 otherwise, the API's wording); never
//!   an empty text block or a thinking block. Checked on every request (`validate_cache`).
//! - With accounting on (`MockServer::enable_prompt_cache` / `set_context_window`), each
//!   accepted request is cut into canonical segments (each tool, the system prompt, each
//!   message block with its role; `cache_control` removed) and counted at 4 bytes a token.
//!   A breakpoint writes the exact bytes of the prefix up to its block (if at least
//!   `min_cacheable` tokens); a later request reads the longest written prefix found at a
//!   breakpoint or up to 20 blocks before one. The reply's message_start usage reports
//!   `input_tokens` (uncached), `cache_creation_input_tokens` and `cache_read_input_tokens`.
//! - With a context window, a request over it is answered 400 "prompt is too long: N tokens
//!   > M maximum" (no scripted reply consumed).

use std::collections::HashSet;

use serde_json::Value;

use super::reply::{Body, Reply, SseEvent};

pub const MAX_BREAKPOINTS: usize = 4;
/// How far before a breakpoint the API looks for a cached prefix.
const LOOKBACK_BLOCKS: usize = 20;

/// Token counts the mock reported for one request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accounted {
    pub input: u64,
    pub cache_write: u64,
    pub cache_read: u64,
}

impl Accounted {
    pub fn total(&self) -> u64 {
        self.input + self.cache_write + self.cache_read
    }
}

#[derive(Debug, Default)]
pub struct Accounting {
    /// Prefixes written at breakpoints, by their exact canonical bytes.
    written: HashSet<String>,
    pub window: Option<u64>,
    pub caching: bool,
    pub min_cacheable: u64,
}

impl Accounting {
    pub fn new() -> Self {
        Accounting {
            min_cacheable: 1024,
            ..Default::default()
        }
    }

    /// Counts a request; Err(reply) when it is over the window.
    pub fn account(&mut self, body: &Value) -> Result<Accounted, Reply> {
        let segments = segments(body);
        let mut full = String::new();
        let mut ends = Vec::with_capacity(segments.len());
        for (text, _) in &segments {
            full.push_str(text);
            ends.push(full.len());
        }
        let tokens = |bytes: usize| (bytes as u64).div_ceil(4);
        let total = tokens(full.len());
        if let Some(w) = self.window
            && total > w
        {
            return Err(Reply::error(
                400,
                "invalid_request_error",
                &format!("prompt is too long: {total} tokens > {w} maximum"),
            ));
        }
        if !self.caching {
            return Ok(Accounted {
                input: total,
                ..Default::default()
            });
        }
        let breakpoints: Vec<usize> = segments
            .iter()
            .enumerate()
            .filter(|(_, (_, bp))| *bp)
            .map(|(i, _)| i)
            .collect();
        let mut read_bytes = 0usize;
        for &bp in &breakpoints {
            for k in (bp.saturating_sub(LOOKBACK_BLOCKS)..=bp).rev() {
                if self.written.contains(&full[..ends[k]]) {
                    read_bytes = read_bytes.max(ends[k]);
                    break;
                }
            }
        }
        let mut write_bytes = 0usize;
        for &bp in &breakpoints {
            let end = ends[bp];
            if tokens(end) >= self.min_cacheable && end > read_bytes {
                self.written.insert(full[..end].to_string());
                write_bytes = write_bytes.max(end);
            }
        }
        let read = if read_bytes > 0 {
            tokens(read_bytes)
        } else {
            0
        };
        let write = if write_bytes > read_bytes {
            tokens(write_bytes) - read
        } else {
            0
        };
        Ok(Accounted {
            input: total - read - write,
            cache_write: write,
            cache_read: read,
        })
    }
}

/// The request cut into canonical segments, each with whether it carries a breakpoint.
fn segments(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut push = |prefix: &str, v: &Value| {
        let mut v = v.clone();
        let bp = match &mut v {
            Value::Object(m) => m.remove("cache_control").is_some(),
            _ => false,
        };
        out.push((format!("{prefix}{v}\u{1e}"), bp));
    };
    // A deferred definition is out of the prompt; a tool_reference is where it goes in.
    for t in body["tools"].as_array().into_iter().flatten() {
        if let Some(t) = super::anthropic_defer::tool_segment(t) {
            push("tool:", &t);
        }
    }
    let defs = super::anthropic_defer::definitions(body);
    match &body["system"] {
        Value::String(s) => push("system:", &serde_json::json!({"type": "text", "text": s})),
        Value::Array(blocks) => blocks.iter().for_each(|b| push("system:", b)),
        _ => {}
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        let role = m["role"].as_str().unwrap_or("?");
        match &m["content"] {
            Value::String(s) => push(
                &format!("{role}:"),
                &serde_json::json!({"type": "text", "text": s}),
            ),
            Value::Array(blocks) => blocks.iter().for_each(|b| {
                push(
                    &format!("{role}:"),
                    &super::anthropic_defer::expand(b, &defs),
                )
            }),
            _ => {}
        }
    }
    out
}

/// The API's checks on `cache_control` placement.
pub fn validate_cache(body: &Value) -> Result<(), String> {
    let mut found = 0;
    let count = |v: &Value| usize::from(v.get("cache_control").is_some());
    for t in body["tools"].as_array().into_iter().flatten() {
        found += count(t);
    }
    for b in body["system"].as_array().into_iter().flatten() {
        found += count(b);
    }
    for (i, m) in body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (j, b) in m["content"].as_array().into_iter().flatten().enumerate() {
            if b.get("cache_control").is_none() {
                continue;
            }
            found += 1;
            match b["type"].as_str() {
                Some("text") if b["text"].as_str().is_none_or(str::is_empty) => {
                    return Err(format!(
                        "messages.{i}.content.{j}.text: cache_control cannot be set for empty text blocks"
                    ));
                }
                Some(ty @ ("thinking" | "redacted_thinking")) => {
                    return Err(format!(
                        "messages.{i}.content.{j}.{ty}.cache_control: Extra inputs are not permitted"
                    ));
                }
                _ => {}
            }
        }
    }
    if found > MAX_BREAKPOINTS {
        return Err(format!(
            "A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."
        ));
    }
    Ok(())
}

/// Rewrites the usage of a reply's message_start event to `a`.
pub fn with_usage(mut reply: Reply, a: Accounted) -> Reply {
    let Body::Sse { events, .. } = &mut reply.body else {
        return reply;
    };
    for e in events.iter_mut() {
        let Ok(text) = std::str::from_utf8(&e.bytes) else {
            continue;
        };
        let Some(data) = text
            .strip_prefix("event: message_start\ndata: ")
            .map(|d| d.trim_end())
        else {
            continue;
        };
        let Ok(mut v) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        let u = &mut v["message"]["usage"];
        u["input_tokens"] = a.input.into();
        u["cache_creation_input_tokens"] = a.cache_write.into();
        u["cache_read_input_tokens"] = a.cache_read.into();
        let fresh = SseEvent::named("message_start", &v);
        e.bytes = fresh.bytes;
    }
    reply
}
