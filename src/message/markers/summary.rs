//! The user message that stands for the compacted part of a conversation: a header, the
//! model's summary, the state block tooloop built, and a footer. Every reader (the next
//! compaction, the TUI, resume) agrees on its shape because it is written and read here.

use crate::message::{ContentBlock, Message, Role};

/// Marks the user message that replaces the earlier part of the conversation.
pub const HEADER: &str = "[Summary of an earlier part of this session] The \
conversation so far was compacted to fit the context window. This summary replaces the \
earlier messages; the most recent messages follow verbatim.";

const FOOTER: &str = "Continue the user's request from where it left off, using \
the summary, the recorded state and the messages after it. Do not ask the user to repeat \
anything.";

const OPEN: &str = "<summary>\n";
const CLOSE: &str = "\n</summary>";

/// Encloses the state block tooloop builds from its recorded facts.
pub const STATE_OPEN: &str = "<state>";
pub const STATE_CLOSE: &str = "</state>";

/// A summary message read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary<'a> {
    /// The model's summary.
    pub summary: &'a str,
    /// The state block's text; None in transcripts from before state blocks.
    pub state: Option<&'a str>,
}

/// The text of a summary message.
pub fn render(summary: &str, state: &str) -> String {
    format!(
        "{HEADER}\n\n{OPEN}{summary}{CLOSE}\n\n{STATE_OPEN}\n{state}\n{STATE_CLOSE}\n\n{FOOTER}"
    )
}

/// The summary and state block of a summary message's text; None for any other text.
pub fn parse(text: &str) -> Option<Summary<'_>> {
    let rest = text.strip_prefix(HEADER)?;
    let start = rest.find(OPEN)? + OPEN.len();
    // The state block follows the summary; rfind, as the summary may hold the tags itself.
    let state_at = format!("{CLOSE}\n\n{STATE_OPEN}\n");
    let (end, state) = match rest.rfind(&state_at) {
        Some(i) if i >= start => {
            let from = i + state_at.len();
            let to = rest.rfind(&format!("\n{STATE_CLOSE}"))?.max(from);
            (i, rest.get(from..to))
        }
        _ => (rest.rfind(CLOSE)?, None),
    };
    Some(Summary {
        summary: rest.get(start..end)?,
        state,
    })
}

/// Whether a user message is a compaction summary.
pub fn is_summary(m: &Message) -> bool {
    m.role == Role::User
        && matches!(m.content.first(), Some(ContentBlock::Text { text, .. }) if text.starts_with(HEADER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_reads_back_with_its_state() {
        let t = render("the summary\n</summary>", "Requests: \"\"\"a\"\"\"");
        let s = parse(&t).expect("a summary");
        assert_eq!(s.summary, "the summary\n</summary>");
        assert_eq!(s.state, Some("Requests: \"\"\"a\"\"\""));
        assert!(is_summary(&Message::user_text(t)));
        assert_eq!(parse("not a summary"), None);
        assert!(!is_summary(&Message::user_text(
            "[Summary of an earlier part"
        )));
    }

    #[test]
    fn a_saved_summary_from_before_state_blocks_still_reads() {
        let old = "[Summary of an earlier part of this session] The conversation so far was \
                   compacted to fit the context window. This summary replaces the earlier \
                   messages; the most recent messages follow verbatim.\n\n<summary>\nS\n\
                   </summary>\n\nContinue.";
        assert_eq!(
            parse(old),
            Some(Summary {
                summary: "S",
                state: None
            })
        );
    }

    #[test]
    fn the_saved_text_is_unchanged() {
        // Sessions saved before this module must keep loading: the exact text, once.
        assert_eq!(
            render("S", "F"),
            format!(
                "{HEADER}\n\n<summary>\nS\n</summary>\n\n<state>\nF\n</state>\n\nContinue the \
                 user's request from where it left off, using the summary, the recorded state \
                 and the messages after it. Do not ask the user to repeat anything."
            )
        );
    }
}
