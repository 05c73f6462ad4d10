//! Snapshots of whole frames rendered into ratatui's TestBackend, with virtual time so the
//! timers are exact. Regenerate after an intended change: `INSTA_UPDATE=always cargo test
//! --test all -- suite::tui::render::` (then review `git diff tests/suite/tui/snapshots`).

use crate::support;

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use support::tui::{feed, permission_request, prompt, start, text, tool_use};
use tokio::time::Instant;
use tooloop::message::{ContentBlock, Message};
use tooloop::protocol::{AgentEvent, Terminal as Reason, ToolOutcome, TurnSummary};
use tooloop::provider::Usage;
use tooloop::tui::app::{App, RunInfo};
use tooloop::tui::view;

fn app() -> App {
    App::new(RunInfo {
        provider: "demo".into(),
        model: "tooloop-demo".into(),
        session: Some("s-0001".into()),
        save_dir: std::env::temp_dir(),
        ..Default::default()
    })
}

fn render(app: &mut App, w: u16, h: u16, now: Instant) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal.draw(|f| view::draw(app, f, now)).expect("draw");
    terminal
}

#[tokio::test(start_paused = true)]
async fn idle_screen() {
    let mut app = app();
    let t = render(&mut app, 120, 30, Instant::now());
    insta::assert_snapshot!(t.backend());
}

#[tokio::test(start_paused = true)]
async fn idle_80x24() {
    let mut app = app();
    let t = render(&mut app, 80, 24, Instant::now());
    insta::assert_snapshot!(t.backend());
}

#[tokio::test(start_paused = true)]
async fn streaming_answer_with_a_code_block() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "show me a hello world in rust", now);
    for chunk in [
        "Here is ",
        "the classic:\n\n",
        "```rust\nfn main() {\n",
        "    println!(\"hello\");\n",
        "}\n```\n\n",
        "Run it with `cargo run`.",
    ] {
        feed(&mut app, now, vec![text(chunk)]);
    }
    let t = render(&mut app, 100, 24, now + Duration::from_millis(1200));
    insta::assert_snapshot!(t.backend());
}

#[tokio::test(start_paused = true)]
async fn three_tools_mid_run_with_timers() {
    let mut app = app();
    let t0 = Instant::now();
    prompt(
        &mut app,
        "list files, read Cargo.toml and tell me the time",
        t0,
    );
    feed(&mut app, t0, vec![text("I'll look around.\n\n")]);
    tokio::time::advance(Duration::from_millis(300)).await;
    let t1 = Instant::now();
    feed(
        &mut app,
        t1,
        vec![
            tool_use("a", "list_dir", json!({"path": "."})),
            start("a", "list_dir"),
            tool_use("b", "read_file", json!({"path": "Cargo.toml"})),
            start("b", "read_file"),
        ],
    );
    tokio::time::advance(Duration::from_millis(500)).await;
    let t2 = Instant::now();
    feed(
        &mut app,
        t2,
        vec![
            tool_use("c", "get_current_time", json!({})),
            start("c", "get_current_time"),
            AgentEvent::StreamEnd {
                turn: 1,
                stop_reason: Some("tool_use".into()),
                usage: None,
            },
            AgentEvent::ToolEnd {
                id: "a".into(),
                name: "list_dir".into(),
                is_error: false,
                outcome: ToolOutcome::Ok,
                duration_ms: 500,
                output: "Cargo.toml\nsrc/".into(),
            },
        ],
    );
    tokio::time::advance(Duration::from_millis(700)).await;
    let now = Instant::now();
    let t = render(&mut app, 120, 30, now);
    let screen = t.backend().to_string();
    // read_file has run 1.2 s, get_current_time 0.7 s; list_dir finished in 0.5 s.
    assert!(
        screen.contains("1.2s") && screen.contains("0.7s") && screen.contains("0.5s"),
        "{screen}"
    );
    insta::assert_snapshot!(t.backend());
}

#[tokio::test(start_paused = true)]
async fn approval_modal_for_bash_and_edit_file() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "run `cargo test`", now);
    feed(
        &mut app,
        now,
        vec![
            tool_use("b", "bash", json!({"command": "cargo test --quiet"})),
            permission_request("b", "bash", json!({"command": "cargo test --quiet"})),
        ],
    );
    let t = render(&mut app, 100, 24, now);
    insta::assert_snapshot!("approval_bash", t.backend());

    let edit = json!({"path": "src/main.rs", "old_string": "fn main() {\n    run();\n}", "new_string": "fn main() {\n    run_fast();\n}"});
    app.overlays.approvals.clear();
    feed(
        &mut app,
        now,
        vec![permission_request("e", "edit_file", edit)],
    );
    let t = render(&mut app, 100, 24, now);
    insta::assert_snapshot!("approval_edit_file", t.backend());
}

