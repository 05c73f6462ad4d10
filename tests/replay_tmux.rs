//! `tooloop replay` in a real terminal (tmux, 80×24): a run recorded against the mock is
//! played back offline; tool rows end with their recorded durations, and `--step` plays one
//! event per Space. Skipped (with a message) when tmux is not installed.

mod support;
#[path = "tui_support/tmux.rs"]
mod tmux;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use support::*;
use tmux::Tmux;

const DEADLINE: Duration = Duration::from_secs(20);

fn have_tmux() -> bool {
    tmux::available("the replay TUI tests")
}

/// tooloop with `args` in an 80×24 pane, colours off.
struct Pane(Tmux);

impl std::ops::Deref for Pane {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.0
    }
}

impl Pane {
    fn start(name: &str, args: &str) -> Pane {
        let bin = env!("CARGO_BIN_EXE_tooloop");
        let command = format!(
            "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY NO_COLOR=1 '{bin}' {args}; echo EXITED:$?; sleep 600"
        );
        let t = Tmux::start(&format!("replay-{name}"), 80, 24, &command)
            .with_timing(DEADLINE, Duration::from_millis(50));
        Pane(t)
    }

    fn space(&self, n: usize) {
        for _ in 0..n {
            self.keys(&["Space"]);
        }
    }
}

fn find(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(find(&p, suffix));
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(p);
        }
    }
    out
}

/// A recorded run: one reply with a 700 ms shell command and a clock call, then an answer.
fn recording() -> (Run, PathBuf) {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .text("Waiting a little.")
            .tool_use("toolu_sleep", "bash", json!({"command": "sleep 0.7"}))
            .tool_use("toolu_time", "get_current_time", json!({}))
            .delay_ms(5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("Replayed fine.").build());
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "sleep a bit",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-mock",
        "--allow-tool",
        "bash",
        "--sandbox",
        "off",
        "--record",
    ])
    .env("ANTHROPIC_API_KEY", "k-test")
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let rec = find(run.home.path(), ".record").pop().expect("a recording");
    (run, rec)
}

#[test]
fn tool_rows_end_with_their_recorded_durations() {
    if !have_tmux() {
        return;
    }
    let (_run, rec) = recording();
    let started = Instant::now();
    let pane = Pane::start("pace", &format!("replay '{}'", rec.display()));
    let running = pane.wait_for("the shell call running", |s| {
        s.contains("sleep 0.7") && !s.contains("replay finished")
    });
    assert!(running.contains("(replay)"), "{running}");
    let done = pane.wait_for("the end of the replay", |s| s.contains("replay finished"));
    // Nothing ran: the row shows the recorded duration, and the replay took about as long.
    let row = done
        .lines()
        .find(|l| l.contains("✓ bash sleep 0.7"))
        .unwrap_or_else(|| panic!("no finished bash row:\n{done}"));
    assert!(
        row.contains("· 0.7s") || row.contains("· 0.8s"),
        "recorded duration: {row:?}\n{done}"
    );
    assert!(done.contains("Replayed fine."), "{done}");
    assert!(started.elapsed() >= Duration::from_millis(700));
}

#[test]
fn step_plays_one_event_per_space() {
    if !have_tmux() {
        return;
    }
    let (_run, rec) = recording();
    let pane = Pane::start("step", &format!("replay --step '{}'", rec.display()));
    let intro = pane.wait_for("the intro", |s| s.contains("events, one event per Space"));
    let n: usize = intro
        .split("recording: ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("event count in:\n{intro}"));
    assert!(n > 10, "{intro}");
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        !pane.screen().contains("sleep a bit"),
        "nothing plays by itself"
    );
    pane.space(1);
    pane.wait_for("the prompt (the first event)", |s| {
        s.contains("sleep a bit")
    });
    pane.space(n - 2);
    std::thread::sleep(Duration::from_millis(400));
    let before = pane.screen();
    assert!(
        !before.contains("replay finished"),
        "one event still to play:\n{before}"
    );
    pane.space(1);
    let after = pane.wait_for("the end", |s| s.contains("replay finished"));
    assert!(after.contains("Replayed fine."), "{after}");
    assert!(
        after.contains("Ask something"),
        "Space never reached the input box (its placeholder still shows):\n{after}"
    );
}
