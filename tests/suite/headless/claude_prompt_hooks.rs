//! Claude Code's prompt hooks (`"type": "prompt"`), headless against the mock: the event's
//! JSON goes into the prompt at `$ARGUMENTS`, the `small` model route answers through the
//! same provider (the mock), and `{"ok": false, "reason": …}` blocks like a command hook's
//! exit 2: a Stop hook sends the model back once with the reason, a PreToolUse hook denies
//! the call.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::*;

fn setup(settings: Value) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(
        ws.join(".claude/settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "").unwrap();
    (dir, ws, cfg)
}

fn answer(server: &MockServer, text: &str) {
    server.enqueue(ReplyBuilder::new().text(text).usage(10, 5).build());
}

/// The text of a request's last user message.
fn last_user_text(body: &Value) -> String {
    let msgs = body["messages"].as_array().unwrap();
    let last = msgs.iter().rev().find(|m| m["role"] == "user").unwrap();
    match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn run(server: &MockServer, cfg: &Path, ws: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["--small-model", "claude-small-mock"];
    args.extend_from_slice(extra);
    headless_with_config(server, "fix the bug", cfg, ws, &args).run()
}

#[test]
fn a_stop_prompt_hook_blocks_the_stop_once_with_its_reason() {
    let (_dir, ws, cfg) = setup(json!({"hooks": {"Stop": [{"hooks": [{
        "type": "prompt",
        "prompt": "Did the agent run the tests? Input: $ARGUMENTS",
        "timeout": 30
    }]}]}}));
    let server = MockServer::start();
    answer(&server, "I fixed it.");
    answer(
        &server,
        r#"{"ok": false, "reason": "the tests were not run"}"#,
    );
    answer(&server, "Ran the tests: all pass.");
    answer(&server, r#"{"ok": true}"#);
    let r = run(&server, &cfg, &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 4, "main, hook, main, hook");
    // The hook's question: the small route, the prompt with the event's JSON in place of
    // $ARGUMENTS (Claude Code's payload), no tools.
    let asked = &reqs[1].body;
    assert_eq!(asked["model"], "claude-small-mock");
    assert!(
        asked
            .get("tools")
            .is_none_or(|t| t.as_array().unwrap().is_empty())
    );
    let text = last_user_text(asked);
    assert!(
        text.starts_with("Did the agent run the tests? Input: {"),
        "{text}"
    );
    let input: Value = serde_json::from_str(&text["Did the agent run the tests? Input: ".len()..])
        .expect("the event's JSON");
    assert_eq!(input["hook_event_name"], "Stop");
    assert_eq!(input["stop_hook_active"], false);
    // The reason went back to the model, once; the second time the hook let it stop.
    assert_eq!(reqs[2].body["model"], "claude-mock");
    assert!(
        last_user_text(&reqs[2].body).contains("the tests were not run"),
        "{}",
        reqs[2].body_text
    );
    let second: Value = serde_json::from_str(
        &last_user_text(&reqs[3].body)["Did the agent run the tests? Input: ".len()..],
    )
    .unwrap();
    assert_eq!(second["stop_hook_active"], true);
    let hooks = r.of_type("hook");
    assert_eq!(hooks.len(), 2, "{}", r.stdout);
    assert_eq!(hooks[0]["decision"], "deny");
    assert_eq!(hooks[0]["reason"], "the tests were not run");
    assert_eq!(hooks[1]["decision"], "none");
    let result = r.result();
    assert_eq!(result["text"], "Ran the tests: all pass.");
    // The hook's questions are the session's spend: each hook line says what it cost, and
    // `result.usage` and `usage_by_model` count them (two main requests, two questions,
    // 10 in and 5 out each).
    for h in &hooks {
        assert_eq!(h["spent"]["model"], "claude-small-mock", "{h}");
        assert_eq!(h["spent"]["usage"]["input_tokens"], 10, "{h}");
        assert_eq!(h["spent"]["usage"]["output_tokens"], 5, "{h}");
    }
    assert_eq!(result["usage"]["input_tokens"], 40, "{result}");
    assert_eq!(result["usage"]["output_tokens"], 20, "{result}");
    let by_model = &result["usage_by_model"];
    assert_eq!(
        by_model["claude-small-mock"]["usage"]["input_tokens"], 20,
        "{by_model}"
    );
    assert_eq!(
        by_model["claude-mock"]["usage"]["input_tokens"], 20,
        "{by_model}"
    );
    assert_valid_history(result);
}

#[test]
fn a_pre_tool_use_prompt_hook_denies_the_call() {
    let (_dir, ws, cfg) = setup(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
            "type": "prompt",
            "prompt": "Is this command safe to run? $ARGUMENTS"
        }]}]}}),
    );
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "bash", json!({"command": "echo ran > ran.txt"}))
            .usage(10, 5)
            .build(),
    );
    answer(
        &server,
        "```json\n{\"ok\": false, \"reason\": \"writes outside the plan\"}\n```",
    );
    answer(&server, "ok, I will not.");
    // --allow-tool bash: without the hook, the call would run.
    let r = run(&server, &cfg, &ws, &["--allow-tool", "bash"]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let reqs = server.accepted();
    let input: Value = serde_json::from_str(
        &last_user_text(&reqs[1].body)["Is this command safe to run? ".len()..],
    )
    .unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash", "Claude Code's tool name");
    assert_eq!(input["tool_input"]["command"], "echo ran > ran.txt");
    let h = r.of_type("hook");
    assert_eq!(h[0]["event"], "pre_tool_use");
    assert_eq!(h[0]["decision"], "deny");
    let out = r.first_tool_error();
    assert!(out.contains("writes outside the plan"), "{out}");
    assert!(!ws.join("ran.txt").exists(), "the command never ran");
    assert_valid_history(r.result());
}

#[test]
fn a_prompt_hook_whose_model_fails_never_blocks() {
    let (_dir, ws, cfg) = setup(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
        "type": "prompt", "prompt": "Safe? $ARGUMENTS"
    }]}], "SessionStart": [{"hooks": [{"type": "prompt", "prompt": "hello"}]}]}}),
    );
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "bash", json!({"command": "echo ran > ran.txt"}))
            .usage(10, 5)
            .build(),
    );
    answer(&server, "sure, that looks fine to me");
    answer(&server, "done");
    let r = run(&server, &cfg, &ws, &["--allow-tool", "bash"]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let all = format!("{}\n{}", r.stdout, r.stderr);
    // SessionStart decides nothing: a prompt hook there is named and skipped.
    assert!(
        all.contains("hooks.SessionStart[0].hooks[0]: prompt hooks run only for"),
        "{all}"
    );
    let h = r.of_type("hook");
    assert_eq!(h.len(), 1, "{}", r.stdout);
    assert_eq!(h[0]["decision"], "none");
    assert!(
        h[0]["reason"]
            .as_str()
            .unwrap()
            .contains("not {\"ok\": true|false} JSON"),
        "{}",
        h[0]
    );
    assert!(
        ws.join("ran.txt").exists(),
        "an unreadable answer never blocks"
    );
    assert_valid_history(r.result());
}
