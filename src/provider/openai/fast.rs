//! A typed fast path for the chunk that makes up nearly all of a stream: one choice whose
//! delta carries only `content`. A `Value` tree per chunk capped decoding near 130 MB/s;
//! anything else (tool calls, reasoning, a finish_reason, usage, errors, several choices,
//! odd field types) answers None and takes the general path in `stream.rs`.

use serde::Deserialize;
use serde::de::IgnoredAny;

#[derive(Deserialize)]
struct Chunk {
    error: Option<IgnoredAny>,
    usage: Option<IgnoredAny>,
    #[serde(default)]
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    delta: Option<Delta>,
    message: Option<IgnoredAny>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
    reasoning_content: Option<IgnoredAny>,
    reasoning: Option<IgnoredAny>,
    tool_calls: Option<IgnoredAny>,
}

/// `Some(content)` when `data` is a plain content chunk (content may be absent or empty:
/// nothing to do, as in the general path); None when the general path must decide.
pub fn plain_text(data: &str) -> Option<Option<String>> {
    let chunk: Chunk = serde_json::from_str(data).ok()?;
    if chunk.error.is_some() || chunk.usage.is_some() || chunk.choices.len() > 1 {
        return None;
    }
    let Some(choice) = chunk.choices.into_iter().next() else {
        return Some(None);
    };
    if choice.message.is_some() || choice.finish_reason.is_some() {
        return None;
    }
    let Some(delta) = choice.delta else {
        return Some(None);
    };
    if delta.reasoning_content.is_some() || delta.reasoning.is_some() || delta.tool_calls.is_some()
    {
        return None;
    }
    Some(delta.content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_content_chunks_take_the_fast_path() {
        let plain = r#"{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"hé \"x\""},"logprobs":null,"finish_reason":null}]}"#;
        assert_eq!(plain_text(plain), Some(Some("hé \"x\"".into())));
        assert_eq!(
            plain_text(r#"{"choices":[{"delta":{"content":null}}]}"#),
            Some(None)
        );
        for general in [
            r#"{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}"#,
            r#"{"choices":[{"delta":{"reasoning_content":"r"}}]}"#,
            r#"{"choices":[{"delta":{"content":5}}]}"#,
            r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1}}"#,
            r#"{"error":{"message":"boom"}}"#,
            r#"{"choices":[{"message":{"content":"whole"}}]}"#,
            "not json",
        ] {
            assert_eq!(plain_text(general), None, "{general}");
        }
    }
}
