//! The TUI's update logic without a terminal: feed AgentEvents and keys, assert the state and
//! the AgentCommands the UI sends.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use tokio::time::Instant;
use tooloop::protocol::approval::Decision;
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal, ToolOutcome};
use tooloop::tui::app::{App, Focus};
use tooloop::tui::panes::cells::CellKind;
use tooloop::tui::panes::json::JsonView;
use tooloop::tui::tool_calls::ToolState;

use crate::support;
use support::tui::*;

#[tokio::test(start_paused = true)]
async fn enter_sends_and_ctrl_c_while_busy_aborts() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    assert!(app.turn.busy);
    app.on_agent(tool_use("t1", "bash", json!({"command": "sleep 5"})), now);
    app.on_agent(
        AgentEvent::ToolStart {
            id: "t1".into(),
            name: "bash".into(),
        },
        now,
    );
    app.on_key(ctrl('c'), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::Abort]);
    assert!(!app.status.should_quit);
    // The executor reports the killed call, then the turn ends aborted.
    app.on_agent(
        tool_end(
            "t1",
            "bash",
            ToolOutcome::Cancelled,
            300,
            "interrupted by user",
        ),
        now + Duration::from_millis(300),
    );
    app.on_agent(
        done(Terminal::AbortedTools),
        now + Duration::from_millis(300),
    );
    assert!(!app.turn.busy);
    assert_eq!(row(&app, 0).state, ToolState::Cancelled);
    assert!(matches!(
        app.panes.conversation.cells().last().map(|c| &c.kind),
        Some(CellKind::Interrupted)
    ));
    // The next prompt goes to the same agent as a normal Submit.
    type_text(&mut app, "again", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: "again".into()
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn esc_aborts_a_running_turn() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    app.on_key(key(KeyCode::Esc), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::Abort]);
    // A second Esc does not send a second abort.
    app.on_key(key(KeyCode::Esc), now);
    assert_eq!(app.take_commands(), vec![]);
}

#[tokio::test(start_paused = true)]
async fn ctrl_c_when_idle_clears_then_arms_then_quits() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "draft", now);
    app.on_key(ctrl('c'), now);
    assert!(app.input.is_empty());
    assert!(!app.quit_armed(now));
    assert!(!app.status.should_quit);

    app.on_key(ctrl('c'), now);
    assert!(app.quit_armed(now));
    assert!(!app.status.should_quit);
    // The window closes after 2 s and the loop is told to wake for it.
    assert_eq!(app.next_wakeup(now), Some(now + Duration::from_secs(2)));
    let later = now + Duration::from_millis(2100);
    assert!(!app.quit_armed(later));
    app.on_key(ctrl('c'), later);
    assert!(
        !app.status.should_quit,
        "a press after the window only re-arms"
    );
    app.on_key(ctrl('c'), later + Duration::from_millis(500));
    assert!(app.status.should_quit);
    assert_eq!(app.take_commands(), vec![]);
}

#[tokio::test(start_paused = true)]
async fn ctrl_d_quits_only_on_an_empty_input() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "x", now);
    app.on_key(ctrl('d'), now);
    assert!(!app.status.should_quit);
    app.on_key(ctrl('c'), now);
    app.on_key(ctrl('d'), now);
    assert!(app.status.should_quit);
}

#[tokio::test(start_paused = true)]
async fn ctrl_u_clears_to_the_line_start_and_ctrl_z_undoes_it() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "打字中 typing", now);
    app.on_key(key(KeyCode::Left), now);
    app.on_key(ctrl('u'), now);
    assert_eq!(
        app.input.text(),
        "g",
        "Ctrl+U deletes from the caret to the line start"
    );
    app.on_key(ctrl('z'), now);
    assert_eq!(app.input.text(), "打字中 typing");
}

#[tokio::test(start_paused = true)]
async fn prompts_typed_while_busy_are_queued_until_done() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    type_text(&mut app, "next one", now);
    // Alt+Enter during a turn queues (Enter would steer it).
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT), now);
    assert_eq!(app.take_commands(), vec![], "nothing is sent while busy");
    assert_eq!(app.outbox.queued.len(), 1);
    assert!(app.input.is_empty());
    app.on_agent(done(Terminal::Completed), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: "next one".into()
        }]
    );
    assert!(app.turn.busy);
    assert!(app.outbox.queued.is_empty());
}

