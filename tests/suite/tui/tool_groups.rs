//! The tools pane groups its rows by prompt: a header per prompt above its calls, the
//! current prompt's group open, older ones closed to their header until Enter (tools pane
//! focused) opens them. Snapshots at 80×24 and 200×50. Regenerate after an intended change:
//! `INSTA_UPDATE=always cargo test --test all -- suite::tui::tool_groups::`.

use crate::support;

use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::{AgentEvent, Terminal, ToolOutcome};
use tooloop::tui::app::{App, Focus};

fn prompt(app: &mut App, text: &str, now: Instant) {
    app.turn.busy = true;
    app.on_agent(AgentEvent::PromptStart { text: text.into() }, now);
    app.on_agent(AgentEvent::TurnStart { turn: 1 }, now);
}

fn call(app: &mut App, id: &str, name: &str, input: serde_json::Value, now: Instant, ms: u64) {
    app.on_agent(tool_use(id, name, input), now);
    app.on_agent(
        AgentEvent::ToolStart {
            id: id.into(),
            name: name.into(),
        },
        now,
    );
    if ms > 0 {
        app.on_agent(tool_end(id, name, ToolOutcome::Ok, ms, "ok"), now);
    }
}

/// Three prompts: two calls, none, then three (the last still running).
fn three_prompts(app: &mut App, t0: Instant) -> Instant {
    prompt(app, "list files and read Cargo.toml", t0);
    call(app, "a1", "list_dir", json!({"path": "."}), t0, 300);
    call(
        app,
        "a2",
        "read_file",
        json!({"path": "Cargo.toml"}),
        t0,
        400,
    );
    app.on_agent(done(Terminal::Completed), t0);
    let t1 = t0 + Duration::from_secs(5);
    prompt(app, "谢谢，解释一下 thanks, explain", t1);
    app.on_agent(done(Terminal::Completed), t1);
    let t2 = t1 + Duration::from_secs(5);
    prompt(
        app,
        "修复解析器里的错误 fix the parser bug\nand run the tests",
        t2,
    );
    call(app, "c1", "grep", json!({"pattern": "fn parse"}), t2, 200);
    call(
        app,
        "c2",
        "read_file",
        json!({"path": "src/parser.rs"}),
        t2,
        500,
    );
    call(app, "c3", "get_current_time", json!({}), t2, 0);
    t2 + Duration::from_millis(1500)
}

fn focus_tools(app: &mut App, now: Instant) {
    for _ in 0..6 {
        if app.panes.focus == Focus::Tools {
            return;
        }
        app.on_key(key(KeyCode::Tab), now);
    }
    panic!("Tab never reached the tools pane");
}

#[tokio::test(start_paused = true)]
async fn rows_are_grouped_by_prompt_and_older_groups_open_with_enter() {
    for (w, h) in [(80u16, 24u16), (200, 50)] {
        let mut app = app();
        let now = three_prompts(&mut app, Instant::now());
        if h < 50 {
            // 80x24: the timeline keeps every bar of this prompt and the list its newest two
            // lines; the headers are above them (Home in the focused pane).
            let s = render_text(&mut app, w, h, now);
            assert!(s.contains("⠇ get_current_time"), "{s}");
            focus_tools(&mut app, now);
            app.on_key(key(KeyCode::Home), now);
        }
        let s = render_text(&mut app, w, h, now);
        assert!(
            s.contains("▸ prompt 1 · list files and read Cargo.toml · 2 tools"),
            "{w}x{h}\n{s}"
        );
        assert!(
            !s.contains("prompt 2"),
            "a prompt without calls has no header\n{s}"
        );
        assert!(s.contains("▾ prompt 3 · 修复解析器"), "{w}x{h}\n{s}");
        assert!(s.contains("· 3 tools"), "{w}x{h}\n{s}");
        // Closed: the first prompt's calls are listed only in the conversation.
        let closed = s.matches("list_dir .").count();
        insta::assert_snapshot!(format!("tool_groups_{w}x{h}"), s);

        focus_tools(&mut app, now);
        app.on_key(key(KeyCode::Enter), now);
        app.on_key(key(KeyCode::Home), now);
        let s = render_text(&mut app, w, h, now);
        assert!(s.contains("▾ prompt 1"), "{w}x{h}\n{s}");
        assert_eq!(s.matches("list_dir .").count(), closed + 1, "{w}x{h}\n{s}");
        insta::assert_snapshot!(format!("tool_groups_open_{w}x{h}"), s);
        // Enter again closes them; Esc returns to the input; Tab/←/→ still select calls in
        // the conversation.
        app.on_key(key(KeyCode::Enter), now);
        assert!(render_text(&mut app, w, h, now).contains("▸ prompt 1"));
        app.on_key(key(KeyCode::Esc), now);
        assert_eq!(app.panes.focus, Focus::Input);
    }
}

