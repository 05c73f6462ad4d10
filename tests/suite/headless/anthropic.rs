//! The real binary, headless, against the mock Anthropic server.

use crate::support;

use serde_json::{Value, json};
use support::*;

const KEY: &str = "sk-ant-e2e-secret-key";

fn tooloop(server: &MockServer, prompt: &str, format: &str, extra: &[&str]) -> Tooloop {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        prompt,
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        format,
        "--model",
        "claude-mock",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args).env("ANTHROPIC_API_KEY", KEY)
}

fn time_call_then_answer(server: &MockServer) {
    server.enqueue(
        ReplyBuilder::new()
            .text("Let me check the clock.")
            .tool_use("toolu_time_1", "get_current_time", json!({}))
            .usage(100, 20)
            .delay_ms(10)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .text("It is noon.")
            .usage(150, 8)
            .delay_ms(10)
            .build(),
    );
}

#[test]
fn two_turn_tool_loop_stream_json() {
    let server = MockServer::start();
    time_call_then_answer(&server);
    let run = tooloop(&server, "what time is it?", "stream-json", &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert!(!run.stdout.contains(KEY) && !run.stderr.contains(KEY));

    // Every stdout line is JSON with a type and a numeric t_ms, in time order.
    assert_eq!(
        run.lines.len(),
        run.stdout.lines().count(),
        "non-JSON on stdout"
    );
    let mut last_t = 0;
    for line in &run.lines {
        assert!(line["type"].is_string(), "{line}");
        let t = line["t_ms"]
            .as_u64()
            .unwrap_or_else(|| panic!("no t_ms: {line}"));
        assert!(t >= last_t, "t_ms went backwards at {line}");
        last_t = t;
    }
    let types = run.types();
    for ty in [
        "turn_start",
        "request_start",
        "text_delta",
        "tool_use",
        "tool_start",
        "tool_end",
        "stream_end",
        "message",
        "result",
    ] {
        assert!(types.iter().any(|t| t == ty), "no {ty} line in {types:?}");
    }
    assert_eq!(types.last().map(String::as_str), Some("result"));
    let tool_use = run.of_type("tool_use")[0];
    assert_eq!(tool_use["id"], "toolu_time_1");
    assert_eq!(tool_use["name"], "get_current_time");
    assert_eq!(tool_use["input"], json!({}));
    assert_eq!(run.of_type("tool_end")[0]["id"], "toolu_time_1");
    assert_eq!(run.of_type("turn_start").len(), 2);

    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_eq!(result["turns"], 2);
    assert_eq!(result["text"], "It is noon.");
    assert_eq!(result["usage"]["input_tokens"], 250);
    assert_eq!(result["usage"]["output_tokens"], 28);
    assert_valid_history(result);
    assert_eq!(result["messages"].as_array().map(Vec::len), Some(4));

    // The second request carried the whole history and answered the tool_use.
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 2);
    assert!(server.requests().iter().all(|r| r.rejected.is_none()));
    assert_eq!(reqs[0].path, "/anthropic/v1/messages");
    assert_eq!(reqs[0].header("x-api-key"), Some(KEY));
    assert_eq!(reqs[0].body["model"], "claude-mock");
    let results = tool_results(&reqs[1]);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, "toolu_time_1");
    let second = reqs[1].body["messages"].as_array().expect("messages");
    assert_eq!(second.len(), 3);
    assert_eq!(second[1]["content"][1]["type"], "tool_use");
    assert_eq!(server.pending(), 0);
}

