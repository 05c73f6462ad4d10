//! Text tooloop itself writes into a history, rendered and parsed in one place (DESIGN.md
//! §13): the loop, the executor, the tools and a resumed transcript's repair render it;
//! front ends, export, replay, the context and the demo provider only parse it. The strings
//! are part of saved transcripts and recordings: changing one breaks loading them, so they
//! are fixed here, each renderer beside its parser.
//!
//! Here: the interrupt markers. Beside: the compaction summary ([`summary`]), `@file`
//! blocks ([`mention`]), a `!command` ([`shell`]), a background job's notice ([`job`]), and
//! the words of tool results that are read back ([`tool_results`]).

pub mod job;
pub mod mention;
pub mod shell;
pub mod skill;
pub mod summary;
pub mod tool_results;

use super::ContentBlock;

/// The text block left in history after Ctrl+C, so the model knows why it was cut off.
pub const INTERRUPT_MARKER: &str = "[interrupted by user]";

/// The result of a tool call that was stopped (Ctrl+C, a cancelled subagent).
pub const INTERRUPTED: &str = "interrupted by user";

/// The result of a call a transcript left unanswered (tooloop stopped before the tool
/// finished), as the repair on `--resume` writes it.
pub const INTERRUPTED_TOOL: &str = "interrupted: tooloop stopped before this tool finished";

/// The interrupt marker as a text block.
pub fn interrupt_block() -> ContentBlock {
    ContentBlock::text(INTERRUPT_MARKER)
}

/// Whether a text block is the interrupt marker.
pub fn is_interrupt(text: &str) -> bool {
    text == INTERRUPT_MARKER
}

/// A text block of a user message that tooloop wrote, not the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker<'a> {
    Interrupt,
    Summary(summary::Summary<'a>),
    /// An `@file` block or its refusal, as one line.
    Mention(String),
    /// A `!command` the user ran: the command as typed and the first lines of its output.
    Shell {
        command: String,
        output: String,
    },
    /// A background job's notice, with the job's id.
    JobNotice(&'a str),
    /// The skill a user's `/NAME` brought in: its name (the text is for the model).
    Skill(&'a str),
}

/// What a user message's text block is, if tooloop wrote it.
pub fn parse(text: &str) -> Option<Marker<'_>> {
    if is_interrupt(text) {
        return Some(Marker::Interrupt);
    }
    if let Some(s) = summary::parse(text) {
        return Some(Marker::Summary(s));
    }
    if let Some(label) = mention::label(text) {
        return Some(Marker::Mention(label));
    }
    if let Some((command, output)) = shell::parse(text) {
        return Some(Marker::Shell { command, output });
    }
    if let Some((name, _)) = skill::parse_user_skill(text) {
        return Some(Marker::Skill(name));
    }
    job::parse(text).map(Marker::JobNotice)
}

pub use skill::{parse_user_skill, user_skill};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_marker_is_read_back_as_what_it_is() {
        let ContentBlock::Text { text, .. } = interrupt_block() else {
            panic!("a text block");
        };
        assert!(is_interrupt(&text));
        assert!(!is_interrupt("[interrupted by user] and more"));
        // The spellings saved transcripts hold.
        assert_eq!(INTERRUPT_MARKER, "[interrupted by user]");
        assert_eq!(INTERRUPTED, "interrupted by user");
    }

    #[test]
    fn parse_tells_each_marker_from_a_prompt() {
        assert_eq!(parse(INTERRUPT_MARKER), Some(Marker::Interrupt));
        assert!(matches!(
            parse(&summary::render("S", "F")),
            Some(Marker::Summary(s)) if s.summary == "S"
        ));
        let block = mention::refused_block(&mention::refused("a", "why"));
        assert!(matches!(parse(&block), Some(Marker::Mention(_))));
        assert!(matches!(
            parse(&shell::render("ls", "a", false)),
            Some(Marker::Shell { command, .. }) if command == "!ls"
        ));
        let notice = job::notice("b1", "make", "exited with code 0", &[]);
        assert_eq!(parse(&notice), Some(Marker::JobNotice("b1")));
        for prompt in ["read Cargo.toml", "[x] a list", "File this bug", "!ls"] {
            assert_eq!(parse(prompt), None, "{prompt}");
        }
    }
}