#[tokio::test(start_paused = true)]
async fn json_pane_history() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "read Cargo.toml", now);
    feed(
        &mut app,
        now,
        vec![
            AgentEvent::Message {
                index: 0,
                message: Message::user_text("read Cargo.toml").into(),
            },
            AgentEvent::Message {
                index: 1,
                message: Message::assistant(vec![ContentBlock::ToolUse {
                    id: "toolu_1".into(),
                    name: "read_file".into(),
                    input: json!({"path": "Cargo.toml"}),
                }])
                .into(),
            },
            AgentEvent::Message {
                index: 2,
                message: Message::user(vec![ContentBlock::tool_result(
                    "toolu_1",
                    "[package]\nname = \"tooloop\"",
                    false,
                )])
                .into(),
            },
        ],
    );
    app.panes.json_open = true;
    let t = render(&mut app, 120, 40, now);
    let screen = t.backend().to_string();
    assert!(
        screen.contains("tool_use") && screen.contains("tool_result"),
        "{screen}"
    );
    insta::assert_snapshot!(t.backend());
    // At 80×24 the JSON pane shares the space: the conversation stays in sight.
    let t = render(&mut app, 80, 24, now);
    let screen = t.backend().to_string();
    assert!(screen.contains("› read Cargo.toml"), "{screen}");
    assert!(screen.contains("history"), "{screen}");
    insta::assert_snapshot!("json_pane_history_80x24", t.backend());
}

#[tokio::test(start_paused = true)]
async fn interrupted_turn_80x24() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "list files", now);
    feed(
        &mut app,
        now,
        vec![
            text("Looking"),
            tool_use("a", "list_dir", json!({})),
            start("a", "list_dir"),
            AgentEvent::Done(TurnSummary {
                cost_usd: None,
                context_tokens: 0,
                reason: Reason::AbortedTools,
                turns: 1,
                usage: Usage {
                    input_tokens: 1200,
                    output_tokens: 34,
                    ..Default::default()
                },
                text: String::new(),
                transitions: vec![],
                error: None,
            }),
        ],
    );
    let t = render(&mut app, 80, 24, now + Duration::from_millis(900));
    insta::assert_snapshot!(t.backend());
}

#[tokio::test(start_paused = true)]
async fn help_overlay_from_the_key_table() {
    let mut app = app();
    app.overlays.help_open = true;
    let t = render(&mut app, 100, 40, Instant::now());
    insta::assert_snapshot!(t.backend());
    // Scrolling a page at a time shows every binding and every command.
    let mut seen = String::new();
    for _ in 0..8 {
        seen.push_str(
            &render(&mut app, 100, 40, Instant::now())
                .backend()
                .to_string(),
        );
        app.on_key(
            crossterm::event::KeyEvent::from(crossterm::event::KeyCode::PageDown),
            Instant::now(),
        );
    }
    for b in tooloop::tui::keys::BINDINGS {
        assert!(seen.contains(b.help), "help is missing {:?}", b.help);
    }
    for c in tooloop::tui::update::slash::COMMANDS {
        assert!(seen.contains(c.help), "help is missing /{}", c.name);
    }
}

#[tokio::test(start_paused = true)]
async fn help_scrolls_at_80x24_with_a_more_line() {
    let mut app = app();
    app.overlays.help_open = true;
    let t = render(&mut app, 80, 24, Instant::now());
    assert!(t.backend().to_string().contains("more lines"));
    insta::assert_snapshot!("help_80x24_top", t.backend());
    app.on_key(
        crossterm::event::KeyEvent::from(crossterm::event::KeyCode::End),
        Instant::now(),
    );
    let t = render(&mut app, 80, 24, Instant::now());
    let screen = t.backend().to_string();
    assert!(screen.contains("/permissions") && screen.contains("lines above"));
    assert!(app.overlays.help_open, "scroll keys keep the help open");
    insta::assert_snapshot!("help_80x24_end", t.backend());
}

