//! Micro-compaction: old, large tool results become one-line stubs.
//!
//! Clearing a result changes the cached prefix from that message on, so the next request
//! writes the rest of the history to the cache again (1.25× input price once). It therefore
//! runs only when it pays: the context is past half the auto-compaction threshold, and the
//! results it would clear free at least a tenth of the window together. The last
//! [`KEEP_RECENT`] tool-result messages are never touched (the model is working with them),
//! nor results under [`MIN_BYTES`]. The tool_use/tool_result pairs stay, so history stays
//! valid; the stub names the tool, its input and the size cleared.

use crate::message::markers::tool_results;
use crate::message::{ContentBlock, Message, Role};

use super::estimate;

/// Tool-result messages at the end of history left alone.
pub const KEEP_RECENT: usize = 3;
/// Results smaller than this (bytes) are not worth a cache rewrite.
pub const MIN_BYTES: usize = 2_000;

/// What one pass changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleared {
    /// Indices of the messages rewritten, ascending.
    pub indices: Vec<usize>,
    pub results: usize,
    pub freed_tokens: u64,
}

/// Clears old large tool results when the context (`tokens`) is past half of `threshold`
/// and doing so frees at least `window / 10` tokens. None: nothing changed.
pub fn microcompact(
    history: &mut [std::sync::Arc<Message>],
    tokens: u64,
    threshold: u64,
    window: u64,
) -> Option<Cleared> {
    if tokens <= threshold / 2 {
        return None;
    }
    let result_msgs: Vec<usize> = history
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m.role == Role::User
                && m.content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
        })
        .map(|(i, _)| i)
        .collect();
    let old = &result_msgs[..result_msgs.len().saturating_sub(KEEP_RECENT)];
    let mut plan: Vec<(usize, usize, String)> = Vec::new();
    let mut freed = 0u64;
    for &i in old {
        for (j, block) in history[i].content.iter().enumerate() {
            let ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } = block
            else {
                continue;
            };
            if content.len() < MIN_BYTES || tool_results::is_cleared(content) {
                continue;
            }
            let stub = stub_for(
                history.get(i.wrapping_sub(1)).map(|m| &**m),
                tool_use_id,
                content.len(),
            );
            freed += estimate::bytes(content.len()).saturating_sub(estimate::bytes(stub.len()));
            plan.push((i, j, stub));
        }
    }
    if plan.is_empty() || freed < window / 10 {
        return None;
    }
    let mut indices: Vec<usize> = Vec::new();
    for (i, j, stub) in &plan {
        if let ContentBlock::ToolResult { content, .. } =
            &mut std::sync::Arc::make_mut(&mut history[*i]).content[*j]
        {
            *content = stub.clone();
        }
        if indices.last() != Some(i) {
            indices.push(*i);
        }
    }
    Some(Cleared {
        indices,
        results: plan.len(),
        freed_tokens: freed,
    })
}

/// "[tool result cleared to save context: read_file {"path":"a.rs"} returned 12345 bytes.
/// Call the tool again if you need it.]"
fn stub_for(asker: Option<&Message>, id: &str, size: usize) -> String {
    let call = asker
        .and_then(|m| m.tool_uses().find(|(uid, _, _)| *uid == id))
        .map(|(_, name, input)| {
            format!("{name} {}", crate::text::ellipsize(&input.to_string(), 120))
        })
        .unwrap_or_else(|| "a tool call".into());
    tool_results::cleared(&call, size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::validate_history;
    use serde_json::json;

    fn turn(i: usize, size: usize) -> [Message; 2] {
        let id = format!("t{i}");
        [
            Message::assistant(vec![ContentBlock::ToolUse {
                id: id.clone(),
                name: "read_file".into(),
                input: json!({"path": format!("f{i}.rs")}),
            }]),
            Message::user(vec![ContentBlock::tool_result(id, "x".repeat(size), false)]),
        ]
    }

    fn history(n: usize, size: usize) -> Vec<std::sync::Arc<Message>> {
        let mut h = vec![Message::user_text("go")];
        for i in 0..n {
            h.extend(turn(i, size));
        }
        h.into_iter().map(std::sync::Arc::new).collect()
    }

    #[test]
    fn clears_old_large_results_and_keeps_the_recent_ones() {
        let mut h = history(10, 8_000);
        let c = microcompact(&mut h, 19_000, 20_000, 20_000).expect("cleared");
        assert_eq!(c.results, 10 - KEEP_RECENT);
        assert_eq!(validate_history(&h), Ok(()));
        let ContentBlock::ToolResult { content, .. } = &h[2].content[0] else {
            panic!()
        };
        assert!(tool_results::is_cleared(content), "{content}");
        assert!(content.contains("read_file") && content.contains("f0.rs"));
        assert!(content.contains("8000 bytes"));
        let ContentBlock::ToolResult { content, .. } = &h[20].content[0] else {
            panic!()
        };
        assert_eq!(content.len(), 8_000);
        // A second pass finds nothing more to clear.
        assert_eq!(microcompact(&mut h, 19_000, 20_000, 20_000), None);
    }

    #[test]
    fn does_nothing_when_there_is_room_or_little_to_gain() {
        let mut h = history(10, 8_000);
        assert_eq!(microcompact(&mut h, 5_000, 20_000, 20_000), None);
        let mut small = history(10, 2_100);
        // 7 × ~500 tokens freed < 10 % of a 200k window.
        assert_eq!(microcompact(&mut small, 150_000, 170_000, 200_000), None);
    }
}
