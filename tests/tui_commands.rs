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

#[tokio::test(start_paused = true)]
async fn new_clears_the_tools_pane_and_a_resumed_session_lists_its_calls() {
    use serde_json::json;
    use tooloop::agent::protocol::ToolOutcome;
    use tooloop::message::{ContentBlock, Message, validate_history};
    use tooloop::tui::tool_calls::ToolState;
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    app.on_agent(tool_use("t1", "bash", json!({"command": "ls"})), now);
    app.on_agent(tool_end("t1", "bash", ToolOutcome::Ok, 5, "x"), now);
    app.on_agent(done(Terminal::Completed), now);
    assert_eq!(app.tools.ids().len(), 1);
    type_text(&mut app, "/clear", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::NewConversation]);
    app.on_agent(history_reset(vec![]), now);
    assert!(app.tools.ids().is_empty(), "the old rows are gone");
    assert!(app.tool_calls.get("t1").is_none());
    // A resumed history lists its calls with their outcome.
    let history = vec![
        Message::user_text("read it"),
        Message::assistant(vec![ContentBlock::ToolUse {
            id: "r1".into(),
            name: "read_file".into(),
            input: json!({"path": "Cargo.toml"}),
        }]),
        Message::user(vec![ContentBlock::tool_result("r1", "no such file", true)]),
        Message::assistant(vec![ContentBlock::text("it is missing")]),
    ];
    validate_history(&history).expect("valid history");
    app.on_agent(history_reset(history), now);
    assert_eq!(app.tools.ids(), ["r1".to_string()]);
    assert_eq!(row(&app, 0).state, ToolState::Error);
    assert_eq!(row(&app, 0).summary, "Cargo.toml");
}

fn cell_texts(app: &tooloop::tui::app::App) -> Vec<String> {
    app.conversation
        .cells()
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::Notice(t) | CellKind::Error(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn retries_are_one_line_each_counted_from_one_and_the_final_error_shows_once() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    let refused = "connection error: error sending request for url (http://127.0.0.1:9/v1/messages): \
                   client error (Connect): tcp connect error: Connection refused (os error 111)";
    for attempt in 2..=4 {
        app.on_agent(
            AgentEvent::Retry {
                attempt,
                delay_ms: 500,
                error: refused.into(),
            },
            now,
        );
    }
    app.on_agent(
        AgentEvent::Error {
            message: refused.into(),
        },
        now,
    );
    app.on_agent(
        AgentEvent::Done(tooloop::agent::protocol::TurnSummary {
            reason: Terminal::ModelError,
            turns: 1,
            usage: Default::default(),
            text: String::new(),
            transitions: vec![],
            cost_usd: None,
            context_tokens: 0,
            error: Some(refused.into()),
        }),
        now,
    );
    let texts = cell_texts(&app);
    assert_eq!(
        texts[0],
        "retry 1 in 0.5s · connection error: Connection refused (os error 111)"
    );
    assert!(texts[2].starts_with("retry 3 "), "{texts:?}");
    let screen = render_text(&mut app, 80, 24, now);
    let retry_rows = screen.lines().filter(|l| l.contains("retry ")).count();
    assert_eq!(retry_rows, 3, "one row per retry at 80 columns:\n{screen}");
    let whole = texts.iter().filter(|t| t.contains("127.0.0.1:9")).count();
    assert_eq!(whole, 1, "the final error once: {texts:?}");
    // The failed prompt says it failed and what happens to it.
    let last = texts.last().expect("an end line");
    assert!(
        last.contains("model_error") && last.contains("the prompt failed"),
        "{last}"
    );
}
