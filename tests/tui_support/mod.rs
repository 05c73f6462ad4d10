//! Shared helpers for the TUI state tests: an App, key events, a started turn.
#![allow(dead_code)]

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::time::Instant;
use tooloop::agent::protocol::{AgentCommand, AgentEvent, Terminal, TurnSummary};
use tooloop::provider::Usage;
use tooloop::tui::app::{App, RunInfo};

pub fn app() -> App {
    App::new(RunInfo {
        provider: "demo".into(),
        model: "tooloop-demo".into(),
        save_dir: std::env::temp_dir().join("tooloop-tui-state-test"),
        ..Default::default()
    })
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

pub fn type_text(app: &mut App, text: &str, now: Instant) {
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)), now);
    }
}

pub fn done(reason: Terminal) -> AgentEvent {
    AgentEvent::Done(TurnSummary {
        cost_usd: None,
        context_tokens: 0,
        reason,
        turns: 1,
        usage: Usage::default(),
        text: String::new(),
        transitions: vec![],
        error: None,
    })
}

pub fn start_turn(app: &mut App, now: Instant) {
    type_text(app, "hello", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: "hello".into()
        }]
    );
    app.on_agent(
        AgentEvent::PromptStart {
            text: "hello".into(),
        },
        now,
    );
    app.on_agent(AgentEvent::TurnStart { turn: 1 }, now);
}
