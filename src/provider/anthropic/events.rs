//! The fields of the Messages API's stream events that the decoder (`stream.rs`) reads:
//! the typed fast path for `content_block_delta` (nearly every event of a stream), which
//! field carries each delta's payload, the event names the API sends, and its usage counts.

use serde_json::Value;

use crate::provider::Usage;

/// The field that carries a delta's payload.
// `#[inline]` on the helpers of the per-event path: they sit in another module (another
// codegen unit) than the decoder that calls them for every event.
#[inline]
pub(super) fn delta_field(kind: &str) -> &'static str {
    match kind {
        "text_delta" => "text",
        "thinking_delta" => "thinking",
        "signature_delta" => "signature",
        "input_json_delta" => "partial_json",
        _ => "",
    }
}

/// A content_block_delta event, for the typed fast path. Unknown fields are ignored, as
/// in the `Value` path; a field of the wrong type fails the parse and falls back to it.
#[derive(serde::Deserialize)]
pub(super) struct WireDelta<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) ty: std::borrow::Cow<'a, str>,
    pub(super) index: usize,
    #[serde(borrow)]
    pub(super) delta: WireDeltaBody<'a>,
}

#[derive(serde::Deserialize)]
pub(super) struct WireDeltaBody<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) ty: std::borrow::Cow<'a, str>,
    text: Option<String>,
    thinking: Option<String>,
    signature: Option<String>,
    partial_json: Option<String>,
}

impl<'a> WireDeltaBody<'a> {
    /// The kind and its payload ("" when absent, like `as_str().unwrap_or("")`).
    #[inline]
    pub(super) fn field(self) -> (std::borrow::Cow<'a, str>, String) {
        let value = match self.ty.as_ref() {
            "text_delta" => self.text,
            "thinking_delta" => self.thinking,
            "signature_delta" => self.signature,
            "input_json_delta" => self.partial_json,
            _ => None,
        };
        (self.ty, value.unwrap_or_default())
    }
}

#[inline]
pub(super) fn is_known(name: &str) -> bool {
    matches!(
        name,
        "message_start"
            | "content_block_start"
            | "content_block_delta"
            | "content_block_stop"
            | "message_delta"
            | "message_stop"
            | "error"
    )
}

pub(super) fn usage(u: &Value) -> Usage {
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    Usage {
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        cache_read_tokens: n("cache_read_input_tokens"),
        cache_write_tokens: n("cache_creation_input_tokens"),
        web_search_requests: u["server_tool_use"]["web_search_requests"]
            .as_u64()
            .unwrap_or(0),
    }
}
