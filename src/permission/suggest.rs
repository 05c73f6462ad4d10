//! What "always allow" proposes for a command: one rule per part of it that no allow rule
//! covers yet (`sleep 2; ls` gets `bash(sleep:*)` and `bash(ls:*)`, since a rule for the
//! first part alone never lets the whole command run), none that already exists. The rules
//! travel as one list, `bash(sleep:*), bash(ls:*)`, which the user may edit before saving.

use super::rules::{RuleSet, prefix_of};
use super::shell;

/// How rules are joined in a list.
const SEP: &str = ", ";

/// The rules to propose for `command` run by `tool`, as one list; None when no rule could
/// let it run (a substitution, unclosed quotes) or every part is already allowed.
pub fn rules_for(tool: &str, command: &str, existing: &RuleSet) -> Option<String> {
    let parsed = shell::parse(command);
    if parsed.substitution || !parsed.complete {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    for words in &parsed.commands {
        let words = shell::command_words(words);
        if words.is_empty() || existing.allows_words(tool, words) {
            continue;
        }
        let rule = format!("{tool}({})", prefix_of(words)?);
        if !out.contains(&rule) {
            out.push(rule);
        }
    }
    (!out.is_empty()).then(|| out.join(SEP))
}

/// The rules of a list, split where one rule ends and the next tool's name begins.
pub fn split(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = list.trim();
    while !rest.is_empty() {
        let cut = rest.match_indices(&format!("){SEP}")).find_map(|(i, m)| {
            let next = &rest[i + m.len()..];
            let name_end = next.find('(')?;
            let name = &next[..name_end];
            (!name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_-*".contains(c)))
            .then_some(i + 1)
        });
        match cut {
            Some(i) => {
                out.push(rest[..i].trim().to_string());
                rest = rest[i + SEP.len()..].trim_start();
            }
            None => {
                out.push(rest.trim().to_string());
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::rules::{Rule, RuleKind};

    fn set(rules: &[&str]) -> RuleSet {
        let mut s = RuleSet::default();
        for r in rules {
            s.push(RuleKind::Allow, Rule::parse(r).expect("rule"), "test");
        }
        s
    }

    #[test]
    fn every_part_gets_a_rule_and_no_existing_rule_is_proposed_again() {
        // Issue 41, item 2: `sleep 2; ls` proposed `bash(sleep 2:*)`, which never covers `ls`.
        let none = set(&[]);
        assert_eq!(
            rules_for("bash", "sleep 2; ls", &none).as_deref(),
            Some("bash(sleep:*), bash(ls:*)")
        );
        let git = set(&["bash(git status:*)"]);
        assert_eq!(
            rules_for("bash", "git status --short && echo done", &git).as_deref(),
            Some("bash(echo:*)")
        );
        assert_eq!(rules_for("bash", "git status", &git), None, "all allowed");
        assert_eq!(
            rules_for("bash", "ls && ls -la", &none).as_deref(),
            Some("bash(ls:*)"),
            "one rule per distinct prefix"
        );
        assert_eq!(rules_for("bash", "echo $(id)", &none), None);
    }

    #[test]
    fn a_proposal_covers_the_command_it_was_made_for() {
        for cmd in [
            "sleep 2; ls",
            "git status --short && echo hi",
            "cargo test -q | tail -3",
        ] {
            let list = rules_for("bash", cmd, &set(&[])).expect("a proposal");
            let rules = split(&list);
            let all = set(&rules.iter().map(String::as_str).collect::<Vec<_>>());
            let parsed = shell::parse(cmd);
            for words in &parsed.commands {
                assert!(
                    all.allows_words("bash", shell::command_words(words)),
                    "{cmd}: {list}"
                );
            }
        }
    }

    #[test]
    fn a_list_splits_between_rules_only() {
        assert_eq!(
            split("bash(a:*), bash(b c:*)"),
            vec!["bash(a:*)", "bash(b c:*)"]
        );
        assert_eq!(split("bash(echo '), x':*)"), vec!["bash(echo '), x':*)"]);
        assert_eq!(split(" bash(ls:*) "), vec!["bash(ls:*)"]);
    }
}
