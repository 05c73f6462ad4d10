//! The block a user's `/NAME args` adds for skill NAME after the prompt as typed: the
//! command's name (as Claude Code tags it) and the skill's text, on the user's side of the
//! history, so nothing is written as if the model had said it.

use crate::message::ContentBlock;

const SKILL_OPEN: &str = "<command-name>";
const SKILL_CLOSE: &str = "</command-name>";

pub fn user_skill(name: &str, text: &str) -> ContentBlock {
    ContentBlock::text(format!("{SKILL_OPEN}/{name}{SKILL_CLOSE}\n{text}"))
}

/// A block [`user_skill`] wrote: (the skill's name, its text).
pub fn parse_user_skill(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix(SKILL_OPEN)?.strip_prefix('/')?;
    let (name, rest) = rest.split_once(SKILL_CLOSE)?;
    Some((name, rest.strip_prefix('\n')?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_block_reads_back_as_its_name_and_text() {
        let ContentBlock::Text { text, .. } = user_skill("pdf", "Skill pdf\n\nbody") else {
            panic!("a text block");
        };
        assert_eq!(text, "<command-name>/pdf</command-name>\nSkill pdf\n\nbody");
        assert_eq!(parse_user_skill(&text), Some(("pdf", "Skill pdf\n\nbody")));
        assert_eq!(parse_user_skill("/pdf please"), None);
    }
}
