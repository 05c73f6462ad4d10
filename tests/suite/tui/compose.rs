//! The input's helpers without a terminal (issue 29): the `/` menu, commands from files,
//! `!command`, `@` completion, queued prompts taken back, Ctrl+G. Keys in, the App's
//! state and the commands it sends out.

use crate::support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::{AgentCommand, Terminal};
use tooloop::tui::app::{App, RunInfo};
use tooloop::tui::panes::cells::CellKind;

/// A live App (its approval mode is known) in `workspace`.
fn app_in(workspace: &std::path::Path) -> App {
    App::new(RunInfo {
        provider: "demo".into(),
        model: "tooloop-demo".into(),
        approval: "ask".into(),
        workspace: workspace.to_path_buf(),
        save_dir: std::env::temp_dir().join("tooloop-tui-compose-test"),
        ..Default::default()
    })
}

fn labels(app: &App) -> Vec<String> {
    app.compose
        .menu
        .as_ref()
        .map(|m| m.items.iter().map(|i| i.label.clone()).collect())
        .unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn the_menu_follows_typing_and_a_completion_leaves_nothing_stale() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    type_text(&mut app, "/ex", now);
    // Prefix matches first, then names that contain it (/context).
    assert_eq!(labels(&app), ["/export [FILE]", "/exit", "/context"]);
    app.on_key(key(KeyCode::Down), now);
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(app.input.text(), "/exit");
    assert!(app.compose.menu.is_none());
    assert!(
        app.note(now).is_none(),
        "no list of candidates stays behind"
    );
    assert!(app.take_commands().is_empty());
    // Typing on: the menu narrows again; a space (arguments) closes it.
    app.on_key(key(KeyCode::Backspace), now);
    assert_eq!(labels(&app), ["/exit"]);
    app.input.set_text("/export ");
    app.sync_menu();
    assert!(labels(&app).is_empty());
}

#[tokio::test(start_paused = true)]
async fn esc_closes_the_menu_without_stopping_the_turn() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    start_turn(&mut app, now);
    type_text(&mut app, "/he", now);
    assert_eq!(labels(&app), ["/help"]);
    app.on_key(key(KeyCode::Esc), now);
    assert!(app.compose.menu.is_none());
    assert!(app.take_commands().is_empty(), "no Abort");
    assert!(app.turn.busy);
    assert_eq!(app.input.text(), "/he");
    // It stays closed for that text, and opens again when the text changes.
    app.sync_menu();
    assert!(app.compose.menu.is_none());
    type_text(&mut app, "l", now);
    assert_eq!(labels(&app), ["/help"]);
}

#[tokio::test(start_paused = true)]
async fn enter_sends_a_command_that_needs_nothing_more() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    type_text(&mut app, "/kil", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(app.input.text(), "/kill ", "an ID is still to come");
    app.input.clear();
    type_text(&mut app, "/appro", now);
    app.on_key(key(KeyCode::Enter), now);
    assert!(app.input.is_empty(), "sent");
    let last = app.panes.conversation.cells().last().map(|c| &c.kind);
    assert!(
        matches!(last, Some(CellKind::Notice(t)) if t.starts_with("approval ask")),
        "/approval ran"
    );
}

#[tokio::test(start_paused = true)]
async fn a_command_file_sends_its_prompt_with_the_arguments() {
    let dir = tempfile::tempdir().expect("tmp");
    let cmds = dir.path().join(".tooloop/commands");
    std::fs::create_dir_all(&cmds).expect("dir");
    std::fs::write(cmds.join("review.md"), "# 审查\nReview $ARGUMENTS now.\n").expect("w");
    std::fs::write(cmds.join("help.md"), "not the built-in\n").expect("w");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    type_text(&mut app, "/", now);
    let all = labels(&app);
    assert!(all.contains(&"/review ARGS".to_string()), "{all:?}");
    assert_eq!(all.iter().filter(|l| *l == "/help").count(), 1, "{all:?}");
    type_text(&mut app, "rev", now);
    let menu = app.compose.menu.as_ref().expect("menu");
    assert_eq!(menu.items[0].detail, "审查");
    app.on_key(key(KeyCode::Tab), now);
    type_text(&mut app, "src/x.rs", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: "# 审查\nReview src/x.rs now.".into()
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn a_bang_line_runs_in_the_shell_and_waits_its_turn() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    type_text(&mut app, "!ls -la", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Shell {
            command: "ls -la".into()
        }]
    );
    assert!(app.turn.busy);
    // Typed during a turn: queued, then run.
    type_text(&mut app, "!pwd", now);
    app.on_key(key(KeyCode::Enter), now);
    assert!(app.take_commands().is_empty());
    app.on_agent(done(Terminal::Completed), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Shell {
            command: "pwd".into()
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn up_takes_the_last_queued_prompt_back_and_esc_drops_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    start_turn(&mut app, now);
    // Alt+Enter during a turn queues (Enter would steer it).
    for p in ["一", "two"] {
        type_text(&mut app, p, now);
        app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT), now);
    }
    assert_eq!(app.outbox.queued.len(), 2);
    app.on_key(key(KeyCode::Up), now);
    assert_eq!(app.input.text(), "two");
    assert_eq!(app.outbox.queued, ["一"]);
    app.on_key(key(KeyCode::Esc), now);
    assert!(app.input.is_empty());
    assert!(
        app.take_commands().is_empty(),
        "Esc dropped it, not the turn"
    );
    app.on_key(key(KeyCode::Up), now);
    assert_eq!(app.input.text(), "一");
    assert!(app.outbox.queued.is_empty());
    // Nothing queued: Up walks the prompt history as before.
    app.input.clear();
    app.on_key(key(KeyCode::Up), now);
    assert_eq!(app.input.text(), "two", "the history's newest prompt");
}

