//! Claude Code's `.claude/` folder in the real TUI (tmux) against the mock model: the status
//! line from a script (updated as the cost grows, its colours kept, a broken script falling
//! back to tooloop's own bar with one notice; several lines; the `cost` figures), `/skills`,
//! a typed `/NAME` skill, and the Notification hook of a turn ending unfocused. Skipped (with a message) when
//! tmux is not installed.

use crate::support;
use support::tmux;

use std::path::{Path, PathBuf};
use std::time::Duration;

use support::*;
use tmux::Tmux;

const DEADLINE: Duration = Duration::from_secs(30);

/// A status-line script as Claude Code's docs write them: jq over the stdin JSON.
const SCRIPT: &str = r#"#!/usr/bin/env bash
input=$(cat)
model=$(echo "$input" | jq -r '.model.display_name')
cost=$(echo "$input" | jq -r '.cost.total_cost_usd')
dir=$(basename "$(echo "$input" | jq -r '.workspace.current_dir')")
printf '\033[32mSL\033[0m %s cost=%.4f in %s\033]0;title\007\n' "$model" "$cost" "$dir"
"#;

struct Screen {
    t: Tmux,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for Screen {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.t
    }
}

fn start(name: &str, w: u16, h: u16, server: &MockServer, setup: impl Fn(&Path)) -> Option<Screen> {
    if !tmux::available() {
        eprintln!("tmux not installed: skipped");
        return None;
    }
    let dir = tempfile::tempdir().expect("dir");
    let home = dir.path().join("home");
    let ws: PathBuf = dir.path().join("ws");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    setup(&ws);
    let script = format!(
        "cd '{ws}' && '{bin}' --workspace '{ws}' --provider anthropic --base-url '{base}' \
         --model claude-sonnet-4-5 --no-session; echo EXITED:\\$?; sleep 600",
        ws = ws.display(),
        bin = env!("CARGO_BIN_EXE_tooloop"),
        base = server.anthropic_base(),
    );
    let command = format!(
        "env ANTHROPIC_API_KEY=sk-ant-tmux {} bash -c \"{script}\"",
        tmux::isolated_home(&home)
    );
    let t = Tmux::start(&format!("sl-{name}"), w, h, &command)
        .with_timing(DEADLINE, Duration::from_millis(100));
    Some(Screen { t, _dir: dir })
}

fn with_script(ws: &Path) {
    let path = ws.join(".claude/statusline.sh");
    std::fs::write(&path, SCRIPT).unwrap();
    std::process::Command::new("chmod")
        .args(["+x", &path.display().to_string()])
        .status()
        .unwrap();
    std::fs::write(
        ws.join(".claude/settings.json"),
        r#"{"statusLine": {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/statusline.sh"}}"#,
    )
    .unwrap();
}

fn cost_on(screen: &str) -> Option<f64> {
    let line = Tmux::status_line(screen);
    let at = line.find("cost=")?;
    line[at + 5..].split_whitespace().next()?.parse().ok()
}

fn status_line_follows_the_cost(name: &str, w: u16, h: u16) {
    let server = MockServer::start();
    for _ in 0..2 {
        server.enqueue(
            ReplyBuilder::new()
                .text("answered")
                .usage(100_000, 2_000)
                .build(),
        );
    }
    let Some(s) = start(name, w, h, &server, with_script) else {
        return;
    };
    let first = s.wait_for("the script's line", |sc| {
        Tmux::status_line(sc).starts_with("SL claude-sonnet-4-5 cost=0.0000 in ws")
    });
    assert!(
        !first.contains("title"),
        "the OSC sequence is dropped:\n{first}"
    );
    s.send_line("one");
    let after_one = s.wait_for("the cost after one prompt", |sc| {
        cost_on(sc).is_some_and(|c| c > 0.0)
    });
    let c1 = cost_on(&after_one).unwrap();
    s.send_line("two");
    let after_two = s.wait_for("a higher cost", |sc| cost_on(sc).is_some_and(|c| c > c1));
    assert!(cost_on(&after_two).unwrap() > c1);
    // The colours are kept: the pane's escape codes show green for "SL".
    let coloured = s.tmux(&["capture-pane", "-p", "-e", "-t", "0"]);
    let at = coloured.rfind("SL").unwrap();
    let before = &coloured[at.saturating_sub(24)..at];
    assert!(
        before.contains("[32m") || before.contains("38;5;2m"),
        "{coloured:?}"
    );
}

#[test]
fn the_status_line_script_follows_the_cost_at_80x24() {
    status_line_follows_the_cost("80", 80, 24);
}

#[test]
fn the_status_line_script_follows_the_cost_at_200x50() {
    status_line_follows_the_cost("200", 200, 50);
}

#[test]
fn a_failing_status_line_script_gives_tooloops_bar_and_one_notice() {
    let server = MockServer::start();
    let Some(s) = start("fail", 80, 24, &server, |ws| {
        std::fs::write(
            ws.join(".claude/settings.json"),
            r#"{"statusLine": {"type": "command", "command": "echo broken >&2; exit 3"}}"#,
        )
        .unwrap();
    }) else {
        return;
    };
    let screen = s.wait_text("status line command failed (exit code 3)");
    assert!(
        Tmux::status_line(&screen).contains("anthropic/claude-sonnet-4-5"),
        "{screen}"
    );
    assert_eq!(screen.matches("status line command failed").count(), 1);
}

