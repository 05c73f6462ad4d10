//! `--sandbox workspace-write --approval auto-edit` end to end: the real binary against the
//! mock Anthropic server. Commands run without prompts and are contained; what the sandbox
//! blocked reaches the model as a sandbox denial; tooloop itself stays free (it still
//! writes its transcript). Needs Landlock: `env_support` skips visibly where the kernel has
//! none, and fails under CI.

use crate::support;

use std::net::TcpListener;

use serde_json::{Value, json};
use support::env::landlock;
use support::*;

/// One bash call per command, in one reply, then "done". Returns the run and what the model
/// got back for each call (content, is_error) in order.
fn run_commands(commands: &[&str], extra: &[&str]) -> (Run, Vec<(String, bool)>) {
    run_commands_with(commands, extra, |t| t)
}

fn run_commands_with(
    commands: &[&str],
    extra: &[&str],
    setup: impl FnOnce(Tooloop) -> Tooloop,
) -> (Run, Vec<(String, bool)>) {
    let server = MockServer::start();
    let ids: Vec<String> = (0..commands.len()).map(|i| format!("toolu_{i}")).collect();
    let calls: Vec<(&str, &str, Value)> = commands
        .iter()
        .zip(&ids)
        .map(|(c, id)| (id.as_str(), "bash", json!({ "command": c })))
        .collect();
    server.enqueue(tool_reply(&calls));
    server.enqueue(text_reply("done"));
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "run the commands",
        "--output-format",
        "stream-json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--no-sibling-abort",
    ];
    args.extend_from_slice(extra);
    let run = setup(Tooloop::new(&args).env("ANTHROPIC_API_KEY", "test-key")).run();
    assert_eq!(
        run.code,
        Some(0),
        "stderr: {}\nstdout: {}",
        run.stderr,
        run.stdout
    );
    assert_valid_history(run.result());
    let requests = server.accepted();
    assert_eq!(
        requests.len(),
        2,
        "tooloop still reached the model after the calls"
    );
    let results = tool_results(&requests[1]);
    let out = ids
        .iter()
        .map(|id| {
            let (_, content, is_error) = results
                .iter()
                .find(|(i, _, _)| i == id)
                .unwrap_or_else(|| panic!("no result for {id}"));
            (content.as_str().unwrap_or("").to_string(), *is_error)
        })
        .collect();
    (run, out)
}

