//! `/hooks` in the real TUI (tmux, 80x24) against the mock model: a `.claude/settings.json`
//! whose hooks change mid-session is said, the old hook keeps running, `/hooks` shows the
//! change (added and removed hooks, with the file), `/hooks accept` makes the new hook run
//! from the next call on (and `/permissions` lists its rules), and a change answered with
//! `/hooks keep` never runs. With no
//! change pending, `/hooks` lists the hooks in force. Skipped (with a message) when tmux is
//! not installed.

use crate::support;
use support::tmux;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use support::*;
use tmux::Tmux;

const DEADLINE: Duration = Duration::from_secs(30);

/// A Bash PreToolUse hook that appends `word` to hook.log in the project, and an allow
/// rule naming `word`.
fn settings_with(ws: &Path, word: &str) {
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("echo {word} >> \"$CLAUDE_PROJECT_DIR\"/hook.log")}
    ]}]}, "permissions": {"allow": [format!("Bash(echo {word})")]}});
    std::fs::write(ws.join(".claude/settings.json"), settings.to_string()).unwrap();
}

fn bash_then(server: &MockServer, id: &str, answer: &str) {
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(id, "bash", json!({"command": "true"}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text(answer).usage(10, 5).build());
}

fn log(ws: &Path) -> Vec<String> {
    std::fs::read_to_string(ws.join("hook.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn slash_hooks_reviews_a_changed_settings_file_at_80x24() {
    if !tmux::available() {
        eprintln!("tmux not installed: skipped");
        return;
    }
    let server = MockServer::start();
    bash_then(&server, "toolu_1", "first done");
    bash_then(&server, "toolu_2", "second done");
    bash_then(&server, "toolu_3", "third done");
    let dir = tempfile::tempdir().expect("dir");
    let home = dir.path().join("home");
    let ws: PathBuf = dir.path().join("ws");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    settings_with(&ws, "old");
    let script = format!(
        "cd '{ws}' && '{bin}' --workspace '{ws}' --provider anthropic --base-url '{base}' \
         --model claude-sonnet-4-5 --no-session --allow-tool bash; echo EXITED:\\$?; sleep 600",
        ws = ws.display(),
        bin = env!("CARGO_BIN_EXE_tooloop"),
        base = server.anthropic_base(),
    );
    let command = format!(
        "env ANTHROPIC_API_KEY=sk-ant-tmux {} bash -c \"{script}\"",
        tmux::isolated_home(&home)
    );
    let s = Tmux::start("hooks-review", 80, 24, &command)
        .with_timing(DEADLINE, Duration::from_millis(100));
    s.wait_text("Ask something");

    // Nothing pending: the hooks in force, by event, with their source.
    s.send_line("/hooks");
    let screen = s.wait_text("hooks in force:");
    assert!(screen.contains("PreToolUse"), "{screen}");
    assert!(
        screen.contains("settings.json: hooks.PreToolUse[0]"),
        "{screen}"
    );

    // The file changes mid-session (as the model could write it): said, not applied.
    settings_with(&ws, "new");
    s.send_line("one");
    s.wait_text("first done");
    s.wait_text("changed during the session (hooks and permissions)");
    assert_eq!(
        log(&ws),
        vec!["old"],
        "the hook in force ran, not the new one"
    );

    // /hooks shows the change; accept applies it from the next call on.
    s.send_line("/hooks");
    let screen = s.wait_text("/hooks accept");
    assert!(
        screen.contains("+ hook PreToolUse [Bash]: echo new"),
        "{screen}"
    );
    assert!(
        screen.contains("- hook PreToolUse [Bash]: echo old"),
        "{screen}"
    );
    s.send_line("/hooks accept");
    s.wait_text("accepted: the hooks and permission rules of .claude/settings.json");
    s.send_line("two");
    s.wait_text("second done");
    assert_eq!(log(&ws), vec!["old", "new"], "the accepted hook ran");

    // Another change, declined with keep: the accepted hook still runs.
    settings_with(&ws, "declined");
    s.send_line("/hooks");
    s.wait_text("+ hook PreToolUse [Bash]: echo declined");
    s.send_line("/hooks keep");
    s.wait_text("kept the hooks and permission rules in force");
    s.send_line("three");
    s.wait_text("third done");
    assert_eq!(
        log(&ws),
        vec!["old", "new", "new"],
        "the declined hook never ran"
    );
}