#[tokio::test(start_paused = true)]
async fn newline_keys_do_not_send() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "a", now);
    app.on_key(ctrl('j'), now);
    type_text(&mut app, "b", now);
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT), now);
    type_text(&mut app, "c", now);
    app.on_paste("d\ne");
    assert_eq!(app.take_commands(), vec![]);
    assert_eq!(app.input.text(), "a\nb\ncd\ne");
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: "a\nb\ncd\ne".into()
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn up_on_an_empty_input_recalls_earlier_prompts() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    app.on_agent(done(Terminal::Completed), now);
    app.on_key(key(KeyCode::Up), now);
    assert_eq!(app.input.text(), "hello");
}

fn ask(app: &mut App, id: &str, now: Instant) {
    app.on_agent(tool_use(id, "bash", json!({"command": "ls -la"})), now);
    app.on_agent(
        permission_request(id, "bash", json!({"command": "ls -la"})),
        now,
    );
}

#[tokio::test(start_paused = true)]
async fn approval_keys_answer_the_question() {
    // Every case types a stray `y` first, so Enter alone would only ask for a choice
    // (issue 41, item 0): the answer is always a deliberate one.
    let cases: [(&[KeyCode], Decision); 5] = [
        (&[KeyCode::Char('1'), KeyCode::Enter], Decision::AllowOnce),
        (
            &[KeyCode::Char('2'), KeyCode::Enter],
            Decision::AllowForSession,
        ),
        (&[KeyCode::Down, KeyCode::Enter], Decision::AllowForSession),
        (&[KeyCode::Esc], Decision::Deny { reason: None }),
        // "No, tell the model…" with nothing typed is a plain denial.
        (
            &[KeyCode::Char('3'), KeyCode::Enter, KeyCode::Enter],
            Decision::Deny { reason: None },
        ),
    ];
    for (keys, decision) in cases {
        let mut app = app();
        let now = Instant::now();
        start_turn(&mut app, now);
        ask(&mut app, "b1", now);
        assert!(app.overlays.approvals.is_open());
        assert_eq!(app.state_label(now), "waiting for approval");
        assert_eq!(row(&app, 0).state, ToolState::Approval);
        assert_eq!(
            app.next_wakeup(now),
            None,
            "nothing animates while the question waits"
        );
        // After the guard time, a letter answers nothing: it goes to the input.
        let later = now + Duration::from_secs(1);
        app.on_key(key(KeyCode::Char('y')), later);
        assert_eq!(app.take_commands(), vec![]);
        assert_eq!(app.input.text(), "y");
        let mut t = later;
        for &k in keys {
            t += Duration::from_secs(1);
            app.on_key(key(k), t);
        }
        assert_eq!(
            app.take_commands(),
            vec![AgentCommand::PermissionReply {
                id: "b1".into(),
                decision
            }]
        );
        assert!(!app.overlays.approvals.is_open());
    }
}

#[tokio::test(start_paused = true)]
async fn ctrl_c_during_approval_aborts_and_closes_the_modal() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    ask(&mut app, "b1", now);
    app.on_key(ctrl('c'), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::Abort]);
    assert!(!app.overlays.approvals.is_open());
}

#[tokio::test(start_paused = true)]
async fn tool_rows_follow_the_lifecycle_and_time() {
    let mut app = app();
    let t0 = Instant::now();
    start_turn(&mut app, t0);
    app.on_agent(
        AgentEvent::ToolUseStreaming {
            id: "r".into(),
            name: "read_file".into(),
        },
        t0,
    );
    assert_eq!(row(&app, 0).state, ToolState::Streaming);
    let t1 = t0 + Duration::from_millis(200);
    app.on_agent(
        tool_use("r", "read_file", json!({"path": "Cargo.toml"})),
        t1,
    );
    assert_eq!(row(&app, 0).state, ToolState::Queued);
    assert_eq!(row(&app, 0).summary, "Cargo.toml");
    app.on_agent(
        AgentEvent::ToolStart {
            id: "r".into(),
            name: "read_file".into(),
        },
        t1,
    );
    assert_eq!(app.state_label(t1), "running 1 tool");
    assert!(
        app.next_wakeup(t1).is_some(),
        "timers tick while a tool runs"
    );
    let t2 = t1 + Duration::from_millis(400);
    app.on_agent(
        tool_end("r", "read_file", ToolOutcome::Ok, 400, "[package]"),
        t2,
    );
    let row = row(&app, 0);
    assert_eq!(row.state, ToolState::Ok);
    assert_eq!(row.duration_ms, Some(400));
    assert_eq!(
        row.ended_at.map(|e| e - t1),
        Some(Duration::from_millis(400))
    );
    app.on_agent(done(Terminal::Completed), t2);
    assert_eq!(app.next_wakeup(t2), None, "idle: no wake-ups");
}

