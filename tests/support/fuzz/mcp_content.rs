//! `mcp_content`: what an MCP server sends for a prompt (`prompts/get` messages) or a resource
//! (`resources/read` contents), made into the blocks of the user's message, and the answer a
//! model gives a prompt hook (`{"ok": …}`), read into a decision. Byte 0 picks the reader; the
//! rest is its JSON (or, not being JSON, the text it would carry). Never a panic, never an
//! empty text block (the API refuses one), a text resource's body always in its block, and a
//! prompt hook blocks only on an answer that says `"ok": false`, always with a reason.

use serde_json::{Value, json};
use tooloop::hooks::HookDecision;
use tooloop::message::ContentBlock;

use super::MAX_INPUT;

fn no_empty_text(blocks: &[ContentBlock], from: &Value) {
    for b in blocks {
        if let ContentBlock::Text { text, .. } = b {
            assert!(!text.is_empty(), "an empty text block from {from}");
        }
    }
}

pub fn mcp_content(data: &[u8]) {
    if data.is_empty() || data.len() > MAX_INPUT {
        return;
    }
    let rest = &data[1..];
    let lossy = String::from_utf8_lossy(rest).into_owned();
    match data[0] % 3 {
        0 => {
            let message: Value = serde_json::from_slice(rest).unwrap_or_else(
                |_| json!({"role": "user", "content": {"type": "text", "text": lossy}}),
            );
            let blocks = tooloop::mcp::content::prompt_blocks("fx", &message);
            no_empty_text(&blocks, &message);
            let assistant = message.get("role").and_then(Value::as_str) == Some("assistant");
            if assistant && let Some(ContentBlock::Text { text, .. }) = blocks.first() {
                assert!(text.starts_with("(assistant) "), "{text:?} from {message}");
            }
        }
        1 => {
            let contents: Value = serde_json::from_slice(rest)
                .unwrap_or_else(|_| json!({"uri": "fx://a", "text": lossy}));
            let blocks = tooloop::mcp::content::resource_blocks("fx:fx://a", &contents);
            assert!(!blocks.is_empty(), "no block for {contents}");
            no_empty_text(&blocks, &contents);
            if let Some(body) = contents.get("text").and_then(Value::as_str) {
                let body = body.strip_suffix('\n').unwrap_or(body);
                let Some(ContentBlock::Text { text, .. }) = blocks.first() else {
                    panic!("a text resource without its text block: {contents}");
                };
                assert!(text.contains(body), "{body:?} missing from {text:?}");
            }
        }
        _ => {
            let v = tooloop::hooks::prompt::read_answer(&lossy);
            match v.decision {
                HookDecision::Deny => {
                    assert!(
                        v.reason.as_deref().is_some_and(|r| !r.trim().is_empty()),
                        "a block without a reason from {lossy:?}"
                    );
                    assert!(lossy.contains("false"), "a block from {lossy:?}");
                }
                HookDecision::None => {}
                other => panic!("a prompt hook answered {other:?} from {lossy:?}"),
            }
        }
    }
}
