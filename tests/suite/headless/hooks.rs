//! Hooks from config.toml, end to end: the real binary, headless, against the mock model.
//! Each event allowing and blocking, the stop hook's continuation cap, `"stop"`, and a
//! hanging hook killed at its timeout.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

fn config(dir: &Path, hooks: &str) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(&path, hooks).unwrap();
    path
}

fn tooloop(server: &MockServer, config: &Path, workspace: &Path, extra: &[&str]) -> Tooloop {
    headless_with_config(server, "hello hooks", config, workspace, extra)
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

fn hooks(run: &Run) -> Vec<&Value> {
    run.of_type("hook")
}

#[test]
fn pre_tool_use_exit_2_blocks_the_call_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[[hooks.pre_tool_use]]\nmatcher = \"get_current_time|bash\"\n\
         command = \"cat > seen.json; echo 'no clocks today' >&2; exit 2\"\n",
    );
    let server = MockServer::start();
    tool_then_answer(&server, "get_current_time", json!({}));
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let h = hooks(&run);
    assert_eq!(h.len(), 1, "{}", run.stdout);
    assert_eq!(h[0]["event"], "pre_tool_use");
    assert_eq!(h[0]["exit"], 2);
    assert_eq!(h[0]["decision"], "deny");
    assert!(h[0]["duration_ms"].is_u64());
    let end = run.of_type("tool_end")[0];
    assert_eq!(end["is_error"], true);
    assert!(end["output"].as_str().unwrap().contains("no clocks today"));
    assert!(
        run.of_type("tool_start").is_empty(),
        "a blocked call never starts"
    );
    // The hook saw the call on stdin.
    let seen: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("seen.json")).unwrap()).unwrap();
    assert_eq!(seen["event"], "pre_tool_use");
    assert_eq!(seen["tool_name"], "get_current_time");
    assert_eq!(seen["tool_input"], json!({}));
    assert!(seen["session_id"].is_string());
    assert_valid_history(run.result());
}

#[test]
fn pre_tool_use_allow_answers_the_approval_question() {
    // Headless `ask` denies bash; a hook that says allow lets this one call run.
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[[hooks.pre_tool_use]]\nmatcher = \"bash\"\n\
         command = \"echo '{\\\"decision\\\": \\\"allow\\\"}'\"\n",
    );
    let server = MockServer::start();
    tool_then_answer(&server, "bash", json!({"command": "echo ran > ran.txt"}));
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(hooks(&run)[0]["decision"], "allow");
    assert_eq!(run.of_type("permission")[0]["decision"], "allow");
    assert!(dir.path().join("ran.txt").exists());

    // Without the hook, the same call is refused (the hook really made the difference).
    let plain = config(dir.path(), "");
    let server = MockServer::start();
    tool_then_answer(&server, "bash", json!({"command": "echo ran > ran2.txt"}));
    let run = tooloop(&server, &plain, dir.path(), &[]).run();
    assert_eq!(run.of_type("permission")[0]["decision"], "deny");
    assert!(!dir.path().join("ran2.txt").exists());
}

#[test]
fn post_tool_use_context_reaches_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[[hooks.post_tool_use]]\n\
         command = \"cat > post.json; echo '{\\\"context\\\": \\\"checked by the hook\\\"}'\"\n",
    );
    let server = MockServer::start();
    tool_then_answer(&server, "get_current_time", json!({}));
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(hooks(&run)[0]["event"], "post_tool_use");
    let second = &server.accepted()[1];
    assert!(
        second.body_text.contains("checked by the hook"),
        "{}",
        second.body_text
    );
    let post: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("post.json")).unwrap()).unwrap();
    assert_eq!(post["tool_name"], "get_current_time");
    assert_eq!(post["is_error"], false);
    assert!(post["tool_output"].is_string());
    assert_valid_history(run.result());
}

