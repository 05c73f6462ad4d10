//! What the Messages API refuses about extended thinking, with its wording: the `thinking`
//! parameter (budget ≥ 1024 and below max_tokens), thinking blocks that were not passed back
//! exactly as received, and, with thinking on, a tool loop whose last assistant turn lost its
//! thinking. (A reply ending in thinking is refused in anthropic_validate.rs.)
//!
//! Like the real API, the mock accepts back only blocks it issued: every thinking block a
//! `ReplyBuilder` streams (`.thinking(text, sig)`, `.signed_thinking(text)`) and every
//! redacted_thinking `data` is recorded here, and a block whose text, signature or data
//! differs from an issued one is refused. Hand-built bodies get issued blocks from [`sign`]
//! and [`redacted_data`].

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

const DOCS: &str = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/// (thinking, signature) pairs and redacted data the mock has issued, process-wide (the
/// server runs in the test's process).
#[derive(Default)]
struct Issued {
    thinking: HashSet<(String, String)>,
    redacted: HashSet<String>,
}

fn issued() -> std::sync::MutexGuard<'static, Issued> {
    static ISSUED: OnceLock<Mutex<Issued>> = OnceLock::new();
    ISSUED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Records a thinking block as issued by the API (ReplyBuilder calls this).
pub fn issue(thinking: &str, signature: &str) {
    issued()
        .thinking
        .insert((thinking.to_string(), signature.to_string()));
}

/// Records redacted_thinking data as issued by the API (ReplyBuilder calls this).
pub fn issue_redacted(data: &str) {
    issued().redacted.insert(data.to_string());
}

/// FNV-1a: stable across runs and platforms (std's hasher is not).
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A signature for a thinking block with this text, issued (so accepted back).
pub fn sign(thinking: &str) -> String {
    let sig = format!("EqMock{:016x}==", fnv(thinking));
    issue(thinking, &sig);
    sig
}

/// Opaque `data` for a redacted_thinking block, issued (so accepted back).
pub fn redacted_data(seed: &str) -> String {
    let data = format!("EmwMockRedacted{:016x}==", fnv(seed));
    issue_redacted(&data);
    data
}

fn signature_ok(thinking: &str, signature: &str) -> bool {
    issued()
        .thinking
        .contains(&(thinking.to_string(), signature.to_string()))
}

fn redacted_ok(data: &str) -> bool {
    issued().redacted.contains(data)
}

fn is_thinking(block: &Value) -> bool {
    matches!(
        block["type"].as_str(),
        Some("thinking" | "redacted_thinking")
    )
}

/// The API's checks, in its order: the parameter, then each block, then the tool loop.
pub fn validate(body: &Value) -> Result<(), String> {
    let enabled = validate_param(body)?;
    let Some(messages) = body["messages"].as_array() else {
        return Ok(());
    };
    for (i, msg) in messages.iter().enumerate() {
        let Some(content) = msg["content"].as_array() else {
            continue;
        };
        validate_blocks(i, msg["role"].as_str().unwrap_or(""), content)?;
    }
    if enabled {
        validate_tool_loop(messages)?;
    }
    Ok(())
}

/// `thinking: {"type": "enabled", "budget_tokens": N}` or `{"type": "disabled"}`; whether
/// thinking is on.
fn validate_param(body: &Value) -> Result<bool, String> {
    let Some(t) = body.get("thinking") else {
        return Ok(false);
    };
    match t["type"].as_str() {
        Some("disabled") => Ok(false),
        Some("enabled") => {
            let Some(budget) = t.get("budget_tokens") else {
                return Err("thinking.enabled.budget_tokens: Field required".into());
            };
            let Some(budget) = budget.as_u64() else {
                return Err(
                    "thinking.enabled.budget_tokens: Input should be a valid integer".into(),
                );
            };
            if budget < 1024 {
                return Err(
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
                        .into(),
                );
            }
            if body["max_tokens"].as_u64().unwrap_or(0) <= budget {
                return Err(format!(
                    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult \
                     our documentation at {DOCS}#max-tokens-and-context-window-size"
                ));
            }
            Ok(true)
        }
        other => Err(format!(
            "thinking.type: Input tag '{}' found using 'type' does not match any of the \
             expected tags: 'enabled', 'disabled'",
            other.unwrap_or("")
        )),
    }
}

fn validate_blocks(i: usize, role: &str, content: &[Value]) -> Result<(), String> {
    for (j, b) in content.iter().enumerate() {
        let ty = b["type"].as_str().unwrap_or("");
        if !is_thinking(b) {
            continue;
        }
        if role != "assistant" {
            return Err(format!(
                "messages.{i}.content.{j}: `{ty}` blocks are not allowed in {role} messages"
            ));
        }
        if ty == "thinking" {
            let Some(text) = b["thinking"].as_str() else {
                return Err(format!(
                    "messages.{i}.content.{j}.thinking.thinking: Field required"
                ));
            };
            let Some(sig) = b["signature"].as_str() else {
                return Err(format!(
                    "messages.{i}.content.{j}.thinking.signature: Field required"
                ));
            };
            if !signature_ok(text, sig) {
                return Err(format!(
                    "messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
                ));
            }
        } else if !b["data"].as_str().is_some_and(redacted_ok) {
            return Err(format!(
                "messages.{i}.content.{j}: Invalid `data` in `redacted_thinking` block"
            ));
        }
    }
    if content.iter().any(is_thinking) && !content.first().is_some_and(is_thinking) {
        let found = content
            .first()
            .and_then(|b| b["type"].as_str())
            .unwrap_or("");
        return Err(format!(
            "messages.{i}.content.0: If an assistant message contains any thinking blocks, \
             the first block must be thinking or redacted_thinking. Found {found}."
        ));
    }
    Ok(())
}

/// With thinking on, a request that continues a tool loop (its last message carries
/// tool_result blocks) must pass back the thinking of the assistant turn that asked for
/// those tools: that message must start with a thinking block.
fn validate_tool_loop(messages: &[Value]) -> Result<(), String> {
    let Some(last) = messages.last() else {
        return Ok(());
    };
    let has_results = last["role"] == "user"
        && last["content"]
            .as_array()
            .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"));
    if !has_results || messages.len() < 2 {
        return Ok(());
    }
    let i = messages.len() - 2;
    let first = messages[i]["content"].as_array().and_then(|c| c.first());
    if first.is_some_and(is_thinking) {
        return Ok(());
    }
    let found = first.and_then(|b| b["type"].as_str()).unwrap_or("text");
    Err(format!(
        "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found \
         `{found}`. When `thinking` is enabled, a final `assistant` message must start with a \
         thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). \
         We recommend you include thinking blocks from previous turns. To avoid this \
         requirement, disable `thinking`. Please consult our documentation at {DOCS}"
    ))
}
