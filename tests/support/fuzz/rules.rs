//! `bash_rules`: a command that runs a substitution (`$(`, backticks, `<(`, `>(`) or
//! redirects output outside the workspace is never allowed by an allow rule — not by a rule
//! naming the tool alone, a prefix rule, the rule "always allow" would suggest for it, nor
//! an exact rule (the one way a guarded delete runs without asking).
//!
//! Byte 0 picks the form. Free form: the rest is any command line; if its raw text holds a
//! substitution, no rule may allow it. Template form: the rest is a payload `x` (without `#`
//! or a newline, the two ways to make what follows it on the line dead text), put in front
//! of a redirection to a target outside the workspace (byte 1 picks it): bash would run
//! that redirection, or the line is unreadable (an open quote) and the parser says so.

use std::path::Path;

use tooloop::permission::rules::{CallFacts, RuleKind, RuleSet, suggest_prefix};
use tooloop::permission::shell;

use super::MAX_INPUT;

const ROOT: &str = "/ws/project";
const HOME: &str = "/home/u";

/// Where output may not go: outside the workspace, by every way of writing it.
const OUTSIDE: [&str; 10] = [
    "/etc/passwd",
    "../outside.txt",
    "~/.bashrc",
    "$HOME/.profile",
    "/tmp/x",
    "/ws/project/../elsewhere",
    "${HOME}/x",
    "~u/x",
    "/ws/project-other/x",
    "sub/../../x",
];

/// The ways to redirect output.
const REDIRECTS: [&str; 7] = [">", ">>", ">|", "&>", "&>>", "2>", "1>"];

pub fn bash_rules(data: &[u8]) {
    if data.len() < 2 || data.len() > MAX_INPUT {
        return;
    }
    let Ok(rest) = std::str::from_utf8(&data[2..]) else {
        return;
    };
    if data[0].is_multiple_of(2) {
        let substitution = ["$(", "`", "<(", ">("].iter().any(|m| rest.contains(m));
        if substitution {
            never_allowed(rest);
        } else {
            // Whatever it is, reading it never panics and the suggestion is a valid rule.
            let _ = allowed_by_some(rest);
        }
        return;
    }
    if rest.contains('#') || rest.contains('\n') || rest.contains('\r') {
        return;
    }
    let target = OUTSIDE[data[1] as usize % OUTSIDE.len()];
    let redirect = REDIRECTS[(data[1] as usize / OUTSIDE.len()) % REDIRECTS.len()];
    // `x >file` and `x > file`: both are redirections.
    let spaced = (data[1] / 128) == 1;
    let command = if spaced {
        format!("{rest} {redirect} {target}")
    } else {
        format!("{rest} {redirect}{target}")
    };
    never_allowed(&command);
}

/// The rules a user could plausibly have for `command`: the tool alone, prefix rules for its
/// first words, the suggested rule and the exact command.
fn rules_for(command: &str) -> RuleSet {
    let mut allow = vec!["bash".to_string(), "bash(echo:*)".to_string()];
    let parsed = shell::parse(command);
    for words in &parsed.commands {
        let words = shell::command_words(words);
        if let Some(first) = words.first() {
            allow.push(format!("bash({}:*)", quote(first)));
        }
        if !words.is_empty() {
            let all: Vec<String> = words.iter().map(|w| quote(w)).collect();
            allow.push(format!("bash({})", all.join(" ")));
        }
    }
    if let Some(s) = suggest_prefix(command) {
        allow.push(format!("bash({s})"));
    }
    let mut set = RuleSet::default();
    for text in allow {
        if let Ok(rule) = tooloop::permission::rules::Rule::parse(&text) {
            set.push(RuleKind::Allow, rule, "fuzz");
        }
    }
    set
}

/// Some allow rule lets it run (the ordinary path, or the exact-rule path).
fn allowed_by_some(command: &str) -> Option<String> {
    let rules = rules_for(command);
    let facts = CallFacts::new(
        "bash",
        Some(command),
        &[],
        Path::new(ROOT),
        Some(Path::new(HOME)),
    );
    if let Some(r) = rules.allows(&facts) {
        return Some(format!("allows: {}", r.rule.text));
    }
    rules
        .allows_exactly(&facts, command)
        .map(|r| format!("allows_exactly: {}", r.rule.text))
}

fn never_allowed(command: &str) {
    if let Some(how) = allowed_by_some(command) {
        panic!("{command:?} was allowed by a rule ({how})");
    }
}

/// A word as a rule writes it: single-quoted when it holds anything the shell splits on.
fn quote(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}
