//! Hook scripts in the shapes Claude Code users write them (tests/fixtures/claude_hooks),
//! used unchanged from `.claude/settings.json`, headless against the mock: each answers as
//! it would in Claude Code. A jq guard denies a force push with `permissionDecision`; a Node
//! PostToolUse formatter fixes the written file, logs the call and tells the model through
//! `additionalContext`; a Python UserPromptSubmit hook adds the project's notes as context
//! and blocks a prompt carrying an API key before anything is sent.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claude_hooks");

/// A workspace with the scripts in `.claude/hooks/` and `settings` in
/// `.claude/settings.json`; the config file beside it.
fn project(settings: Value) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
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
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "").unwrap();
    (dir, ws, cfg)
}

fn hook(event: &str, matcher: Option<&str>, script: &str) -> Value {
    let mut group = json!({"hooks": [{"type": "command",
        "command": format!("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{script}")}]});
    if let Some(m) = matcher {
        group["matcher"] = m.into();
    }
    json!({"hooks": {event: [group]}})
}

fn tool_then_done(server: &MockServer, name: &str, input: Value) {
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", name, input)
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
}

fn run(server: &MockServer, prompt: &str, cfg: &Path, ws: &Path, extra: &[&str]) -> Run {
    headless_with_config(server, prompt, cfg, ws, extra).run()
}

#[test]
fn a_jq_guard_denies_a_force_push_with_its_reason() {
    let (_dir, ws, cfg) = project(hook("PreToolUse", Some("Bash"), "guard-force-push.sh"));
    let server = MockServer::start();
    tool_then_done(
        &server,
        "bash",
        json!({"command": "touch pushed && git push --force origin main"}),
    );
    let r = run(&server, "ship it", &cfg, &ws, &["--allow-tool", "bash"]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let h = r.of_type("hook");
    assert_eq!(h[0]["decision"], "deny", "{}", r.stdout);
    let out = r.first_tool_error();
    assert!(
        out.contains("Force pushes are not allowed from the agent: touch pushed"),
        "{out}"
    );
    assert!(!ws.join("pushed").exists(), "the command never ran");
    assert_valid_history(r.result());

    // Any other command passes the guard.
    let server = MockServer::start();
    tool_then_done(&server, "bash", json!({"command": "git --version > v.txt"}));
    let r = run(&server, "ship it", &cfg, &ws, &["--allow-tool", "bash"]);
    assert_eq!(r.of_type("hook")[0]["decision"], "none", "{}", r.stdout);
    assert!(ws.join("v.txt").exists());
}

#[test]
fn a_node_formatter_fixes_the_file_logs_and_tells_the_model() {
    let (_dir, ws, cfg) = project(hook(
        "PostToolUse",
        Some("Write|Edit|MultiEdit"),
        "format-on-write.js",
    ));
    let server = MockServer::start();
    tool_then_done(
        &server,
        "write_file",
        json!({"path": "notes.md", "content": "# Notes   \nfirst line\t\nsecond\n"}),
    );
    let r = run(
        &server,
        "write notes",
        &cfg,
        &ws,
        &["--allow-tool", "write_file"],
    );
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.md")).unwrap(),
        "# Notes\nfirst line\nsecond\n",
        "formatted after the write"
    );
    let log = std::fs::read_to_string(ws.join(".claude/edits.log")).unwrap();
    let line: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(line["event"], "PostToolUse");
    assert_eq!(line["tool"], "Write", "Claude Code's tool name");
    assert_eq!(line["file"], "notes.md");
    assert!(
        line["session"].as_str().is_some_and(|s| !s.is_empty()),
        "{line}"
    );
    // The model's next request carries the formatter's context with the tool result.
    let second = &server.accepted()[1].body_text;
    assert!(
        second.contains("Formatted notes.md: trailing whitespace removed."),
        "{second}"
    );
    assert_valid_history(r.result());
}

#[test]
fn a_python_prompt_hook_adds_notes_and_blocks_a_secret() {
    let (_dir, ws, cfg) = project(hook("UserPromptSubmit", None, "prompt-guard-context.py"));
    std::fs::write(ws.join(".claude/notes.md"), "Use tabs in the Makefile.\n").unwrap();
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
    let r = run(&server, "tidy the Makefile", &cfg, &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let first = &server.accepted()[0].body_text;
    assert!(first.contains("tidy the Makefile"), "{first}");
    assert!(
        first.contains("Project notes:\\nUse tabs in the Makefile."),
        "{first}"
    );
    assert_valid_history(r.result());

    let server = MockServer::start();
    let r = run(
        &server,
        "deploy with key sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
        &cfg,
        &ws,
        &[],
    );
    assert_eq!(r.code, Some(1), "stdout:\n{}", r.stdout);
    assert_eq!(r.result()["reason"], "hook_stopped");
    assert!(server.requests().is_empty(), "nothing was sent");
    assert!(
        r.stdout.contains("The prompt seems to contain a secret"),
        "{}",
        r.stdout
    );
}
