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
}