#[tokio::test(start_paused = true)]
async fn retry_shows_a_countdown() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    app.on_agent(
        AgentEvent::Retry {
            attempt: 1,
            max_attempts: 8,
            delay_ms: 2500,
            error: "overloaded".into(),
        },
        now,
    );
    assert_eq!(app.state_label(now), "retrying in 3s");
    assert_eq!(
        app.state_label(now + Duration::from_millis(1600)),
        "retrying in 1s"
    );
}

/// A stream that stops sending says so after a few seconds and keeps counting (issue #41
/// item 9); the next byte puts "streaming" back.
#[tokio::test(start_paused = true)]
async fn a_silent_stream_says_how_long_it_has_been_silent() {
    let mut app = app();
    let t0 = Instant::now();
    prompt(&mut app, "hello", t0);
    app.on_agent(AgentEvent::TextDelta { text: "Hi".into() }, t0);
    assert_eq!(app.state_label(t0 + Duration::from_secs(4)), "streaming");
    assert_eq!(
        app.state_label(t0 + Duration::from_secs(15)),
        "no data for 15s · Ctrl+C to stop"
    );
    assert_eq!(
        app.state_label(t0 + Duration::from_millis(16_900)),
        "no data for 16s · Ctrl+C to stop"
    );
    // The screen keeps waking while it waits, so the count moves on its own.
    let t1 = t0 + Duration::from_secs(16);
    assert!(
        app.next_wakeup(t1)
            .is_some_and(|w| w <= t1 + Duration::from_secs(1))
    );
    app.on_agent(
        AgentEvent::TextDelta {
            text: " there".into(),
        },
        t1,
    );
    assert_eq!(app.state_label(t1 + Duration::from_secs(1)), "streaming");
}

#[tokio::test(start_paused = true)]
async fn json_keys_toggle_cycle_and_save() {
    let mut app = app();
    let now = Instant::now();
    app.on_key(ctrl('o'), now);
    assert!(app.panes.json_open);
    app.on_key(key(KeyCode::F(3)), now);
    assert_eq!(app.panes.json.view, JsonView::Request);
    app.on_key(key(KeyCode::F(3)), now);
    assert_eq!(app.panes.json.view, JsonView::Sse);
    app.on_key(key(KeyCode::F(3)), now);
    assert_eq!(app.panes.json.view, JsonView::History);
    app.on_agent(
        AgentEvent::Message {
            index: 0,
            message: tooloop::message::Message::user_text("hi").into(),
        },
        now,
    );
    let dir = tempfile::tempdir().expect("tempdir");
    app.info.save_dir = dir.path().to_path_buf();
    app.on_key(ctrl('s'), now);
    let files: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").collect();
    assert_eq!(files.len(), 1);
    let path = files[0].as_ref().expect("entry").path();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(
        saved,
        json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    );
    let said = match app.panes.conversation.cells().last().map(|c| &c.kind) {
        Some(CellKind::Notice(t)) => t.clone(),
        _ => String::new(),
    };
    assert!(said.contains(&path.display().to_string()), "{said}");
    assert!(
        app.note(now)
            .is_some_and(|n| n.contains(&path.display().to_string()))
    );
    assert_eq!(
        app.next_wakeup(now),
        Some(now + Duration::from_secs(5)),
        "the note goes away by itself"
    );
    assert!(
        app.note(now)
            .is_some_and(|n| n.contains(&path.display().to_string()))
    );
    assert_eq!(
        app.next_wakeup(now),
        Some(now + Duration::from_secs(5)),
        "the note goes away by itself"
    );
    app.on_key(key(KeyCode::F(2)), now);
    assert!(!app.panes.json_open);
}

#[tokio::test(start_paused = true)]
async fn tab_cycles_focus_and_typing_returns_to_the_input() {
    let mut app = app();
    let now = Instant::now();
    app.panes.json_open = true;
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(app.panes.focus, Focus::Conversation);
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(
        app.panes.focus,
        Focus::Json,
        "no tools pane drawn yet, so JSON is next"
    );
    app.on_key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT), now);
    assert_eq!(app.panes.focus, Focus::Conversation);
    app.on_key(key(KeyCode::Char('z')), now);
    assert_eq!(app.panes.focus, Focus::Input);
    assert_eq!(app.input.text(), "z");
}

#[tokio::test(start_paused = true)]
async fn question_mark_on_empty_input_opens_help() {
    let mut app = app();
    let now = Instant::now();
    app.on_key(key(KeyCode::Char('?')), now);
    assert!(app.overlays.help_open);
    app.on_key(key(KeyCode::Esc), now);
    assert!(!app.overlays.help_open);
    type_text(&mut app, "why?", now);
    assert!(!app.overlays.help_open);
    assert_eq!(app.input.text(), "why?");
}

