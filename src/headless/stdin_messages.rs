//! `--input-format stream-json` (CLI.md): user messages read from stdin while the turn
//! runs, one JSON object a line in Claude Code's shape
//! (`{"type":"user","message":{"role":"user","content":"..."}}`, the content a string or a
//! list of text blocks). Each is sent to the agent as steering. stdin is untrusted: a line
//! that is not such a message is named on stderr and skipped, never a panic.

use serde_json::Value;
use tokio::sync::mpsc;

/// Why a stdin line was not taken as a message.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LineError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error(
        "not a user message (expected {{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":…}}}})"
    )]
    NotUser,
    #[error("the message has no text")]
    NoText,
}

/// The user's words in one stdin line; None for a blank line.
pub fn parse_line(line: &str) -> Option<Result<String, LineError>> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Some(Err(LineError::NotJson(e.to_string()))),
    };
    if v["type"] != "user" || v["message"]["role"] != "user" {
        return Some(Err(LineError::NotUser));
    }
    let text = match &v["message"]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return Some(Err(LineError::NotUser)),
    };
    Some(if text.trim().is_empty() {
        Err(LineError::NoText)
    } else {
        Ok(text)
    })
}

/// Reads stdin on its own thread (a blocking read must not hold a runtime worker) until
/// EOF; each message arrives on the channel, which closes at EOF. Bad lines are reported
/// on stderr with their number.
pub fn start() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    let spawned = std::thread::Builder::new()
        .name("stdin-messages".into())
        .spawn(move || {
            use std::io::BufRead;
            for (n, line) in std::io::stdin().lock().lines().enumerate() {
                let Ok(line) = line else { break };
                let sent = match parse_line(&line) {
                    None => Ok(()),
                    Some(Ok(text)) => tx.send(text),
                    Some(Err(e)) => {
                        eprintln!("tooloop: stdin line {}: {e}; skipped", n + 1);
                        Ok(())
                    }
                };
                // The run is over: nobody reads further messages.
                if sent.is_err() {
                    break;
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("tooloop: cannot read stdin: {e}");
    }
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_shape_and_text_blocks_are_read_the_rest_is_named() {
        let line = r#"{"type":"user","message":{"role":"user","content":"look at b.rs"}}"#;
        assert_eq!(parse_line(line), Some(Ok("look at b.rs".into())));
        let blocks = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}"#;
        assert_eq!(parse_line(blocks), Some(Ok("a\nb".into())));
        assert_eq!(parse_line("  "), None);
        assert!(matches!(
            parse_line("{oops"),
            Some(Err(LineError::NotJson(_)))
        ));
        let assistant = r#"{"type":"assistant","message":{"role":"assistant","content":"x"}}"#;
        assert_eq!(parse_line(assistant), Some(Err(LineError::NotUser)));
        let empty = r#"{"type":"user","message":{"role":"user","content":" "}}"#;
        assert_eq!(parse_line(empty), Some(Err(LineError::NoText)));
        let odd = r#"{"type":"user","message":{"role":"user","content":5}}"#;
        assert_eq!(parse_line(odd), Some(Err(LineError::NotUser)));
    }
}
