//! Claude Code's files, as an untrusted user's folder holds them: settings.json (rules,
//! hooks, statusLine) and SKILL.md front matter. Neither reader may panic; every notice
//! names its file; every rule it hands on is valid tooloop syntax; a skill's error names a
//! line of the file.

use std::path::Path;

use tooloop::claude::settings::{ClaudeSettings, read_text};
use tooloop::permission::rules::Rule;
use tooloop::skills::front_matter;

use super::MAX_INPUT;

pub fn claude_settings(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut out = ClaudeSettings::default();
    let path = Path::new("/ws/.claude/settings.json");
    read_text(
        &mut out,
        ".claude/settings.json",
        path,
        text,
        Some(Path::new("/home/u")),
    );
    for n in &out.notices {
        assert!(n.starts_with("/ws/.claude/settings.json"), "{n}");
    }
    for l in &out.rules {
        for r in l.allow.iter().chain(&l.ask).chain(&l.deny) {
            Rule::parse(r).unwrap_or_else(|e| panic!("{r:?} handed on but invalid: {e}"));
        }
    }
    for h in &out.hooks {
        assert!(!h.command.trim().is_empty());
        if let Some(m) = &h.matcher {
            tooloop::hooks::config::compile_matcher(m).expect("checked matcher");
        }
    }
    let mut set = tooloop::permission::rules::RuleSet::default();
    out.apply_rules(&mut set);
}

pub fn skill_front_matter(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match front_matter::parse(text) {
        Ok((_, body)) => assert!(body.len() <= text.len()),
        Err(e) => {
            let lines = text.split('\n').count().max(1);
            assert!(
                (1..=lines + 1).contains(&e.line),
                "line {} of {lines}: {}",
                e.line,
                e.message
            );
        }
    }
}
