//! More of Claude Code's hook contract, headless against the mock: `transcript_path` on
//! stdin names the session's transcript (a file that exists), PreToolUse's
//! `hookSpecificOutput.updatedInput` replaces the tool's input (checked like the model's),
//! hooks of one event run at once and their answers merge with deny winning, and a
//! hook the model writes during the session is said, not applied (`/hooks` reviews it).

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::*;

fn settings(ws: &Path, settings: Value) {
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(
        ws.join(".claude/settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
}

fn pre_tool_use(hooks: Value) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}})
}

fn bash_then_done(server: &MockServer, command: &str) {
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "bash", json!({"command": command}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
}

fn run(server: &MockServer, dir: &Path, ws: &Path, extra: &[&str]) -> Run {
    let cfg = dir.join("config.toml");
    std::fs::write(&cfg, "").unwrap();
    headless_with_config(server, "hello", &cfg, ws, extra).run()
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    (dir, ws)
}

#[test]
fn transcript_path_is_the_sessions_transcript_file() {
    let (dir, ws) = setup();
    let script = "import json, os, sys\nd = json.load(sys.stdin)\np = d['transcript_path']\n\
                  open('seen.json', 'w').write(json.dumps({'path': p, 'file': os.path.isfile(p)}))\n";
    std::fs::write(ws.join("look.py"), script).unwrap();
    settings(
        &ws,
        pre_tool_use(json!([{"type": "command", "command": "python3 look.py"}])),
    );
    let server = MockServer::start();
    bash_then_done(&server, "true");
    let r = run(&server, dir.path(), &ws, &["--allow-tool", "bash"]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let seen: Value =
        serde_json::from_slice(&std::fs::read(ws.join("seen.json")).unwrap()).unwrap();
    let path = seen["path"].as_str().unwrap();
    assert!(path.ends_with(".jsonl"), "{seen}");
    assert_eq!(seen["file"], true, "{seen}");
    let session = r.result()["session_id"].as_str().unwrap_or("").to_string();
    assert!(path.contains(&session), "{path} names session {session}");
}

#[test]
fn updated_input_replaces_the_input_and_is_checked() {
    let (dir, ws) = setup();
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"command": "echo rewritten > out.txt"}}});
    settings(
        &ws,
        pre_tool_use(json!([{"type": "command",
            "command": format!("cat >/dev/null; echo '{answer}'")}])),
    );
    let server = MockServer::start();
    bash_then_done(&server, "echo original > out.txt");
    let r = run(&server, dir.path(), &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(ws.join("out.txt")).unwrap().trim(),
        "rewritten"
    );
    assert_valid_history(r.result());

    // An updatedInput the tool cannot take is the call's error; nothing runs.
    let bad = json!({"hookSpecificOutput": {"permissionDecision": "allow",
        "updatedInput": {"cmd": 7}}});
    settings(
        &ws,
        pre_tool_use(json!([{"type": "command",
            "command": format!("cat >/dev/null; echo '{bad}'")}])),
    );
    let server = MockServer::start();
    bash_then_done(&server, "echo again > again.txt");
    let r = run(&server, dir.path(), &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let out = r.first_tool_error();
    assert!(out.contains("updatedInput is not valid"), "{out}");
    assert!(!ws.join("again.txt").exists());
    assert_valid_history(r.result());
}

#[test]
fn hooks_of_one_event_run_at_once_and_deny_wins() {
    let (dir, ws) = setup();
    // The first waits (up to 10 s) for a file only the second writes: run one after the
    // other, it would give up and exit 1.
    let waiter = "cat >/dev/null; for i in $(seq 100); do [ -f second.flag ] && \
                  echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\"}}' && exit 0; \
                  sleep 0.1; done; exit 1";
    let second = "cat >/dev/null; touch second.flag; echo 'no rm here' >&2; exit 2";
    settings(
        &ws,
        pre_tool_use(json!([
            {"type": "command", "command": waiter},
            {"type": "command", "command": second}
        ])),
    );
    let server = MockServer::start();
    bash_then_done(&server, "echo ran > ran.txt");
    let r = run(&server, dir.path(), &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let hooks = r.of_type("hook");
    assert_eq!(hooks.len(), 2, "{}", r.stdout);
    let by = |cmd: &str| {
        hooks
            .iter()
            .find(|h| h["command"].as_str() == Some(cmd))
            .copied()
            .unwrap()
    };
    assert_eq!(
        by(waiter)["exit"],
        0,
        "it saw the other's file: {}",
        r.stdout
    );
    assert_eq!(by(waiter)["decision"], "allow");
    assert_eq!(by(second)["decision"], "deny");
    let end = r.of_type("tool_end")[0];
    assert_eq!(end["is_error"], true, "deny beats allow: {end}");
    assert!(end["output"].as_str().unwrap().contains("no rm here"));
    assert!(!ws.join("ran.txt").exists());
    assert_valid_history(r.result());
}

#[test]
fn hooks_written_during_the_session_are_said_and_not_applied() {
    let (dir, ws) = setup();
    settings(&ws, json!({"hooks": {}}));
    let server = MockServer::start();
    // The model writes a hook that would block every bash call, then calls bash.
    let written = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo blocked >&2; exit 2"}]}]}});
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_1",
                "write_file",
                json!({"path": ".claude/settings.json", "content": written.to_string()}),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_2", "bash", json!({"command": "echo ran > ran.txt"}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let r = run(
        &server,
        dir.path(),
        &ws,
        &["--allow-tool", "write_file", "--allow-tool", "bash"],
    );
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let ends = r.of_type("tool_end");
    assert_eq!(ends[0]["is_error"], false, "the write itself: {}", ends[0]);
    let all = format!("{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        all.matches(".claude/settings.json changed during the session (hooks)")
            .count(),
        1,
        "{all}"
    );
    assert!(all.contains("not applied"), "{all}");
    assert!(r.of_type("hook").is_empty(), "the written hook never ran");
    assert!(ws.join("ran.txt").exists(), "the hooks of the start hold");
    assert_valid_history(r.result());
}

#[test]
fn the_users_settings_file_is_watched_too() {
    let (dir, ws) = setup();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), "{}").unwrap();
    let server = MockServer::start();
    // The model writes a blocking hook into the user's own file, then calls bash.
    let written = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo blocked >&2; exit 2"}]}]}});
    let write = format!(
        "cat > '{}' <<'JSON'\n{written}\nJSON",
        home.join(".claude/settings.json").display()
    );
    let server2 = server;
    server2.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "bash", json!({"command": write}))
            .usage(10, 5)
            .build(),
    );
    server2.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_2", "bash", json!({"command": "echo ran > ran.txt"}))
            .usage(10, 5)
            .build(),
    );
    server2.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "").unwrap();
    // Sandbox off: the workspace-write sandbox alone would keep the write out of $HOME.
    let args = ["--allow-tool", "bash", "--sandbox", "off"];
    let r = headless_with_config(&server2, "hello", &cfg, &ws, &args)
        .env("HOME", &home.display().to_string())
        .run();
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let seen = std::fs::read_to_string(home.join(".claude/settings.json")).unwrap();
    assert!(
        seen.contains("exit 2"),
        "the write happened: {seen}\n{}",
        r.stdout
    );
    let all = format!("{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        all.matches("~/.claude/settings.json changed during the session (hooks)")
            .count(),
        1,
        "{all}"
    );
    assert!(r.of_type("hook").is_empty(), "the written hook never ran");
    assert!(ws.join("ran.txt").exists(), "the hooks in force hold");
    assert_valid_history(r.result());
}