#[test]
fn overloaded_then_success_retries() {
    let server = MockServer::start();
    server.enqueue(overloaded().header("retry-after-ms", "20"));
    server.enqueue(text_reply("Recovered."));
    let run = tooloop(&server, "hi", "stream-json", &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let retries = run.of_type("retry");
    assert_eq!(retries.len(), 1, "{:?}", run.types());
    assert_eq!(retries[0]["delay_ms"], 20);
    assert!(
        retries[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("529")),
        "{}",
        retries[0]
    );
    let attempts: Vec<&Value> = run
        .of_type("request_start")
        .iter()
        .map(|l| &l["attempt"])
        .collect();
    assert_eq!(attempts.len(), 2);
    assert_ne!(attempts[0], attempts[1]);
    assert_eq!(run.result()["text"], "Recovered.");
    assert_eq!(server.accepted().len(), 2);
}

#[test]
fn rejected_key_is_not_retried() {
    let server = MockServer::start();
    server.enqueue(Reply::error(
        401,
        "authentication_error",
        "invalid x-api-key",
    ));
    server.enqueue(text_reply("must not be served"));
    let run = tooloop(&server, "hi", "stream-json", &[]).run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    assert!(run.of_type("retry").is_empty());
    assert_eq!(server.accepted().len(), 1);
    let result = run.result();
    assert_eq!(result["reason"], "model_error");
    let error = result["error"].as_str().expect("result.error");
    assert!(
        error.contains("invalid x-api-key") && error.contains("key"),
        "{error}"
    );
    assert!(!run.stdout.contains(KEY) && !run.stderr.contains(KEY));
    assert_valid_history(result);
}

#[test]
fn json_output_is_only_the_result() {
    let server = MockServer::start();
    time_call_then_answer(&server);
    let run = tooloop(&server, "what time is it?", "json", &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_eq!(result["text"], "It is noon.");
    assert_valid_history(result);
}

#[test]
fn text_output_is_only_the_final_text() {
    let server = MockServer::start();
    time_call_then_answer(&server);
    let run = tooloop(&server, "what time is it?", "text", &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.stdout, "It is noon.\n");
}

#[test]
fn no_parallel_tool_use_reaches_the_wire() {
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let run = tooloop(&server, "hi", "json", &["--no-parallel-tool-use"]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(
        server.accepted()[0].body["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
}

#[test]
fn base_url_from_the_environment() {
    let server = MockServer::start();
    server.enqueue(text_reply("from env"));
    let run = Tooloop::new(&["-p", "hi", "--output-format", "json"])
        .env("ANTHROPIC_API_KEY", KEY)
        .env(
            "ANTHROPIC_BASE_URL",
            &format!("{}/", server.anthropic_base()),
        )
        .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.result()["text"], "from env");
    assert_eq!(server.accepted()[0].path, "/anthropic/v1/messages");
}

#[test]
fn missing_key_is_a_config_error() {
    let server = MockServer::start();
    let base = server.anthropic_base();
    let run = Tooloop::new(&["-p", "hi", "--provider", "anthropic", "--base-url", &base]).run();
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("ANTHROPIC_API_KEY"), "{}", run.stderr);
    assert!(server.requests().is_empty());
}

#[test]
fn one_byte_chunks_end_to_end() {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .text("Checking.")
            .tool_use("toolu_a", "get_current_time", json!({"timezone": "UTC"}))
            .tool_use("toolu_b", "get_current_time", json!({}))
            .chunk(1)
            .build(),
    );
    server.enqueue(text_reply("Done."));
    let run = tooloop(&server, "time twice", "stream-json", &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let uses: Vec<&Value> = run.of_type("tool_use");
    assert_eq!(uses.len(), 2);
    assert_eq!(uses[0]["input"], json!({"timezone": "UTC"}));
    let ids: Vec<String> = tool_results(&server.accepted()[1])
        .into_iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(ids, vec!["toolu_a", "toolu_b"]);
    assert_valid_history(run.result());
}

#[test]
fn prompt_too_long_is_its_own_reason() {
    let server = MockServer::start();
    server.enqueue(prompt_too_long());
    let run = tooloop(&server, "hi", "json", &[]).run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "prompt_too_long");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("prompt is too long")),
        "{result}"
    );
    // A 400 is not retried, and a summary cannot take 30 % off "hi": the reactive
    // compaction spends no summary request and the turn ends.
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
}

#[test]
fn rate_limit_wait_is_the_servers() {
    let server = MockServer::start();
    server.enqueue(rate_limited(30));
    server.enqueue(text_reply("after the wait"));
    let run = tooloop(&server, "hi", "stream-json", &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let retry = run.of_type("retry");
    assert_eq!(retry.len(), 1);
    assert_eq!(
        retry[0]["delay_ms"], 30,
        "retry-after-ms wins over retry-after"
    );
    assert_eq!(run.result()["text"], "after the wait");
}
