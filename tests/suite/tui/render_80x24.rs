//! 80×24 is a first-class layout: one snapshot per state at that size (tools running, the
//! timeline, an approval, the JSON pane, an error, Chinese text), plus assertions on what
//! must stay in sight. Regenerate after an intended change: `INSTA_UPDATE=always cargo test
//! --test all -- suite::tui::render_80x24::` (then review `git diff tests/suite/tui/snapshots`).

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::{AgentEvent, Terminal, ToolOutcome};

/// Rows of the timeline: lines that start with a tool's label (the list's rows start with
/// a state icon).
fn timeline_rows<'a>(screen: &'a str, label: &str) -> Vec<&'a str> {
    screen.lines().filter(|l| l.starts_with(label)).collect()
}

#[tokio::test(start_paused = true)]
async fn three_tools_show_every_timeline_bar() {
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
            tool_use("c", "get_current_time", json!({})),
            start("c", "get_current_time"),
            AgentEvent::StreamEnd {
                turn: 1,
                stop_reason: Some("tool_use".into()),
                usage: None,
            },
            tool_end("a", "list_dir", ToolOutcome::Ok, 500, "Cargo.toml\nsrc/"),
        ],
    );
    tokio::time::advance(Duration::from_millis(700)).await;
    let screen = render_text(&mut app, 80, 24, Instant::now());
    for label in ["model", "list_dir", "read_file", "get_current"] {
        let rows = timeline_rows(&screen, label);
        assert_eq!(rows.len(), 1, "a timeline row for {label}:\n{screen}");
    }
    assert!(screen.contains("I'll look around."), "{screen}");
    insta::assert_snapshot!("tools_80x24", screen);
}

#[tokio::test(start_paused = true)]
async fn two_calls_of_one_tool_are_numbered_on_the_timeline() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "fetch both pages", now);
    feed(
        &mut app,
        now,
        vec![
            tool_use("a", "web_fetch", json!({"url": "http://127.0.0.1:1/a"})),
            start("a", "web_fetch"),
            tool_use("b", "web_fetch", json!({"url": "http://127.0.0.1:1/b"})),
            start("b", "web_fetch"),
        ],
    );
    let screen = render_text(&mut app, 80, 24, now + Duration::from_millis(400));
    // An ordinal in parentheses, kept when the name is cut (`#N` is an agent's number).
    for n in ["(1)", "(2)"] {
        let rows = timeline_rows(&screen, "web_fet");
        let label = |r: &&str| r.chars().take(13).collect::<String>();
        let numbered = rows.iter().filter(|r| label(r).trim_end().ends_with(n));
        assert_eq!(numbered.count(), 1, "{screen}");
    }
}

#[tokio::test(start_paused = true)]
async fn streaming_chinese_text_with_a_code_block() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "用中文解释这个函数", now);
    for chunk in [
        "这个函数读取配置文件，",
        "然后返回一个结构体。每一行都按显示宽度换行，不会在字符中间断开。\n\n",
        "```rust\nfn main() {\n    println!(\"你好\");\n}\n```\n",
    ] {
        feed(&mut app, now, vec![text(chunk)]);
    }
    let screen = render_text(&mut app, 80, 24, now + Duration::from_millis(800));
    assert!(screen.contains("› 用中文解释这个函数"), "{screen}");
    assert!(screen.contains("println!"), "{screen}");
    insta::assert_snapshot!("streaming_chinese_80x24", screen);
}

#[tokio::test(start_paused = true)]
async fn approval_for_bash() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "run the tests", now);
    let input = json!({"command": "cargo test --quiet -- --test-threads 2"});
    feed(
        &mut app,
        now,
        vec![
            tool_use("b", "bash", input.clone()),
            permission_request("b", "bash", input),
        ],
    );
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("cargo test --quiet"), "{screen}");
    assert!(screen.contains("allow"), "{screen}");
    insta::assert_snapshot!("approval_bash_80x24", screen);
}