#[test]
fn slash_skills_lists_the_skills() {
    let server = MockServer::start();
    let Some(s) = start("skills", 80, 24, &server, |ws| {
        let d = ws.join(".claude/skills/changelog-writer");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("SKILL.md"),
            "---\nname: changelog-writer\ndescription: Writes the changelog.\n---\nSteps.\n",
        )
        .unwrap();
        let u = ws.join(".claude/skills/commit-helper");
        std::fs::create_dir_all(&u).unwrap();
        std::fs::write(
            u.join("SKILL.md"),
            "---\nname: commit-helper\ndescription: Drafts commits.\ndisable-model-invocation: true\n---\nB\n",
        )
        .unwrap();
    }) else {
        return;
    };
    s.wait_text("Ask something");
    s.send_line("/skills");
    let screen = s.wait_text("INVOCABLE BY");
    assert!(
        screen.contains("changelog-writer  .claude/skills"),
        "{screen}"
    );
    assert!(screen.contains("model and user"), "{screen}");
    assert!(screen.contains("user only"), "{screen}");
}

/// Four lines of stdout: the first three are the status area (it grows to three rows), with
/// the `cost` figures tooloop counts.
const MULTI: &str = r#"#!/usr/bin/env bash
input=$(cat)
echo "ROW1 $(echo "$input" | jq -r '.model.display_name')"
echo "ROW2 added=$(echo "$input" | jq -r '.cost.total_lines_added') removed=$(echo "$input" | jq -r '.cost.total_lines_removed')"
echo "ROW3 api=$(echo "$input" | jq -r '.cost.total_api_duration_ms') dur=$(echo "$input" | jq -r '.cost.total_duration_ms')"
echo "ROW4 never shown"
"#;

#[test]
fn a_multi_line_status_line_grows_the_status_area_and_counts_lines() {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_1",
                "write_file",
                serde_json::json!({"path": "notes.txt", "content": "a\nb\nc\n"}),
            )
            .usage(1_000, 100)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .text("written")
            .usage(1_000, 100)
            .build(),
    );
    let Some(s) = start("multi", 80, 24, &server, |ws| {
        let path = ws.join(".claude/statusline.sh");
        std::fs::write(&path, MULTI).unwrap();
        std::process::Command::new("chmod")
            .args(["+x", &path.display().to_string()])
            .status()
            .unwrap();
        // Write allowed by Claude Code's rule: no question in the way.
        std::fs::write(
            ws.join(".claude/settings.json"),
            r#"{"statusLine": {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/statusline.sh"},
                "permissions": {"allow": ["Write"]}}"#,
        )
        .unwrap();
    }) else {
        return;
    };
    s.wait_text("ROW3 api=0");
    s.send_line("write the notes");
    let screen = s.wait_for("three lines counted", |sc| {
        sc.contains("ROW2 added=3 removed=0")
    });
    let rows: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    let last3 = &rows[rows.len() - 3..];
    assert!(last3[0].starts_with("ROW1 claude-sonnet-4-5"), "{screen}");
    assert!(last3[1].starts_with("ROW2 added=3"), "{screen}");
    assert!(last3[2].starts_with("ROW3 api="), "{screen}");
    assert!(!screen.contains("ROW4"), "three rows at most:\n{screen}");
    // Time is counted from the session's start.
    let dur = |sc: &str| -> Option<u64> {
        let at = sc.find("dur=")?;
        sc[at + 4..].split_whitespace().next()?.parse().ok()
    };
    let d1 = dur(&screen).unwrap();
    assert!(d1 > 0, "{screen}");
}

#[test]
fn a_typed_skill_is_used_like_the_models_skill_call() {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .text("changelog done")
            .usage(10, 5)
            .build(),
    );
    let Some(s) = start("skillcmd", 80, 24, &server, |ws| {
        let d = ws.join(".claude/skills/changelog-writer");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("SKILL.md"),
            "---\nname: changelog-writer\ndescription: Writes the changelog.\n---\nGroup the commits. Focus: $ARGUMENTS\n",
        )
        .unwrap();
    }) else {
        return;
    };
    s.wait_text("Ask something");
    s.send_line("/changelog-writer API only");
    let screen = s.wait_text("changelog done");
    assert!(screen.contains("/changelog-writer API only"), "{screen}");
    let first = &server.accepted()[0].body_text;
    assert!(
        first.contains("<command-name>/changelog-writer</command-name>"),
        "{first}"
    );
    assert!(first.contains("Focus: API only"), "{first}");
}

#[test]
fn a_turn_that_ends_unfocused_tells_the_notification_hook() {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .text("first answer")
            .usage(10, 5)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .text("second answer")
            .usage(10, 5)
            .build(),
    );
    let Some(s) = start("notify", 80, 24, &server, |ws| {
        std::fs::write(
            ws.join(".claude/settings.json"),
            r#"{"hooks": {"Notification": [{"hooks": [
                {"type": "command", "command": "cat >> notified.jsonl; echo >> notified.jsonl"}
            ]}]}}"#,
        )
        .unwrap();
    }) else {
        return;
    };
    let ws = s._dir.path().join("ws");
    s.wait_text("Ask something");
    // Focused: the turn's end tells nobody.
    s.send_line("one");
    s.wait_text("first answer");
    // The terminal reports the focus lost (CSI O), as a terminal with focus events does.
    s.tmux(&["send-keys", "-t", "0", "-H", "1b", "5b", "4f"]);
    s.send_line("two");
    s.wait_text("second answer");
    let file = ws.join("notified.jsonl");
    wait_for_file_text(&file, "idle_prompt", DEADLINE);
    let text = std::fs::read_to_string(&file).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 1, "only the unfocused turn: {text}");
    assert_eq!(records[0]["hook_event_name"], "Notification");
    assert_eq!(records[0]["notification_type"], "idle_prompt");
}
