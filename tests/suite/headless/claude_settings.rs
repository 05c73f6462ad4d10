//! Claude Code's `.claude/settings.json`, end to end: the real binary, headless, against the
//! mock model, with hook scripts written for Claude Code (tests/fixtures/claude_hooks) used
//! as they are, and Claude Code's permission rules.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claude_hooks");

/// `.claude/settings.json` in `ws` with `settings`; the hook scripts copied to
/// `.claude/hooks/` (where Claude Code projects keep them).
fn project(ws: &Path, settings: Value) {
    let hooks = ws.join(".claude/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for f in std::fs::read_dir(FIXTURES).unwrap().flatten() {
        std::fs::copy(f.path(), hooks.join(f.file_name())).unwrap();
    }
    std::fs::write(
        ws.join(".claude/settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
}

fn empty_config(dir: &Path) -> PathBuf {
    let p = dir.join("config.toml");
    std::fs::write(&p, "").unwrap();
    p
}

fn tool_then_answer(server: &MockServer, name: &str, input: Value) {
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", name, input)
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
}

fn run(server: &MockServer, cfg: &Path, ws: &Path, extra: &[&str]) -> Run {
    headless_with_config(server, "hello", cfg, ws, extra).run()
}

#[test]
fn a_pre_tool_use_hook_denying_rm_with_exit_2_blocks_it() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("keep.txt"), "precious").unwrap();
    project(
        &ws,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.py", "timeout": 30}
        ]}]}}),
    );
    let server = MockServer::start();
    tool_then_answer(&server, "bash", json!({"command": "rm keep.txt"}));
    // --allow-tool bash: without the hook, the call would run.
    let r = run(
        &server,
        &empty_config(dir.path()),
        &ws,
        &["--allow-tool", "bash"],
    );
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let h = r.of_type("hook");
    assert_eq!(h.len(), 1, "{}", r.stdout);
    assert_eq!(h[0]["event"], "pre_tool_use");
    assert_eq!(h[0]["exit"], 2);
    assert_eq!(h[0]["decision"], "deny");
    let out = r.first_tool_error();
    assert!(out.contains("Blocked: rm is not allowed"), "{out}");
    assert!(ws.join("keep.txt").exists(), "rm never ran");
    assert_valid_history(r.result());

    // Another command passes the same hook (it reads Claude Code's `tool_name: "Bash"`).
    let server = MockServer::start();
    tool_then_answer(&server, "bash", json!({"command": "echo ok > ok.txt"}));
    let r = run(
        &server,
        &empty_config(dir.path()),
        &ws,
        &["--allow-tool", "bash"],
    );
    assert_eq!(r.of_type("hook")[0]["decision"], "none", "{}", r.stdout);
    assert!(ws.join("ok.txt").exists());
}

#[test]
fn a_permission_decision_allow_skips_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    project(
        &ws,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/approve-mkdir.sh"}
        ]}]}}),
    );
    let server = MockServer::start();
    tool_then_answer(&server, "bash", json!({"command": "mkdir made"}));
    let r = run(&server, &empty_config(dir.path()), &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    assert_eq!(r.of_type("hook")[0]["decision"], "allow", "{}", r.stdout);
    assert_eq!(r.of_type("permission")[0]["decision"], "allow");
    assert!(ws.join("made").is_dir());

    // A command the hook does not approve is asked about, which headless refuses.
    let server = MockServer::start();
    tool_then_answer(&server, "bash", json!({"command": "touch nope"}));
    let r = run(&server, &empty_config(dir.path()), &ws, &[]);
    assert_eq!(
        r.of_type("permission")[0]["decision"],
        "deny",
        "{}",
        r.stdout
    );
    assert!(!ws.join("nope").exists());
    assert_valid_history(r.result());
}

#[test]
fn session_start_context_reaches_the_first_request() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    project(
        &ws,
        json!({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/session-context.sh"}
        ]}]}}),
    );
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
    let r = run(&server, &empty_config(dir.path()), &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let first = &server.accepted()[0];
    assert!(
        first
            .body_text
            .contains("Project conventions: run ./check.sh before committing (source: startup)"),
        "{}",
        first.body_text
    );
    let told: Value =
        serde_json::from_slice(&std::fs::read(ws.join("session-start.json")).unwrap()).unwrap();
    assert_eq!(told["hook_event_name"], "SessionStart");
    assert_eq!(told["source"], "startup");
    assert!(told["session_id"].is_string());
    assert_eq!(
        Path::new(told["cwd"].as_str().unwrap())
            .canonicalize()
            .unwrap(),
        ws.canonicalize().unwrap()
    );
    assert_valid_history(r.result());
}

#[test]
fn claude_code_permission_rules_decide_through_the_one_decision() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join(".env"), "SECRET=1").unwrap();
    project(
        &ws,
        json!({"permissions": {
            "allow": ["Bash(mkdir:*)", "WebSearch"],
            "deny": ["Read(./.env)"]
        }}),
    );
    let server = MockServer::start();
    tool_then_answer(&server, "bash", json!({"command": "mkdir allowed"}));
    let r = run(&server, &empty_config(dir.path()), &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let p = r.of_type("permission")[0];
    assert_eq!(p["decision"], "allow", "{}", r.stdout);
    assert!(ws.join("allowed").is_dir());

    let server = MockServer::start();
    tool_then_answer(&server, "read_file", json!({"path": ".env"}));
    let r = run(&server, &empty_config(dir.path()), &ws, &[]);
    let end = r.of_type("tool_end")[0];
    assert_eq!(end["is_error"], true);
    let out = end["output"].as_str().unwrap();
    assert!(out.contains(".claude/settings.json"), "{out}");
    assert!(!out.contains("SECRET"), "{out}");
    assert_valid_history(r.result());
}

#[test]
fn a_bad_settings_file_is_one_notice_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(ws.join(".claude/settings.json"), "{\n  \"hooks\": {,\n}").unwrap();
    std::fs::write(
        ws.join(".claude/settings.local.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "exit 2"}]}],
            "OnTuesday": []}}"#,
    )
    .unwrap();
    let server = MockServer::start();
    tool_then_answer(&server, "get_current_time", json!({}));
    let r = run(&server, &empty_config(dir.path()), &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let all = format!("{}\n{}", r.stdout, r.stderr);
    assert!(all.contains("settings.json:2:"), "{all}");
    assert!(all.contains("hooks.PreToolUse[0].matcher"), "{all}");
    assert!(all.contains("hooks.OnTuesday: unknown event"), "{all}");
    // The broken matcher's hook (exit 2) was skipped: the tool ran.
    assert_eq!(r.of_type("tool_end")[0]["is_error"], false, "{}", r.stdout);
}