/// A help row too long for the box continues under its description, not at the key's
/// column (issue #41 item 14).
#[tokio::test(start_paused = true)]
async fn help_rows_that_wrap_continue_under_the_description_at_80x24() {
    let mut app = app();
    app.overlays.help_open = true;
    let mut checked = 0;
    for _ in 0..12 {
        let screen = render(&mut app, 80, 24, Instant::now())
            .backend()
            .to_string();
        let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
        for (i, row) in rows.iter().enumerate() {
            let text: String = row.iter().collect();
            let Some(at) = text.find("attach a file") else {
                continue;
            };
            let col = text[..at].chars().count();
            let Some(next) = rows.get(i + 1).filter(|r| !r.contains(&'↓')) else {
                continue;
            };
            let first = next
                .iter()
                .skip(1)
                .position(|c| !c.is_whitespace() && *c != '│')
                .map(|p| p + 1);
            assert_eq!(
                first,
                Some(col),
                "continued under the description:\n{screen}"
            );
            checked += 1;
        }
        app.on_key(
            crossterm::event::KeyEvent::from(crossterm::event::KeyCode::PageDown),
            Instant::now(),
        );
    }
    assert!(checked > 0, "the @path row was seen wrapped");
}

#[tokio::test(start_paused = true)]
async fn tiny_terminals_never_panic() {
    for (w, h) in [
        (1, 1),
        (2, 2),
        (10, 3),
        (20, 5),
        (40, 10),
        (79, 23),
        (300, 2),
    ] {
        let mut app = app();
        let now = Instant::now();
        prompt(&mut app, "list files", now);
        feed(
            &mut app,
            now,
            vec![
                text("a long line of streaming text that will not fit"),
                tool_use("a", "list_dir", json!({})),
                permission_request("a", "bash", json!({"command": "ls"})),
            ],
        );
        app.panes.json_open = true;
        app.overlays.help_open = true;
        render(&mut app, w, h, now);
    }
    let mut app = app();
    let t = render(&mut app, 20, 5, Instant::now());
    insta::assert_snapshot!(t.backend());
}

#[tokio::test(start_paused = true)]
async fn escape_sequences_render_inert() {
    let nasty = "before\x1b[2J\x1b]52;c;SGVsbG8=\x07\x07middle\x1b[31mred\x1b[0m\rafter";
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "x", now);
    feed(
        &mut app,
        now,
        vec![
            text(&format!("model says {nasty}\n\n")),
            tool_use("a", "bash", json!({"command": nasty})),
            start("a", "bash"),
            AgentEvent::ToolEnd {
                id: "a".into(),
                name: "bash\x1b[2J".into(),
                is_error: false,
                outcome: ToolOutcome::Ok,
                duration_ms: 5,
                output: nasty.into(),
            },
            AgentEvent::Error {
                message: nasty.into(),
            },
        ],
    );
    app.panes.conversation.select(true);
    app.panes.conversation.toggle_selected();
    for json_open in [false, true] {
        app.panes.json_open = json_open;
        let t = render(&mut app, 140, 40, now);
        let buf = t.backend().buffer();
        for cell in buf.content() {
            let s = cell.symbol();
            assert!(
                !s.contains('\x1b') && !s.contains('\x07') && !s.contains('\r'),
                "control char in cell {s:?}"
            );
            assert!(
                s.chars().all(|c| !c.is_control()),
                "control char in cell {s:?}"
            );
        }
        let screen = t.backend().to_string();
        assert!(
            screen.contains("before") && screen.contains("after"),
            "{screen}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn the_conversation_follows_only_while_at_the_bottom() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "count", now);
    for i in 0..60 {
        feed(&mut app, now, vec![text(&format!("line {i}\n\n"))]);
    }
    let screen = |app: &mut App| render(app, 80, 24, now).backend().to_string();
    assert!(screen(&mut app).contains("line 59"));
    app.panes.conversation.scroll.up(10);
    let before = screen(&mut app);
    assert!(!before.contains("line 59"));
    feed(&mut app, now, vec![text("line 60\n\n")]);
    let after = screen(&mut app);
    assert!(after.contains(" ↓ new output "), "{after}");
    assert_eq!(
        after.replace(" ↓ new output ", &" ".repeat(14)),
        before,
        "scrolled up: new output must not move the view"
    );
    app.panes.conversation.scroll.bottom();
    feed(&mut app, now, vec![text("line 61\n\n")]);
    assert!(screen(&mut app).contains("line 61"));
}
