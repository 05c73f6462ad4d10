//! The user message that stands for the compacted part of a conversation: a header, the
//! model's summary, the state block tooloop built, and a footer. Written and read here only,
//! so every reader (the next compaction, the TUI, resume) agrees on its shape.

use super::state_block::{STATE_CLOSE, STATE_OPEN};
use crate::message::{ContentBlock, Message, Role};

/// Marks the user message that replaces the earlier part of the conversation.
pub const SUMMARY_HEADER: &str = "[Summary of an earlier part of this session] The \
conversation so far was compacted to fit the context window. This summary replaces the \
earlier messages; the most recent messages follow verbatim.";

const SUMMARY_FOOTER: &str = "Continue the user's request from where it left off, using \
the summary, the recorded state and the messages after it. Do not ask the user to repeat \
anything.";

const SUMMARY_OPEN: &str = "<summary>\n";
const SUMMARY_CLOSE: &str = "\n</summary>";

/// The text of a summary message.
pub fn text(summary: &str, state: &str) -> String {
    format!(
        "{SUMMARY_HEADER}\n\n{SUMMARY_OPEN}{summary}{SUMMARY_CLOSE}\n\n{STATE_OPEN}\n{state}\n\
         {STATE_CLOSE}\n\n{SUMMARY_FOOTER}"
    )
}

/// The model's summary inside a summary message's text, if it is one.
pub fn summary_text(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(SUMMARY_HEADER)?;
    let start = rest.find(SUMMARY_OPEN)? + SUMMARY_OPEN.len();
    // The state block follows the summary (older transcripts have none).
    let state_at = format!("{SUMMARY_CLOSE}\n\n{STATE_OPEN}\n");
    let end = match rest.rfind(&state_at) {
        Some(i) if i >= start => i,
        _ => rest.rfind(SUMMARY_CLOSE)?,
    };
    rest.get(start..end)
}

/// The state block inside a summary message's text, if it has one.
pub fn state_text(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(SUMMARY_HEADER)?;
    let open = format!("{SUMMARY_CLOSE}\n\n{STATE_OPEN}\n");
    let start = rest.rfind(&open)? + open.len();
    let end = rest.rfind(&format!("\n{STATE_CLOSE}"))?;
    rest.get(start..end.max(start))
}

/// Whether a user message is a compaction summary.
pub fn is_summary(m: &Message) -> bool {
    m.role == Role::User
        && matches!(m.content.first(), Some(ContentBlock::Text { text, .. }) if text.starts_with(SUMMARY_HEADER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_state_read_back() {
        let t = text("the summary\n</summary>", "Requests: \"\"\"a\"\"\"");
        assert_eq!(summary_text(&t), Some("the summary\n</summary>"));
        assert_eq!(state_text(&t), Some("Requests: \"\"\"a\"\"\""));
        assert!(is_summary(&Message::user_text(t)));
        // A summary message from before state blocks.
        let old = format!("{SUMMARY_HEADER}\n\n<summary>\nS\n</summary>\n\nContinue.");
        assert_eq!(summary_text(&old), Some("S"));
        assert_eq!(state_text(&old), None);
        assert_eq!(summary_text("not a summary"), None);
    }
}
