//! Token estimates without a tokenizer: ~4 bytes of the JSON a message is sent as per
//! token. Used for what was appended since the last response (whose usage is exact) and
//! after a compaction; the API's own count corrects it on the next response.

use crate::message::{ContentBlock, Message};

pub const BYTES_PER_TOKEN: u64 = 4;

pub fn bytes(n: usize) -> u64 {
    (n as u64).div_ceil(BYTES_PER_TOKEN)
}

/// Tokens of these messages as serialized for the API.
pub fn messages<M: std::borrow::Borrow<Message>>(messages: &[M]) -> u64 {
    messages
        .iter()
        .map(|m| bytes(serde_json::to_vec(m.borrow()).map_or(0, |v| v.len())))
        .sum()
}

/// Tokens of the part every request repeats: system prompt and tool definitions.
pub fn fixed(system: &str, tools: &crate::tools::ToolRegistry) -> u64 {
    // Deferred tools not found yet are not sent.
    let hidden = tools.deferral().map_or(0, |d| d.stats().deferred_tokens);
    bytes(system.len()) + bytes(tools.specs_json_len()).saturating_sub(hidden)
}

/// The tool definitions' tokens: those sent and those deferral holds back.
pub fn tool_tokens(tools: &crate::tools::ToolRegistry) -> crate::protocol::compaction::ToolTokens {
    let stats = tools.deferral().map(|d| d.stats()).unwrap_or_default();
    crate::protocol::compaction::ToolTokens {
        loaded: bytes(tools.specs_json_len()).saturating_sub(stats.deferred_tokens),
        loaded_count: tools.names().count().saturating_sub(stats.deferred),
        deferred: stats.deferred_tokens,
        deferred_count: stats.deferred,
    }
}

/// What an image costs, roughly: the API bills width × height / 750 tokens and scales
/// images down to about 1.15 megapixels, so at most ~1,600 (the bytes say nothing).
const IMAGE_TOKENS: u64 = 1_600;

/// Tokens of one content block's payload.
pub fn block(b: &ContentBlock) -> u64 {
    match b {
        ContentBlock::Text { text, .. } => bytes(text.len()),
        ContentBlock::Thinking { thinking, .. } => bytes(thinking.len()),
        ContentBlock::RedactedThinking { data } => bytes(data.len()),
        ContentBlock::ToolUse { input, .. } => bytes(input.to_string().len()),
        ContentBlock::ToolResult {
            content, images, ..
        } => bytes(content.len()) + IMAGE_TOKENS * images.len() as u64,
        ContentBlock::Image { .. } => IMAGE_TOKENS,
        ContentBlock::Other(v) => bytes(v.to_string().len()),
    }
}