#[tokio::test(start_paused = true)]
async fn tab_after_at_completes_a_path() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(dir.path().join("src")).expect("dir");
    std::fs::write(dir.path().join("src/a.rs"), "").expect("w");
    std::fs::write(dir.path().join("src/b.rs"), "").expect("w");
    std::fs::write(dir.path().join("notes.txt"), "").expect("w");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    type_text(&mut app, "see @no", now);
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(app.input.text(), "see @notes.txt ");
    type_text(&mut app, "@src/", now);
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(labels(&app), ["src/a.rs", "src/b.rs"]);
    app.on_key(key(KeyCode::Up), now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(app.input.text(), "see @notes.txt @src/b.rs ");
    assert!(
        app.take_commands().is_empty(),
        "Enter picked, it did not send"
    );
    // Outside an @word Tab still moves the focus.
    app.on_key(key(KeyCode::Tab), now);
    assert_ne!(app.panes.focus, tooloop::tui::app::Focus::Input);
}

#[tokio::test(start_paused = true)]
async fn ctrl_g_asks_for_the_editor_only_in_a_live_session() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    type_text(&mut app, "draft", now);
    app.on_key(ctrl('g'), now);
    assert!(app.compose.editor_requested);
    app.compose.editor_requested = false;
    app.editor_done(Ok("draft, edited\nline 2".into()));
    assert_eq!(app.input.text(), "draft, edited\nline 2");
    // A replay has no agent to send to.
    let mut replay = app_in(dir.path());
    replay.info.approval = String::new();
    replay.on_key(ctrl('g'), now);
    assert!(!replay.compose.editor_requested);
}

#[tokio::test(start_paused = true)]
async fn the_menu_draws_above_the_input_at_80x24() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    type_text(&mut app, "/mo", now);
    let screen = render_text(&mut app, 80, 24, now);
    let lines: Vec<&str> = screen.lines().collect();
    let input = lines
        .iter()
        .position(|l| l.starts_with("/mo"))
        .expect("the input row");
    assert!(lines[input - 2].contains("/model [NAME]"), "{screen}");
    assert!(lines[input - 2].contains("list the models"), "{screen}");
}

#[tokio::test(start_paused = true)]
async fn a_resumed_conversation_shows_commands_and_attachments_briefly() {
    use tooloop::message::{ContentBlock, Message};
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = app_in(dir.path());
    let now = Instant::now();
    let user = Message::user(vec![
        ContentBlock::text("[The user ran a shell command in the workspace]\n$ ls\na.txt"),
        ContentBlock::text("read @notes.md"),
        ContentBlock::text("File notes.md (300 lines), attached by the user:\n\nline 1\nline 2"),
    ]);
    app.on_agent(history_reset(vec![user]), now);
    let cells: Vec<String> = app
        .panes
        .conversation
        .cells()
        .iter()
        .map(|c| match &c.kind {
            CellKind::User(t) => format!("user {t}"),
            CellKind::Notice(t) => format!("notice {t}"),
            _ => "other".into(),
        })
        .collect();
    assert_eq!(
        cells,
        [
            "user !ls",
            "notice a.txt",
            "user read @notes.md",
            "notice attached notes.md (300 lines)"
        ]
    );
}
