//! The one block of skill names and descriptions the model sees (in the `skill` tool's
//! description), capped at 2 % of the context window: past the cap the rest are only named
//! as left out, and `/skills` says so.

use super::Skill;

/// The share of the context window the listing may take, in percent.
pub const CAP_PERCENT: u64 = 2;
/// Bytes per token, as the context estimate counts them.
const BYTES_PER_TOKEN: u64 = 4;

/// The listing and the names left out for room.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    pub text: String,
    pub left_out: Vec<String>,
}

/// The cap in bytes for a context window of `window_tokens`.
pub fn cap_bytes(window_tokens: u64) -> usize {
    (window_tokens * CAP_PERCENT / 100 * BYTES_PER_TOKEN) as usize
}

/// `- NAME: DESCRIPTION` lines of the model-invocable skills, in name order, within `cap`
/// bytes including the line that names what was left out.
pub fn build(skills: &[Skill], cap: usize) -> Listing {
    let offered: Vec<&Skill> = skills.iter().filter(|s| s.model_invocable).collect();
    let mut text = String::new();
    let mut left_out = Vec::new();
    for (i, s) in offered.iter().enumerate() {
        let line = format!("- {}: {}\n", s.name, s.description);
        // Room for this line and, if any come after, a short note about them.
        let rest = offered.len() - i - 1;
        let note = if rest > 0 { 100 } else { 0 };
        if left_out.is_empty() && text.len() + line.len() + note <= cap {
            text.push_str(&line);
        } else {
            left_out.push(s.name.clone());
        }
    }
    if !left_out.is_empty() {
        let mut note = format!(
            "({} more skill{} left out for room; the user can list them with /skills:",
            left_out.len(),
            if left_out.len() == 1 { "" } else { "s" }
        );
        for name in &left_out {
            if text.len() + note.len() + name.len() + 8 > cap {
                note.push_str(" …");
                break;
            }
            note.push(' ');
            note.push_str(name);
        }
        note.push_str(")\n");
        text.push_str(&note);
    }
    Listing { text, left_out }
}
