//! The TUI's steering keys without a terminal (issue 27): the plan box's three answers
//! (approve → auto-edit, approve → ask, keep planning with typed feedback), "always allow"
//! with an edited rule, Shift+Tab and Ctrl+T.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use tokio::time::Instant;
use tooloop::protocol::approval::AskWhy;
use tooloop::protocol::approval::{Decision, Preview};
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::{App, RunInfo};

use crate::support;
use support::tui::*;

fn live_app() -> App {
    App::new(RunInfo {
        approval: "plan".into(),
        ..Default::default()
    })
}

fn ask_plan(app: &mut App, id: &str, now: Instant) {
    app.on_agent(
        AgentEvent::PermissionRequest {
            id: id.into(),
            tool: "exit_plan_mode".into(),
            input: json!({"plan": "# Plan\n1. do it"}),
            summary: "Plan".into(),
            preview: Some(Preview::Plan {
                markdown: "# Plan\n1. do it".into(),
            }),
            why: AskWhy::default(),
        },
        now,
    );
}

fn reply(app: &mut App) -> Decision {
    match app.take_commands().as_slice() {
        [AgentCommand::PermissionReply { decision, .. }] => decision.clone(),
        other => panic!("one reply expected, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn the_plan_box_has_three_answers() {
    let t0 = Instant::now();
    let later = |ms: u64| t0 + Duration::from_millis(ms);
    let mut app = live_app();
    start_turn(&mut app, t0);
    ask_plan(&mut app, "p1", t0);
    app.on_key(key(KeyCode::Enter), later(1000));
    assert_eq!(
        reply(&mut app),
        Decision::ApprovePlan {
            mode: ApprovalMode::AutoEdit
        }
    );
    ask_plan(&mut app, "p2", later(2000));
    app.on_key(key(KeyCode::Char('2')), later(3000));
    app.on_key(key(KeyCode::Enter), later(3500));
    assert_eq!(
        reply(&mut app),
        Decision::ApprovePlan {
            mode: ApprovalMode::Ask
        }
    );
    ask_plan(&mut app, "p3", later(4000));
    app.on_key(key(KeyCode::Char('3')), later(5000));
    app.on_key(key(KeyCode::Enter), later(5050));
    for (i, c) in "先写测试".chars().enumerate() {
        app.on_key(key(KeyCode::Char(c)), later(5100 + i as u64 * 50));
    }
    app.on_key(key(KeyCode::Enter), later(6000));
    assert_eq!(
        reply(&mut app),
        Decision::Deny {
            reason: Some("先写测试".into())
        }
    );
}

#[tokio::test(start_paused = true)]
async fn always_allow_sends_the_edited_rule_and_lists_it() {
    let t0 = Instant::now();
    let later = |ms: u64| t0 + Duration::from_millis(ms);
    let mut app = live_app();
    start_turn(&mut app, t0);
    app.on_agent(
        AgentEvent::PermissionRequest {
            id: "b1".into(),
            tool: "bash".into(),
            input: json!({"command": "cargo test -p x"}),
            summary: "cargo test -p x".into(),
            preview: None,
            why: AskWhy {
                suggestion: Some("bash(cargo test:*)".into()),
                ..Default::default()
            },
        },
        t0,
    );
    app.on_key(key(KeyCode::Char('3')), later(1000));
    app.on_key(key(KeyCode::Enter), later(1050));
    assert_eq!(
        app.overlays.approvals.rule_edit.as_deref(),
        Some("bash(cargo test:*)")
    );
    // Narrow it to `cargo:*`: delete " test:*)", type ":*)".
    for i in 0..8 {
        app.on_key(key(KeyCode::Backspace), later(1100 + i * 10));
    }
    for (i, c) in ":*)".chars().enumerate() {
        app.on_key(key(KeyCode::Char(c)), later(1200 + i as u64 * 10));
    }
    app.on_key(key(KeyCode::Enter), later(1300));
    assert_eq!(
        reply(&mut app),
        Decision::AllowRule {
            rule: "bash(cargo:*)".into()
        }
    );
    assert!(
        app.steering
            .rules
            .iter()
            .any(|r| r.rule.text == "bash(cargo:*)" && r.source == ".tooloop/settings.local.toml")
    );
}

#[tokio::test(start_paused = true)]
async fn shift_tab_asks_for_the_next_mode_and_the_event_sets_it() {
    let t0 = Instant::now();
    let mut app = App::new(RunInfo {
        approval: "ask".into(),
        ..Default::default()
    });
    app.on_key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT), t0);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::SetApproval {
            mode: ApprovalMode::AutoEdit
        }]
    );
    app.on_agent(
        AgentEvent::ApprovalChanged {
            mode: ApprovalMode::AutoEdit,
        },
        t0,
    );
    assert_eq!(app.steering.mode, ApprovalMode::AutoEdit);
    app.on_agent(
        AgentEvent::Todos {
            todos: vec![tooloop::todo::TodoItem {
                content: "x".into(),
                status: tooloop::todo::TodoStatus::Pending,
            }],
        },
        t0,
    );
    assert_eq!(app.steering.todos.len(), 1);
    let ctrl_t = KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL);
    app.on_key(ctrl_t, t0);
    assert!(app.steering.unfolded.is_some());
}
