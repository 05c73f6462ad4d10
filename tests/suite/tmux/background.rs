//! Background jobs in the real TUI (tmux) against the mock model (issue 26): the tools
//! pane's `background` group with a live row per job, `bg N` in the status bar, `/jobs`,
//! `/kill`, `b` + Enter opening a job's output in the JSON pane, and no job process left
//! once the terminal is gone (the tmux server killed) — also one that ignores SIGTERM and
//! forked a child. Skipped (with a message) when tmux is not installed.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::tmux::Tmux;
use support::*;

/// Live processes whose command line contains `needle`.
fn pgrep(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let live = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rfind(')').map(|i| !s[i + 2..].starts_with(['Z', 'X'])))
            .unwrap_or(false);
        if live
            && String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .contains(needle)
        {
            found.push(pid);
        }
    }
    found
}

fn start(name: &str, server: &MockServer, width: u16, height: u16) -> (Tmux, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&workspace).unwrap();
    let script = format!(
        "cd '{ws}' && '{bin}' --workspace '{ws}' --provider anthropic --base-url '{base}' \
         --model claude-mock --approval yolo --sandbox off; echo EXITED:\\$?; sleep 600",
        ws = workspace.display(),
        bin = env!("CARGO_BIN_EXE_tooloop"),
        base = server.anthropic_base(),
    );
    let command = format!(
        "env ANTHROPIC_API_KEY=sk-ant-tmux {} bash -c \"{script}\"",
        support::tmux::isolated_home(&home)
    );
    let t = Tmux::start(&format!("bg-{name}"), width, height, &command)
        .with_timing(Duration::from_secs(30), Duration::from_millis(100));
    (t, dir)
}

