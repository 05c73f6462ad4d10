//! SIGINT mid-turn against the validating mock Anthropic server, then `--continue`: the
//! next request (checked like the real API: every tool_use answered, roles alternating) is
//! accepted, and the interrupted tool's process is gone.

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use serde_json::{Value, json};
use support::session::Sandbox;
use support::{MockServer, ReplyBuilder, text_reply};

fn spawn_turn(
    sb: &Sandbox,
    server: &MockServer,
    prompt: &str,
    extra: &[&str],
) -> std::process::Child {
    sb.cmd()
        .env("ANTHROPIC_API_KEY", "test-key")
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &server.anthropic_base(),
        ])
        .args([
            "--approval",
            "yolo",
            "--output-format",
            "stream-json",
            "-p",
            prompt,
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn")
}

fn lines_until_exit(
    child: &mut std::process::Child,
    mut on_line: impl FnMut(&Value),
) -> (Vec<Value>, Option<i32>) {
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("line");
        let v: Value = serde_json::from_str(&line).expect("json line");
        on_line(&v);
        lines.push(v);
    }
    let code = child.wait().expect("wait").code();
    (lines, code)
}

#[test]
fn interrupted_tools_leave_a_history_the_api_accepts() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    // Two calls in one reply: a quick one that finishes, and a slow shell command.
    server.enqueue(
        ReplyBuilder::new()
            .text("Looking.")
            .tool_use("toolu_time", "get_current_time", json!({}))
            .tool_use(
                "toolu_slow",
                "bash",
                json!({"command": "echo started; sleep 31.5"}),
            )
            .delay_ms(5)
            .build(),
    );
    let mut child = spawn_turn(&sb, &server, "check things", &[]);
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let mut sent = false;
    let (mut stream_ended, mut slow_running) = (false, false);
    let (lines, code) = lines_until_exit(&mut child, |v| {
        stream_ended |= v["type"] == "stream_end";
        slow_running |= v["type"] == "tool_progress" && v["id"] == "toolu_slow";
        // Abort during the tools phase: the model's stream is over, the shell still runs.
        if !sent && stream_ended && slow_running {
            nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT");
            sent = true;
        }
    });
    assert!(sent, "the slow tool never reported progress: {lines:?}");
    assert_eq!(code, Some(130));
    let result = lines.last().expect("result");
    assert_eq!(result["reason"], "aborted_tools");
    support::assert_valid_history(result);
    assert!(
        !sleep_running(),
        "the interrupted command's process group was killed"
    );
    let history = result["messages"].to_string();
    assert!(history.contains("interrupted by user"), "{history}");
    assert!(history.contains("[interrupted by user]"), "{history}");

    server.enqueue(text_reply("Picking up where we stopped."));
    let mut child = spawn_turn(&sb, &server, "go on", &["--continue"]);
    let (lines, code) = lines_until_exit(&mut child, |_| {});
    assert_eq!(code, Some(0), "{lines:?}");
    let result = lines.last().expect("result");
    assert_eq!(result["reason"], "completed");
    support::assert_valid_history(result);
    let requests = server.requests();
    assert!(
        requests.iter().all(|r| r.rejected.is_none()),
        "the mock refused a request"
    );
    let last = &server.accepted()[1].body["messages"];
    let answered: Vec<&str> = last[2]["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|b| b["tool_use_id"].as_str())
        .collect();
    assert_eq!(answered, vec!["toolu_time", "toolu_slow"]);
}

/// Whether any live (non-zombie) process runs the test's `sleep 31.5`.
fn sleep_running() -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|e| {
        let p = e.path();
        let cmd = std::fs::read(p.join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(p.join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
        !zombie && cmd == b"sleep\x0031.5\x00"
    })
}
