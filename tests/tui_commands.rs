//! The TUI's conversation-level commands without a terminal: new conversation (Ctrl+N,
//! `/new`), the session id in the status bar, a discarded attempt.

mod tui_support;

use crossterm::event::KeyCode;
use tokio::time::Instant;
use tooloop::agent::protocol::{AgentCommand, AgentEvent, Terminal};
use tooloop::tui::cells::CellKind;
use tui_support::*;

#[tokio::test(start_paused = true)]
async fn ctrl_n_starts_a_new_conversation_when_idle() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    app.on_key(ctrl('n'), now);
    assert_eq!(app.take_commands(), vec![], "not while a turn runs");
    app.on_agent(done(Terminal::Completed), now);
    app.on_key(ctrl('n'), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::NewConversation]);
    app.on_agent(history_reset(vec![]), now);
    let kinds: Vec<bool> = app
        .conversation
        .cells()
        .iter()
        .map(|c| matches!(&c.kind, CellKind::Notice(t) if t == "new conversation"))
        .collect();
    assert_eq!(kinds, vec![true]);
    assert!(app.json.history().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_discarded_attempt_is_struck_out_not_kept() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    app.on_agent(
        AgentEvent::TextDelta {
            text: "half a tho".into(),
        },
        now,
    );
    app.on_agent(
        AgentEvent::Discarded {
            reason: "overloaded; switching".into(),
        },
        now,
    );
    match app.conversation.cells().last().map(|c| &c.kind) {
        Some(CellKind::Discarded { text, reason }) => {
            assert_eq!(text, "half a tho");
            assert!(reason.contains("switching"));
        }
        other => panic!(
            "expected a discarded cell, got {:?}",
            other.map(|_| "other")
        ),
    }
    // The fallback model's answer starts a fresh cell.
    app.on_agent(
        AgentEvent::TextDelta {
            text: "fresh".into(),
        },
        now,
    );
    assert!(matches!(
        app.conversation.cells().last().map(|c| &c.kind),
        Some(CellKind::Assistant(_))
    ));
}

#[tokio::test(start_paused = true)]
async fn typing_slash_new_starts_a_new_conversation_and_the_status_follows_the_session() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "/new", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::NewConversation]);
    app.on_agent(history_reset(vec![]), now);
    app.on_agent(
        AgentEvent::Session {
            id: "20261201-abcd".into(),
        },
        now,
    );
    assert_eq!(app.info.session.as_deref(), Some("20261201-abcd"));
}
