//! The answers of the approval box as a numbered list (as in Claude Code and Codex): ↑/↓ or
//! a digit chooses, Enter confirms. No letter answers, so a word typed for the input while
//! the box opens never approves anything.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::sanitize::sanitize;
use crate::tui::strings;
use crate::tui::theme::Theme;

/// One answer of the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Yes (a plan: approve and go on in auto-edit).
    AllowOnce,
    /// Yes, and don't ask again for this tool this session (a plan: approve, go on asking).
    AllowSession,
    /// Yes, and always allow the proposed rule in this project (edit it, Enter saves).
    AllowRule,
    /// No: type what the model should do differently (empty: a plain denial).
    DenyWithReason,
}

/// The answers offered for a question: "always allow" only when a rule can be proposed;
/// a plan has no rule to save.
pub fn choices(plan: bool, rule: bool) -> Vec<Choice> {
    let mut out = vec![Choice::AllowOnce, Choice::AllowSession];
    if rule && !plan {
        out.push(Choice::AllowRule);
    }
    out.push(Choice::DenyWithReason);
    out
}

/// How an answer reads in the list.
pub fn label(choice: Choice, plan: bool, tool: &str, rule: Option<&str>) -> String {
    match (choice, plan) {
        (Choice::AllowOnce, true) => strings::PLAN_YES_AUTO_EDIT.into(),
        (Choice::AllowSession, true) => strings::PLAN_YES_ASK.into(),
        (Choice::DenyWithReason, true) => strings::PLAN_NO.into(),
        (Choice::AllowOnce, false) => strings::CHOICE_YES.into(),
        (Choice::AllowSession, false) => strings::choice_session(tool),
        (Choice::AllowRule, _) => strings::choice_rule(rule.unwrap_or("")),
        (Choice::DenyWithReason, false) => strings::CHOICE_NO.into(),
    }
}

/// The list, the chosen answer marked, then the keys.
pub fn lines(
    list: &[Choice],
    selected: usize,
    plan: bool,
    tool: &str,
    rule: Option<&str>,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let tool = sanitize(tool);
    let rule = rule.map(sanitize);
    let mut out: Vec<Line<'static>> = list
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let text = format!("{}. {}", i + 1, label(c, plan, &tool, rule.as_deref()));
            if i == selected {
                Line::from(vec![
                    Span::styled("❯ ", theme.accent),
                    Span::styled(text, theme.accent.add_modifier(Modifier::BOLD)),
                ])
            } else {
                Line::from(vec![Span::raw("  "), Span::styled(text, theme.text)])
            }
        })
        .collect();
    out.push(Line::styled(strings::choice_keys(list.len()), theme.dim));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_answer_is_offered_only_with_a_rule_and_never_for_a_plan() {
        use Choice::*;
        assert_eq!(
            choices(false, false),
            vec![AllowOnce, AllowSession, DenyWithReason]
        );
        assert_eq!(
            choices(false, true),
            vec![AllowOnce, AllowSession, AllowRule, DenyWithReason]
        );
        assert_eq!(
            choices(true, true),
            vec![AllowOnce, AllowSession, DenyWithReason]
        );
    }

    #[test]
    fn the_chosen_answer_is_marked_and_the_keys_follow() {
        let list = choices(false, true);
        let got: Vec<String> = lines(
            &list,
            1,
            false,
            "bash",
            Some("bash(cargo test:*)"),
            &Theme::default(),
        )
        .iter()
        .map(|l| l.to_string())
        .collect();
        assert_eq!(got[0], "  1. Yes");
        assert_eq!(
            got[1],
            "❯ 2. Yes, and don't ask again for bash this session"
        );
        assert_eq!(
            got[2],
            "  3. Yes, and always allow bash(cargo test:*) in this project"
        );
        assert_eq!(got[3], "  4. No, tell the model what to do differently");
        assert!(got[4].contains("Enter"), "{got:?}");
    }
}
