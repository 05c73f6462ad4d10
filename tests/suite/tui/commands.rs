//! The TUI's conversation-level commands without a terminal: new conversation (Ctrl+N,
//! `/new`), the session id in the status bar, a discarded attempt.

use crate::support;

use crossterm::event::KeyCode;
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal};
use tooloop::tui::panes::cells::CellKind;

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
        .panes
        .conversation
        .cells()
        .iter()
        .map(|c| matches!(&c.kind, CellKind::Notice(t) if t == "new conversation"))
        .collect();
    assert_eq!(kinds, vec![true]);
    assert!(app.panes.json.history().is_empty());
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
    match app.panes.conversation.cells().last().map(|c| &c.kind) {
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
        app.panes.conversation.cells().last().map(|c| &c.kind),
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
    use tooloop::message::{ContentBlock, Message, validate_history};
    use tooloop::protocol::ToolOutcome;
    use tooloop::tui::tool_calls::ToolState;
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    app.on_agent(tool_use("t1", "bash", json!({"command": "ls"})), now);
    app.on_agent(tool_end("t1", "bash", ToolOutcome::Ok, 5, "x"), now);
    app.on_agent(done(Terminal::Completed), now);
    assert_eq!(app.panes.tools.ids().len(), 1);
    type_text(&mut app, "/clear", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::NewConversation]);
    app.on_agent(history_reset(vec![]), now);
    assert!(app.panes.tools.ids().is_empty(), "the old rows are gone");
    assert!(app.panes.tool_calls.get("t1").is_none());
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
    assert_eq!(app.panes.tools.ids(), ["r1".to_string()]);
    assert_eq!(row(&app, 0).state, ToolState::Error);
    assert_eq!(row(&app, 0).summary, "Cargo.toml");
}