#[test]
fn workspace_write_with_auto_edit_runs_unasked_and_contains_writes() {
    if landlock().is_none() {
        return;
    }
    let (run, results) = run_commands(
        &[
            "echo in > inside.txt && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
            "touch ../outside",
            "echo x > /etc/x",
            "mkdir -p ~/.config/evil",
            "echo x > ~/.local/share/tooloop/sessions/evil.jsonl",
        ],
        &["--sandbox", "workspace-write", "--approval", "auto-edit"],
    );
    // auto-edit + a sandbox: every bash call was allowed without anyone asking.
    let decisions: Vec<&str> = run
        .of_type("permission")
        .iter()
        .map(|l| l["decision"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(decisions, ["allow"; 5]);
    // Inside the workspace and TMPDIR: fine.
    assert!(!results[0].1, "{}", results[0].0);
    assert!(results[0].0.contains('t'), "{}", results[0].0);
    assert_eq!(
        std::fs::read_to_string(run.workspace.join("inside.txt")).unwrap(),
        "in\n"
    );
    // Outside: refused, and the model is told it was the sandbox.
    let parent = run.workspace.parent().unwrap().canonicalize().unwrap();
    let home = run.home.path().canonicalize().unwrap();
    let expect = [
        (1, parent.join("outside")),
        (2, "/etc/x".into()),
        (3, home.join(".config")),
        (4, home.join(".local/share/tooloop/sessions/evil.jsonl")),
    ];
    for (i, path) in expect {
        let (content, is_error) = &results[i];
        assert!(is_error, "call {i}: {content}");
        assert!(
            content.contains(&format!(
                "blocked by the sandbox: write to {}",
                path.display()
            )),
            "call {i}: {content}"
        );
        assert!(!path.exists(), "{} was written", path.display());
    }
    assert!(!std::path::Path::new("/etc/x").exists());
    // stream-json says which sandbox each bash call ran under.
    let ends = run.of_type("tool_end");
    assert_eq!(ends.len(), 5);
    assert!(ends.iter().all(|l| l["sandbox"] == "workspace-write"));
}

#[test]
fn read_only_refuses_a_workspace_write() {
    if landlock().is_none() {
        return;
    }
    let (run, results) = run_commands(
        &[
            "cat /etc/hostname > /dev/null && echo read-ok",
            "echo x > new.txt",
        ],
        &["--sandbox", "read-only", "--approval", "auto-edit"],
    );
    assert!(!results[0].1, "{}", results[0].0);
    assert!(results[0].0.contains("read-ok"));
    assert!(results[1].1, "{}", results[1].0);
    assert!(
        results[1].0.contains("blocked by the sandbox: write to"),
        "{}",
        results[1].0
    );
    assert!(!run.workspace.join("new.txt").exists());
    assert!(
        run.of_type("tool_end")
            .iter()
            .all(|l| l["sandbox"] == "read-only")
    );
}

#[test]
fn tcp_to_loopback_is_blocked_until_sandbox_network() {
    if support::env::landlock_abi(4, "TCP rules").is_none() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");

    let (_run, results) = run_commands(&[&connect], &["--approval", "auto-edit"]);
    let (content, is_error) = &results[0];
    assert!(is_error, "network off by default: {content}");
    assert!(
        content.contains("blocked by the sandbox: network"),
        "{content}"
    );

    let (_run, results) = run_commands(
        &[&connect],
        &["--sandbox-network", "--approval", "auto-edit"],
    );
    let (content, is_error) = &results[0];
    assert!(!is_error, "{content}");
    assert!(content.contains("connected"), "{content}");
}

#[test]
fn the_sandbox_never_confines_tooloop_itself() {
    if landlock().is_none() {
        return;
    }
    // read-only: the strictest mode. Afterwards tooloop must still write its transcript
    // (outside the workspace, in the data dir) and make the second request.
    let server = MockServer::start();
    server.enqueue(tool_reply(&[(
        "toolu_ro",
        "bash",
        json!({"command": "echo x > blocked.txt"}),
    )]));
    server.enqueue(text_reply("after the sandboxed call"));
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "try it",
        "--output-format",
        "json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--approval",
        "yolo",
        "--sandbox",
        "read-only",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.result()["text"], "after the sandboxed call");
    let sessions = run.home.path().join(".local/share/tooloop/sessions");
    let transcript = std::fs::read_dir(&sessions)
        .expect("sessions dir")
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .find(|t| t.contains("after the sandboxed call"))
        .expect("a transcript written after the sandboxed call");
    assert!(
        transcript.contains("blocked by the sandbox"),
        "{transcript}"
    );
}

#[test]
fn sandbox_off_runs_unconfined_and_says_so_in_tool_end() {
    // Works on any kernel: no sandbox involved.
    let (run, results) = run_commands(
        &["echo x > ../outside-off"],
        &["--sandbox", "off", "--approval", "yolo"],
    );
    assert!(!results[0].1, "{}", results[0].0);
    assert!(run.workspace.parent().unwrap().join("outside-off").exists());
    assert!(
        run.of_type("tool_end")
            .iter()
            .all(|l| l["sandbox"] == "off")
    );
}

#[test]
fn tooloop_dirs_inside_the_workspace_stay_protected() {
    if landlock().is_none() {
        return;
    }
    // The workspace holds tooloop's data dir (think: the workspace is HOME).
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap().join("home");
    std::fs::create_dir_all(ws.join(".data/tooloop/sessions")).unwrap();
    std::fs::create_dir_all(ws.join("project")).unwrap();
    let data = ws.join(".data");
    let (_run, results) = run_commands_with(
        &[
            "echo ok > project/file",
            "echo x > .data/tooloop/sessions/evil.jsonl",
        ],
        &["--approval", "auto-edit"],
        |t| {
            t.workspace(&ws)
                .env("XDG_DATA_HOME", &data.to_string_lossy())
        },
    );
    assert!(!results[0].1, "{}", results[0].0);
    assert!(ws.join("project/file").exists());
    let (content, is_error) = &results[1];
    assert!(is_error, "{content}");
    assert!(content.contains("blocked by the sandbox"), "{content}");
    assert!(!ws.join(".data/tooloop/sessions/evil.jsonl").exists());
}