#[test]
fn jobs_are_live_rows_and_none_survives_the_terminal() {
    if !support::tmux::available() {
        return;
    }
    let mark = 4_000_000 + fastrand::u32(..1_000_000);
    let server = MockServer::start();
    let ticker = "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.1; done";
    let stubborn = format!("trap '' TERM; sleep {mark} & while true; do sleep 0.2; done");
    server.enqueue(tool_reply(&[
        (
            "toolu_1",
            "bash",
            json!({"command": ticker, "run_in_background": true}),
        ),
        (
            "toolu_2",
            "bash",
            json!({"command": stubborn, "run_in_background": true}),
        ),
    ]));
    server.enqueue(text_reply("both started"));
    let (t, _dir) = start("rows", &server, 120, 40);
    t.wait_text("idle");
    t.send_line("start two jobs");
    t.wait_text("both started");
    let s = t.wait_for("two live rows", |s| {
        s.contains("background · 2 running") && s.contains("bg 2") && s.contains("· tick")
    });
    eprintln!("{s}");
    assert!(s.contains("b1 i=0; while true"), "{s}");
    assert!(s.contains("b2 trap '' TERM"), "{s}");

    t.send_line("/jobs");
    t.wait_for("the /jobs list", |s| {
        s.contains("• b1 i=0; while true;") && s.matches("— running pid").count() == 2
    });
    t.send_line("/kill b1");
    let s = t.wait_for("b1 killed", |s| {
        s.contains("background · 1 running") && s.contains("bg 1") && s.contains("killed")
    });
    eprintln!("{s}");
    assert_eq!(
        server.accepted().len(),
        2,
        "commands are not sent to the model"
    );

    // Tools pane: `b` selects b1, Enter opens its output in the JSON pane.
    t.keys(&["Tab", "Tab"]);
    t.keys(&["b"]);
    t.wait_text("b1: x kill · Enter output");
    t.keys(&["Enter"]);
    let s = t.wait_for("b1's output in the JSON pane", |s| {
        s.contains("\"shell_id\": \"b1\"") && s.contains("tick 1\\n")
    });
    eprintln!("{s}");

    // The terminal goes away: every job's group ends, the one ignoring SIGTERM too.
    assert!(
        !pgrep(&format!("sleep {mark}")).is_empty(),
        "b2's child runs"
    );
    t.tmux(&["kill-server"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pgrep(&format!("sleep {mark}")).is_empty() || !pgrep("echo tick $i").is_empty() {
        assert!(
            Instant::now() < deadline,
            "a job process outlived the TUI's terminal"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_job_row_fits_80x24_with_chinese_output() {
    if !support::tmux::available() {
        return;
    }
    let server = MockServer::start();
    let command = "echo 你好，世界 第一行; while true; do echo 后台任务还在运行; sleep 0.2; done";
    server.enqueue(tool_reply(&[(
        "toolu_1",
        "bash",
        json!({"command": command, "run_in_background": true}),
    )]));
    server.enqueue(text_reply("已启动"));
    let (t, _dir) = start("cjk", &server, 80, 24);
    t.wait_text("idle");
    t.send_line("启动一个后台任务");
    let s = t.wait_for("the row with Chinese output", |s| {
        s.contains("后台任务还在运行") && s.contains("bg 1")
    });
    eprintln!("{s}");
    for line in s.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 80,
            "a line wider than the pane: {line}"
        );
    }
    // Typing while the job prints: the input keeps what was typed.
    t.type_text("还在打字");
    t.wait_text("还在打字");
}

#[test]
fn a_session_left_with_fork_or_sessions_takes_its_jobs_along() {
    if !support::tmux::available() {
        return;
    }
    for (w, h) in [(80, 24), (200, 50)] {
        leave_sessions_at(w, h);
    }
}

fn leave_sessions_at(w: u16, h: u16) {
    let mark = 5_000_000 + fastrand::u32(..1_000_000);
    let server = MockServer::start();
    for (id, seconds) in [("toolu_1", mark), ("toolu_2", mark + 1)] {
        server.enqueue(tool_reply(&[(
            id,
            "bash",
            json!({"command": format!("sleep {seconds}"), "run_in_background": true}),
        )]));
        server.enqueue(text_reply("started"));
    }
    let (t, _dir) = start(&format!("sessions-{w}"), &server, w, h);
    t.wait_text("idle");
    t.send_line("start a job");
    t.wait_for("b1 running", |s| {
        s.contains("bg 1") && s.contains("◷ b1 sleep")
    });
    assert_eq!(pgrep(&format!("sleep {mark}")).len(), 1);

    // /fork: the job stays with the session left, stopped; nothing runs in the fork.
    t.send_line("/fork");
    let s = t.wait_for("the fork", |s| {
        s.contains("forked: this is now session") && s.contains("⊘ b1 sleep")
    });
    eprintln!("{s}");
    assert!(s.contains("stopped background job b1 (sleep"), "{s}");
    assert!(!Tmux::status_line(&s).contains("bg 1"), "{s}");
    assert!(
        pgrep(&format!("sleep {mark}")).is_empty(),
        "b1 outlived its session"
    );

    // The fork's own job, then /sessions back to the first session: b2 stops, and the
    // list is the first session's alone.
    t.send_line("start another");
    t.wait_for("b2 running", |s| {
        s.contains("bg 1") && s.contains("◷ b2 sleep")
    });
    t.send_line("/sessions");
    t.wait_text("Enter resume");
    t.keys(&["Down", "Enter"]);
    let s = t.wait_for("the first session again", |s| {
        s.contains("stopped background job b2") && s.contains("⊘ b1 sleep")
    });
    eprintln!("{s}");
    assert!(!s.contains("b2 sleep"), "{s}");
    assert!(!Tmux::status_line(&s).contains("bg "), "{s}");
    assert!(
        pgrep(&format!("sleep {}", mark + 1)).is_empty(),
        "b2 outlived its session"
    );
    t.send_line("/jobs");
    let s = t.wait_for("/jobs", |s| s.contains("• b1 sleep"));
    assert!(!s.contains("• b2"), "{s}");
}