#[tokio::test(start_paused = true)]
async fn queued_prompts_return_to_the_input_after_an_abort() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    type_text(&mut app, "later", now);
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT), now);
    app.on_key(ctrl('c'), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::Abort]);
    app.on_agent(done(Terminal::AbortedStreaming), now);
    assert_eq!(
        app.take_commands(),
        vec![],
        "nothing starts on its own after Ctrl+C"
    );
    assert_eq!(app.input.text(), "later");
    assert!(app.outbox.queued.is_empty());
}

#[tokio::test(start_paused = true)]
async fn enter_in_the_conversation_expands_the_selected_tool_call() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    for (id, out) in [("a", "first output"), ("b", "second output")] {
        app.on_agent(tool_use(id, "read_file", json!({"path": id})), now);
        app.on_agent(tool_end(id, "read_file", ToolOutcome::Ok, 1, out), now);
    }
    let screen = |app: &mut App| {
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(60, 20)).expect("terminal");
        t.draw(|f| tooloop::tui::view::draw(app, f, now))
            .expect("draw");
        t.backend().to_string()
    };
    assert!(!screen(&mut app).contains("second output"));
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(app.panes.focus, Focus::Conversation);
    app.on_key(key(KeyCode::Enter), now);
    let s = screen(&mut app);
    assert!(
        s.contains("second output") && !s.contains("first output"),
        "{s}"
    );
    app.on_key(key(KeyCode::Left), now);
    app.on_key(key(KeyCode::Enter), now);
    let s = screen(&mut app);
    assert!(
        s.contains("first output") && s.contains("second output"),
        "{s}"
    );
}

#[tokio::test(start_paused = true)]
async fn first_left_after_tab_selects_the_newest_call_and_selection_scrolls_into_view() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    for i in 0..10 {
        let id = format!("c{i}");
        app.on_agent(
            tool_use(&id, "read_file", json!({"path": format!("file{i}.rs")})),
            now,
        );
        app.on_agent(
            tool_end(&id, "read_file", ToolOutcome::Ok, 1, &format!("output {i}")),
            now,
        );
        app.on_agent(
            AgentEvent::TextDelta {
                text: format!("paragraph {i}\n\nmore\n\nand more\n\n"),
            },
            now,
        );
        app.on_agent(
            AgentEvent::StreamEnd {
                turn: 1,
                stop_reason: None,
                usage: None,
            },
            now,
        );
    }
    render_text(&mut app, 80, 24, now);
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(app.panes.focus, Focus::Conversation);
    app.on_key(key(KeyCode::Left), now);
    app.on_key(key(KeyCode::Enter), now);
    let s = render_text(&mut app, 80, 24, now);
    assert!(
        s.contains("output 9"),
        "the first ← selects the newest call:\n{s}"
    );
    for _ in 0..9 {
        app.on_key(key(KeyCode::Left), now);
    }
    let s = render_text(&mut app, 80, 24, now);
    assert!(
        s.contains("file0.rs"),
        "the oldest call is scrolled into view:\n{s}"
    );
    app.on_key(key(KeyCode::Right), now);
    let s = render_text(&mut app, 80, 24, now);
    assert!(s.contains("file1.rs"), "{s}");
}

#[tokio::test(start_paused = true)]
async fn long_chinese_input_wraps_and_the_terminal_cursor_sits_at_the_caret() {
    let mut app = app();
    let now = Instant::now();
    let text: String = "中文输入法测试"
        .chars()
        .cycle()
        .take(72)
        .collect::<String>()
        + "END";
    type_text(&mut app, &text, now);
    let mut t =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("terminal");
    t.draw(|f| tooloop::tui::view::draw(&mut app, f, now))
        .expect("draw");
    let screen = t.backend().to_string();
    assert!(
        screen.contains("END"),
        "the end of the input shows:\n{screen}"
    );
    // 72 wide characters take 144 columns: row 1 holds 40, row 2 holds 32 and "END".
    let rows: Vec<&str> = screen.lines().collect();
    let end_row = rows
        .iter()
        .position(|r| r.contains("END"))
        .expect("END row");
    let mut pos = t.get_cursor_position().expect("cursor");
    assert_eq!(pos.y as usize, end_row, "cursor on the caret's row");
    assert_eq!(
        pos.x,
        32 * 2 + 3,
        "cursor just after END, counted in columns"
    );
    // Left over "END" and three wide characters: the cursor moves by their widths.
    for _ in 0..5 {
        app.on_key(key(KeyCode::Left), now);
    }
    t.draw(|f| tooloop::tui::view::draw(&mut app, f, now))
        .expect("draw");
    pos = t.get_cursor_position().expect("cursor");
    assert_eq!(pos.x, 30 * 2);
}
