//! Text tooloop itself writes into a history, rendered and parsed in one place (DESIGN.md
//! §13): the loop, the executor and a resumed transcript's repair call `render`; front ends,
//! export, replay and the demo provider only call `parse`. The strings are part of saved
//! transcripts and recordings: changing one breaks loading them, so they are fixed here.

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

/// The block a user's `/NAME args` adds for skill NAME after the prompt as typed: the
/// command's name (as Claude Code tags it) and the skill's text, on the user's side of the
/// history, so nothing is written as if the model had said it.
pub fn user_skill(name: &str, text: &str) -> ContentBlock {
    ContentBlock::text(format!("{SKILL_OPEN}/{name}{SKILL_CLOSE}\n{text}"))
}

/// A block [`user_skill`] wrote: (the skill's name, its text).
pub fn parse_user_skill(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix(SKILL_OPEN)?.strip_prefix('/')?;
    let (name, rest) = rest.split_once(SKILL_CLOSE)?;
    Some((name, rest.strip_prefix('\n')?))
}

const SKILL_OPEN: &str = "<command-name>";
const SKILL_CLOSE: &str = "</command-name>";

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
        let ContentBlock::Text { text, .. } = user_skill("pdf", "Skill pdf\n\nbody") else {
            panic!("a text block");
        };
        assert_eq!(text, "<command-name>/pdf</command-name>\nSkill pdf\n\nbody");
        assert_eq!(parse_user_skill(&text), Some(("pdf", "Skill pdf\n\nbody")));
        assert_eq!(parse_user_skill("/pdf please"), None);
    }
}