#[tokio::test(start_paused = true)]
async fn a_resumed_history_is_grouped_by_its_prompts() {
    use tooloop::message::{ContentBlock, Message, validate_history};
    let use_ = |id: &str| {
        Message::assistant(vec![ContentBlock::ToolUse {
            id: id.into(),
            name: "get_current_time".into(),
            input: json!({}),
        }])
    };
    let result = |id: &str| Message::user(vec![ContentBlock::tool_result(id, "12:00", false)]);
    let history = vec![
        Message::user_text("what time is it"),
        use_("r1"),
        result("r1"),
        Message::assistant(vec![ContentBlock::text("noon")]),
        Message::user_text("and now?"),
        use_("r2"),
        result("r2"),
        Message::assistant(vec![ContentBlock::text("still noon")]),
    ];
    validate_history(&history).expect("valid");
    let mut app = app();
    let now = Instant::now();
    app.on_agent(history_reset(history), now);
    let s = render_text(&mut app, 200, 50, now);
    assert!(s.contains("▸ prompt 1 · what time is it · 1 tool"), "{s}");
    assert!(s.contains("▾ prompt 2 · and now? · 1 tool"), "{s}");
    // The next live prompt is number 3.
    prompt(&mut app, "once more", now);
    call(&mut app, "n1", "get_current_time", json!({}), now, 100);
    let s = render_text(&mut app, 200, 50, now);
    assert!(s.contains("▾ prompt 3 · once more · 1 tool"), "{s}");
    assert!(s.contains("▸ prompt 2"), "{s}");
}

/// Issue 41, item 16: at 80×24 a prompt with more calls than the list shows hides the rows
/// above with a mark that says how many ("↑ N more"), instead of dropping them silently.
#[tokio::test(start_paused = true)]
async fn rows_hidden_above_are_counted_at_80x24() {
    let mut app = app();
    let t0 = Instant::now();
    prompt(&mut app, "read them all", t0);
    for i in 0..12 {
        call(
            &mut app,
            &format!("r{i}"),
            "read_file",
            json!({"path": format!("file{i}.rs")}),
            t0,
            100,
        );
    }
    let whole = render_text(&mut app, 80, 24, t0 + Duration::from_secs(2));
    // The tools pane: from its title down.
    let screen = whole
        .split_once(" tools ─")
        .map(|(_, pane)| pane.to_string())
        .unwrap_or_else(|| panic!("no tools pane:\n{whole}"));
    let mark = screen
        .lines()
        .find(|l| l.contains("↑ ") && l.contains(" more"))
        .unwrap_or_else(|| panic!("no ↑ N more mark:\n{whole}"));
    let n: usize = mark
        .split("↑ ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("a count");
    let shown = (0..12)
        .filter(|i| screen.contains(&format!("file{i}.rs")))
        .count();
    // The prompt's header and its 12 calls: what is not shown is counted.
    assert_eq!(n + shown, 13, "{whole}");
    assert!(screen.contains("file11.rs"), "the newest stays:\n{whole}");
}
