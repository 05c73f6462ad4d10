//! The skills as text: what `tooloop skills` prints and `/skills` shows in the TUI.

use super::Catalog;
use super::listing;

/// One row per skill (name, where it was found, the body's size, invocable by whom), then
/// what the model's listing left out for room and the files skipped.
pub fn format(catalog: &Catalog, window_tokens: u64) -> String {
    if catalog.skills.is_empty() && catalog.notices.is_empty() {
        return "no skills (SKILL.md folders in .tooloop/skills, .claude/skills, \
                .agents/skills, ~/.config/tooloop/skills or ~/.claude/skills)\n"
            .to_string();
    }
    let rows: Vec<Vec<String>> = catalog
        .skills
        .iter()
        .map(|s| {
            vec![
                s.name.clone(),
                s.source.clone(),
                size(s.body_bytes),
                s.invocable_by().to_string(),
            ]
        })
        .collect();
    let mut out = crate::text::columns(&["NAME", "SOURCE", "BODY", "INVOCABLE BY"], &rows);
    let l = listing::build(&catalog.skills, listing::cap_bytes(window_tokens));
    if !l.left_out.is_empty() {
        out.push_str(&format!(
            "left out of the model's list (over {} % of the context window): {}\n",
            listing::CAP_PERCENT,
            l.left_out.join(", ")
        ));
    }
    for n in &catalog.notices {
        out.push_str(&format!("skipped: {n}\n"));
    }
    out
}

fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}
