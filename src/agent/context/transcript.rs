//! The conversation as plain text, for the summary request.
//!
//! The summary request carries the history as one user message of text rather than as the
//! original tool_use/tool_result blocks: no tools are offered to it, and APIs (Bedrock,
//! some gateways) refuse tool blocks in a request without tool definitions. Long tool
//! results are cut; if the whole still exceeds the room, the middle is left out (the
//! start holds the user's original request, the end the work in progress).
//!
//! An earlier summary message is rendered as its summary alone: its state block is stale
//! and the summary request carries a fresh one, so blocks never nest.

use crate::message::markers::summary;
use crate::message::{ContentBlock, Message, Role};
use crate::text::ellipsize;

/// Tool result bytes kept per result in the transcript.
const RESULT_BYTES: usize = 2_000;
const INPUT_BYTES: usize = 500;

/// Renders `history`, at most `max_bytes` long.
pub fn render<M: std::borrow::Borrow<Message>>(history: &[M], max_bytes: usize) -> String {
    let mut out = String::new();
    for m in history.iter().map(std::borrow::Borrow::borrow) {
        let who = match m.role {
            Role::User => "User",
            Role::Assistant => "Assistant",
        };
        let earlier_summary = summary::is_summary(m);
        for (i, b) in m.content.iter().enumerate() {
            match b {
                ContentBlock::Text { text, .. } if i == 0 && earlier_summary => {
                    let summary = summary::parse(text).map_or("", |s| s.summary);
                    out.push_str(&format!(
                        "Summary of the part before (from an earlier compaction): {summary}\n\n"
                    ))
                }
                ContentBlock::Text { text, .. } => out.push_str(&format!("{who}: {text}\n\n")),
                ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => {}
                ContentBlock::Image { source } => {
                    out.push_str(&format!("{who}: [image, {}]\n\n", source.media_type))
                }
                ContentBlock::Other(v) => out.push_str(&format!(
                    "{who} (server tool): {}\n\n",
                    crate::message::server::summary(v)
                )),
                ContentBlock::ToolUse { name, input, .. } => out.push_str(&format!(
                    "Assistant called tool {name} with {}\n\n",
                    ellipsize(&input.to_string(), INPUT_BYTES)
                )),
                ContentBlock::ToolResult {
                    content, is_error, ..
                } => out.push_str(&format!(
                    "Tool {}: {}\n\n",
                    if *is_error { "error" } else { "result" },
                    ellipsize(content, RESULT_BYTES)
                )),
            }
        }
    }
    if out.len() <= max_bytes {
        return out;
    }
    let head = crate::text::floor_boundary(&out, max_bytes / 5);
    let tail_len = max_bytes.saturating_sub(head + 100);
    let mut tail_start = out.len() - tail_len.min(out.len());
    while !out.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    format!(
        "{}\n\n[… {} bytes of the conversation left out …]\n\n{}",
        &out[..head],
        tail_start - head,
        &out[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_transcripts_keep_start_and_end() {
        let mut h = vec![Message::user_text("the original request")];
        for i in 0..200 {
            h.push(Message::assistant(vec![ContentBlock::text(format!(
                "step {i} {}",
                "é".repeat(100)
            ))]));
            h.push(Message::user_text(format!("ok {i}")));
        }
        let t = render(&h, 5_000);
        assert!(t.len() <= 5_200, "{}", t.len());
        assert!(t.contains("the original request"));
        assert!(t.contains("ok 199"));
        assert!(t.contains("left out"));
    }

    #[test]
    fn an_earlier_summary_is_shown_without_its_state_block() {
        let first = Message::user(vec![
            ContentBlock::text(summary::render("S1", "Request 1: old facts")),
            ContentBlock::text("and then"),
        ]);
        let t = render(&[first], 10_000);
        assert!(t.contains("earlier compaction): S1"), "{t}");
        assert!(t.contains("User: and then"));
        assert!(!t.contains("old facts"), "{t}");
    }
}
