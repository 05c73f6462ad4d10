//! "Always allow" end to end on the real executor and the real bash tool (issue 41, item 2):
//! the proposal covers every part of the command just approved, never repeats a rule that
//! already exists, is saved where the notice says, and the same command does not ask again.

use std::sync::Arc;

use serde_json::json;
use tooloop::permission::rules::{Rule, RuleKind, RuleSet};
use tooloop::protocol::AgentEvent;
use tooloop::protocol::approval::Decision;
use tooloop::protocol::approval_mode::ApprovalMode;

use crate::support::permissions as permissions_support;
use permissions_support::*;

/// A harness asking for bash, with `allow` already in the user's config.
fn harness(allow: &[&str]) -> Harness {
    let mut h = Harness::new(ApprovalMode::Ask, true);
    let mut rules = RuleSet::default();
    for r in allow {
        rules.push(
            RuleKind::Allow,
            Rule::parse(r).expect("rule"),
            "config.toml",
        );
    }
    let local = tooloop::permission::settings::local_path(h.dir.path());
    Arc::get_mut(&mut h.env.policy)
        .expect("policy not shared yet")
        .set_rules(rules, Some(local));
    h
}

/// The rules the question proposed.
fn proposed(events: &[AgentEvent]) -> Vec<Option<String>> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::PermissionRequest { why, .. } => Some(why.suggestion.clone()),
            _ => None,
        })
        .collect()
}

fn notices(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Notice { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Answers every question with "always allow" of exactly what was proposed.
fn always_allow_proposal(list: &str) -> impl Fn(&str) -> Answer + '_ {
    move |_| {
        Answer::Reply(Decision::AllowRule {
            rule: list.to_string(),
        })
    }
}

#[tokio::test]
async fn the_proposal_covers_every_part_and_the_same_command_does_not_ask_again() {
    let mut h = harness(&[]);
    let call = [("b1", "bash", json!({"command": "sleep 0; ls"}))];
    // First pass: learn the proposal (answer once).
    let batch = h.run(&call, allow_once).await;
    let list = proposed(&batch.events)[0].clone().expect("a proposal");
    assert_eq!(list, "bash(sleep:*), bash(ls:*)");
    // Always allow it: saved, and the notice names the file.
    let batch = h.run(&call, always_allow_proposal(&list)).await;
    let local = tooloop::permission::settings::local_path(h.dir.path());
    let saved = std::fs::read_to_string(&local).expect("settings.local.toml written");
    assert!(
        saved.contains("bash(sleep:*)") && saved.contains("bash(ls:*)"),
        "{saved}"
    );
    let notes = notices(&batch.events);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("bash(ls:*)") && n.contains(&local.display().to_string())),
        "{notes:?}"
    );
    // The same command again: no question.
    let batch = h.run(&call, never_asked).await;
    assert!(proposed(&batch.events).is_empty());
}

#[tokio::test]
async fn a_rule_in_config_is_not_proposed_again() {
    let mut h = harness(&["bash(git status:*)"]);
    let call = [(
        "b1",
        "bash",
        json!({"command": "git status --short && echo done"}),
    )];
    let batch = h.run(&call, deny).await;
    assert_eq!(
        proposed(&batch.events),
        vec![Some("bash(echo:*)".to_string())],
        "only the part no rule covers"
    );
}