#[tokio::test(start_paused = true)]
async fn failed_prompt_after_retries() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "hello", now);
    let err = "HTTP 500: internal server error (overloaded, try again later)";
    for attempt in 2..=3 {
        feed(
            &mut app,
            now,
            vec![AgentEvent::Retry {
                attempt,
                max_attempts: 8,
                delay_ms: 1000,
                error: err.into(),
            }],
        );
    }
    feed(
        &mut app,
        now,
        vec![
            AgentEvent::Error {
                message: err.into(),
            },
            done(Terminal::ModelError),
        ],
    );
    app.turn.busy = false;
    let screen = render_text(&mut app, 80, 24, now);
    assert_eq!(
        screen.matches("internal server error").count(),
        3,
        "{screen}"
    );
    insta::assert_snapshot!("error_80x24", screen);
}

#[tokio::test(start_paused = true)]
async fn json_pane_keeps_the_conversation_and_tools_in_sight() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "read Cargo.toml", now);
    feed(
        &mut app,
        now,
        vec![
            tool_use("a", "read_file", json!({"path": "Cargo.toml"})),
            start("a", "read_file"),
        ],
    );
    app.panes.json_open = true;
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("› read Cargo.toml"), "{screen}");
    assert!(screen.contains("read_file"), "{screen}");
    insta::assert_snapshot!("json_pane_tools_80x24", screen);
}

#[tokio::test(start_paused = true)]
async fn a_failed_tool_shows_its_first_error_line() {
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "read the missing file", now);
    feed(
        &mut app,
        now,
        vec![
            tool_use("a", "read_file", json!({"path": "missing.txt"})),
            start("a", "read_file"),
            tool_end(
                "a",
                "read_file",
                ToolOutcome::Error,
                3,
                "\ncannot read missing.txt: No such file or directory (os error 2)\nsecond line",
            ),
        ],
    );
    let screen = render_text(&mut app, 80, 24, now);
    let line = screen
        .lines()
        .find(|l| l.contains("└ cannot read missing.txt"))
        .unwrap_or_else(|| panic!("the error inline:\n{screen}"));
    assert!(
        line.trim_end().ends_with('…') || line.contains("(os error 2)"),
        "{line}"
    );
    assert!(!screen.contains("second line"), "{screen}");
}

#[tokio::test(start_paused = true)]
async fn scrolled_up_says_new_output_arrived() {
    use crossterm::event::KeyCode;
    let mut app = app();
    let now = Instant::now();
    prompt(&mut app, "count", now);
    let many: String = (1..=60).map(|i| format!("line {i}\n\n")).collect();
    feed(&mut app, now, vec![text(&many)]);
    let _ = render_text(&mut app, 80, 24, now);
    app.on_key(key(KeyCode::PageUp), now);
    let screen = render_text(&mut app, 80, 24, now);
    assert!(
        !screen.contains("↓ new output"),
        "nothing new yet:\n{screen}"
    );
    feed(&mut app, now, vec![text("more\n\nand more\n\n")]);
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("↓ new output"), "{screen}");
    for _ in 0..10 {
        app.on_key(key(KeyCode::PageDown), now);
        let _ = render_text(&mut app, 80, 24, now);
    }
    let screen = render_text(&mut app, 80, 24, now);
    assert!(!screen.contains("↓ new output"), "at the bottom:\n{screen}");
}

#[tokio::test(start_paused = true)]
async fn sessions_picker() {
    use crossterm::event::KeyCode;
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("sessions");
    // 2026-12-01 09:00 UTC and the hours after it.
    let base = 1_796_115_600;
    write_session(&dir, "aaaa0001", "/w", "explain the build script", 1, base);
    write_session(
        &dir,
        "bbbb0002",
        "/w",
        "修复解析器里的错误，然后运行全部测试并总结结果 fix the parser bug and run every test",
        4,
        base + 3_600,
    );
    write_session(&dir, "cccc0003", "/w", "add a --json flag", 2, base + 7_200);
    let mut app = app();
    let t = tooloop::session::Transcript::create(
        &dir,
        "/w",
        tooloop::protocol::events::EventSink::null(),
    );
    app.info.session_handle = Some(t.handle());
    app.info.workspace = "/w".into();
    let now = Instant::now();
    type_text(&mut app, "/sessions", now);
    app.on_key(key(KeyCode::Enter), now);
    app.overlays.sessions.as_mut().expect("the picker").wait();
    app.on_key(key(KeyCode::Down), now);
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("12-01 11:00"), "{screen}");
    insta::assert_snapshot!("sessions_picker_80x24", screen);
}
