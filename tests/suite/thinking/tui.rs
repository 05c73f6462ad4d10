//! Thinking in the conversation pane: shown live (dimmed, its last lines) while it streams,
//! collapsed to one line once the answer starts, opened again with Enter; interleaved
//! thinking keeps its place between tool calls.

use crate::support;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::AgentEvent;
use tooloop::tui::app::App;
use tooloop::tui::panes::cells::CellKind;
use tooloop::tui::view;

fn screen(app: &mut App, w: u16, h: u16, now: Instant) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| view::draw(app, f, now)).expect("draw");
    t.backend().to_string()
}

fn think(app: &mut App, text: &str, now: Instant) {
    app.on_agent(AgentEvent::ThinkingDelta { text: text.into() }, now);
}

#[tokio::test(start_paused = true)]
async fn live_while_streaming_then_one_line_then_enter_opens_it() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    for i in 1..=9 {
        think(&mut app, &format!("step {i} of the plan\n"), now);
    }
    let live = screen(&mut app, 80, 24, now);
    assert!(live.contains("✻ thinking…"), "{live}");
    // Only the last lines while it streams.
    assert!(live.contains("step 9 of the plan"), "{live}");
    assert!(live.contains("step 4 of the plan"), "{live}");
    assert!(!live.contains("step 3 of the plan"), "{live}");

    app.on_agent(
        AgentEvent::TextDelta {
            text: "Here is the answer.".into(),
        },
        now,
    );
    let answered = screen(&mut app, 80, 24, now);
    assert!(answered.contains("✻ thinking (9 lines)"), "{answered}");
    assert!(!answered.contains("step 9 of the plan"), "{answered}");
    assert!(answered.contains("Here is the answer."), "{answered}");

    // Tab focuses the conversation and selects its last expandable cell: the thinking.
    app.on_key(key(KeyCode::Tab), now);
    app.on_key(key(KeyCode::Enter), now);
    let opened = screen(&mut app, 80, 30, now);
    assert!(opened.contains("step 1 of the plan"), "{opened}");
    assert!(opened.contains("step 9 of the plan"), "{opened}");
}

#[tokio::test(start_paused = true)]
async fn interleaved_thinking_keeps_its_place_between_tools() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    think(&mut app, "first the clock", now);
    app.on_agent(
        AgentEvent::ToolUse {
            id: "t1".into(),
            name: "get_current_time".into(),
            input: json!({}),
            safe: true,
            summary: String::new(),
            preview: None,
        },
        now,
    );
    think(&mut app, "then the files", now);
    app.on_agent(
        AgentEvent::ToolUse {
            id: "t2".into(),
            name: "list_dir".into(),
            input: json!({}),
            safe: true,
            summary: String::new(),
            preview: None,
        },
        now,
    );
    let kinds: Vec<&str> = app
        .panes
        .conversation
        .cells()
        .iter()
        .map(|c| match &c.kind {
            CellKind::User(_) => "user",
            CellKind::Thinking {
                streaming: false, ..
            } => "thinking",
            CellKind::Thinking { .. } => "thinking-live",
            CellKind::Tool(_) => "tool",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["user", "thinking", "tool", "thinking", "tool"]);
    let shown = screen(&mut app, 80, 24, now);
    let first = shown.find("get_current_time").expect("tool 1");
    let second = shown.find("list_dir").expect("tool 2");
    let between = &shown[first..second];
    assert!(between.contains("✻ thinking (1 line)"), "{shown}");
}

#[tokio::test(start_paused = true)]
async fn thinking_text_is_sanitized() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    think(
        &mut app,
        "plan \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2Jstill here",
        now,
    );
    let live = screen(&mut app, 80, 24, now);
    assert!(live.contains("plan still here"), "{live}");
    assert!(!live.contains('\u{1b}'), "{live:?}");
}