#[test]
fn user_prompt_submit_deny_sends_nothing_and_context_is_added() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[[hooks.user_prompt_submit]]\ncommand = \"echo 'no secrets in prompts' >&2; exit 2\"\n",
    );
    let server = MockServer::start();
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(1), "stdout:\n{}", run.stdout);
    assert_eq!(run.result()["reason"], "hook_stopped");
    assert!(server.requests().is_empty(), "nothing was sent");
    assert!(run.stdout.contains("no secrets in prompts"));
    assert_eq!(
        run.result()["messages"],
        json!([]),
        "the prompt is not kept"
    );

    let cfg = config(
        dir.path(),
        "[[hooks.user_prompt_submit]]\n\
         command = \"cat > prompt.json; echo '{\\\"context\\\": \\\"branch: main\\\"}'\"\n",
    );
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("hi").usage(10, 5).build());
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let first = &server.accepted()[0];
    let content = &first.body["messages"][0]["content"];
    assert_eq!(content[0]["text"], "hello hooks");
    assert!(
        content[1]["text"]
            .as_str()
            .unwrap()
            .contains("branch: main")
    );
    let seen: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("prompt.json")).unwrap()).unwrap();
    assert_eq!(seen["prompt"], "hello hooks");
    assert_valid_history(run.result());
}

#[test]
fn a_stop_hook_sends_the_model_back_at_most_three_times() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[[hooks.stop]]\ncommand = \"echo 'run the tests first' >&2; exit 2\"\n",
    );
    let server = MockServer::start();
    for i in 0..4 {
        server.enqueue(
            ReplyBuilder::new()
                .text(&format!("finished {i}"))
                .usage(10, 5)
                .build(),
        );
    }
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(1), "stdout:\n{}", run.stdout);
    assert_eq!(run.result()["reason"], "stop_hook_prevented");
    let requests = server.accepted();
    assert_eq!(
        requests.len(),
        4,
        "the first answer and three continuations"
    );
    assert!(
        requests[1]
            .body_text
            .contains("Stop hook feedback:\\nrun the tests first")
    );
    assert_eq!(hooks(&run).len(), 4);
    assert!(hooks(&run).iter().all(|h| h["decision"] == "deny"));
    assert_valid_history(run.result());
}

#[test]
fn a_stop_hook_that_lets_go_once_active_ends_the_turn_normally() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[[hooks.stop]]\ncommand = '''\n\
         if grep -q '\"stop_hook_active\":true'; then exit 0; fi\n\
         echo 'one more check' >&2; exit 2\n'''\n",
    );
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("first").usage(10, 5).build());
    server.enqueue(ReplyBuilder::new().text("second").usage(10, 5).build());
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stdout:\n{}", run.stdout);
    assert_eq!(run.result()["reason"], "completed");
    assert_eq!(run.result()["text"], "second");
    assert_eq!(server.accepted().len(), 2);
    assert_valid_history(run.result());
}

#[test]
fn decision_stop_from_any_hook_ends_the_turn_with_hook_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[[hooks.post_tool_use]]\n\
         command = \"echo '{\\\"decision\\\": \\\"stop\\\", \\\"reason\\\": \\\"enough for today\\\"}'\"\n",
    );
    let server = MockServer::start();
    tool_then_answer(&server, "get_current_time", json!({}));
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(1), "stdout:\n{}", run.stdout);
    assert_eq!(run.result()["reason"], "hook_stopped");
    assert_eq!(hooks(&run)[0]["decision"], "stop");
    assert_eq!(server.accepted().len(), 1, "no request after the stop");
    assert_valid_history(run.result());
}

#[test]
fn a_hanging_hook_is_killed_at_its_timeout_and_the_call_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[[hooks.pre_tool_use]]\ncommand = \"sleep 30; echo never\"\ntimeout_secs = 1\n",
    );
    let server = MockServer::start();
    tool_then_answer(&server, "get_current_time", json!({}));
    let started = Instant::now();
    let run = tooloop(&server, &cfg, dir.path(), &[])
        .timeout(Duration::from_secs(20))
        .run();
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let h = hooks(&run)[0];
    assert_eq!(h["exit"], Value::Null, "killed, no exit status: {h}");
    assert_eq!(h["decision"], "none");
    let ms = h["duration_ms"].as_u64().unwrap();
    assert!((900..5000).contains(&ms), "{ms} ms");
    assert_eq!(run.of_type("tool_end")[0]["is_error"], false);
    assert_valid_history(run.result());
}