fn cell_texts(app: &tooloop::tui::app::App) -> Vec<String> {
    app.panes
        .conversation
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
                max_attempts: 4,
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
        AgentEvent::Done(tooloop::protocol::TurnSummary {
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
        "retry 1 of 3 in 0.5s · connection error: Connection refused (os error 111)"
    );
    assert!(texts[2].starts_with("retry 3 of 3 "), "{texts:?}");
    let screen = render_text(&mut app, 80, 24, now);
    let retry_rows = screen.lines().filter(|l| l.contains("retry ")).count();
    assert_eq!(retry_rows, 3, "one row per retry at 80 columns:\n{screen}");
    let whole = texts.iter().filter(|t| t.contains("127.0.0.1:9")).count();
    assert_eq!(whole, 1, "the final error once: {texts:?}");
    // The failed prompt says it was not sent, and waits in the input.
    let last = texts.last().expect("an end line");
    assert!(
        last.contains("model_error") && last.contains("not sent"),
        "{last}"
    );
    assert_eq!(app.input.text(), "hello");
}

#[tokio::test(start_paused = true)]
async fn export_writes_the_conversation_as_markdown() {
    use tooloop::message::{ContentBlock, Message};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = tooloop::tui::app::App::new(tooloop::tui::app::RunInfo {
        session: Some("s-42".into()),
        workspace: dir.path().to_path_buf(),
        ..Default::default()
    });
    let now = Instant::now();
    type_text(&mut app, "/export", now);
    app.on_key(key(KeyCode::Enter), now);
    assert!(
        cell_texts(&app)
            .iter()
            .any(|t| t.contains("nothing to export"))
    );
    app.on_agent(
        history_reset(vec![
            Message::user_text("用中文打个招呼"),
            Message::assistant(vec![ContentBlock::text("你好！")]),
        ]),
        now,
    );
    type_text(&mut app, "/export", now);
    app.on_key(key(KeyCode::Enter), now);
    assert!(
        app.take_commands().is_empty(),
        "/export never goes to the model"
    );
    let md = std::fs::read_to_string(dir.path().join("tooloop-s-42.md")).expect("written");
    assert!(md.starts_with("# tooloop session s-42\n"), "{md}");
    assert!(
        md.contains("## User\n\n用中文打个招呼\n\n## Assistant\n\n你好！\n"),
        "{md}"
    );
    type_text(&mut app, "/export notes/out.md", now);
    app.on_key(key(KeyCode::Enter), now);
    assert!(
        cell_texts(&app)
            .last()
            .expect("a cell")
            .starts_with("could not write"),
        "{:?}",
        cell_texts(&app)
    );
}

#[tokio::test(start_paused = true)]
async fn a_long_paste_collapses_and_is_sent_whole() {
    let mut app = app();
    let now = Instant::now();
    let log: String = (1..=200).map(|i| format!("log line {i}\n")).collect();
    type_text(&mut app, "explain ", now);
    app.on_paste(&log);
    type_text(&mut app, " and ", now);
    app.on_paste("short\npaste");
    assert_eq!(
        app.input.text(),
        "explain [Pasted 200 lines] and short\npaste"
    );
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("[Pasted 200 lines]"), "{screen}");
    assert!(!screen.contains("log line 7"), "{screen}");
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: format!("explain {log} and short\npaste")
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn prompt_history_survives_a_restart_and_ctrl_r_searches_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("tooloop/history/ws.jsonl");
    let now = Instant::now();
    let mut first = app();
    first.input.use_history_file(file.clone());
    for p in ["fix the build", "list files", "修复测试 fix the tests"] {
        type_text(&mut first, p, now);
        first.on_key(key(KeyCode::Enter), now);
        first.on_agent(done(Terminal::Completed), now);
    }

    // A new run in the same workspace.
    let mut app = app();
    app.input.use_history_file(file);
    app.on_key(key(KeyCode::Up), now);
    assert_eq!(app.input.text(), "修复测试 fix the tests");
    app.input.clear();

    type_text(&mut app, "draft", now);
    app.on_key(ctrl('r'), now);
    assert_eq!(app.input.text(), "修复测试 fix the tests", "newest first");
    type_text(&mut app, "fix", now);
    assert_eq!(app.input.text(), "修复测试 fix the tests");
    app.on_key(ctrl('r'), now);
    assert_eq!(app.input.text(), "fix the build", "Ctrl+R again: older");
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("search prompts: fix"), "{screen}");
    app.on_key(key(KeyCode::Esc), now);
    assert_eq!(app.input.text(), "draft", "Esc puts back what was typed");
    assert!(app.take_commands().is_empty());

    app.on_key(ctrl('r'), now);
    type_text(&mut app, "list", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.input.text(),
        "list files",
        "Enter keeps the match to edit"
    );
    assert!(app.take_commands().is_empty(), "and sends nothing");
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: "list files".into()
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn f5_copies_the_selected_tool_output_or_the_json_view() {
    use tooloop::protocol::ToolOutcome;
    let mut app = app();
    let now = Instant::now();
    app.on_key(key(KeyCode::F(5)), now);
    assert!(app.outbox.clipboard.is_none(), "nothing to copy yet");
    start_turn(&mut app, now);
    app.on_agent(
        AgentEvent::TextDelta {
            text: "答案在这里".into(),
        },
        now,
    );
    app.on_agent(tool_use("a", "list_dir", serde_json::json!({})), now);
    app.on_agent(
        tool_end("a", "list_dir", ToolOutcome::Ok, 3, "Cargo.toml\nsrc/"),
        now,
    );
    app.on_agent(done(Terminal::Completed), now);
    // No selection: the last answer.
    app.on_key(key(KeyCode::F(5)), now);
    assert_eq!(app.outbox.clipboard.take().as_deref(), Some("答案在这里"));
    // Tab to the conversation, ← selects the newest cell: the tool call.
    app.on_key(key(KeyCode::Tab), now);
    app.on_key(key(KeyCode::Left), now);
    app.on_key(key(KeyCode::F(5)), now);
    assert_eq!(
        app.outbox.clipboard.take().as_deref(),
        Some("Cargo.toml\nsrc/")
    );
    // The JSON pane focused: its current view, as Ctrl+S would write it.
    app.panes.json_open = true;
    app.panes.focus = tooloop::tui::app::Focus::Json;
    app.on_key(key(KeyCode::F(5)), now);
    assert_eq!(app.outbox.clipboard.take(), Some(app.panes.json.export()));
    assert_eq!(
        tooloop::tui::update::clipboard::osc52("Cargo.toml"),
        "\u{1b}]52;c;Q2FyZ28udG9tbA==\u{7}"
    );
}
