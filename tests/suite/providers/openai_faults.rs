//! Faults on the OpenAI wire, through the real binary: never reported as success, every
//! request after them passes the OpenAI validation, no tool runs twice.

use crate::support;

use serde_json::Value;
use support::openai as oa;
use support::{Ending, MockServer, Reply, Run, SseEvent, Tooloop, assert_valid_history};

fn run_against(server: &MockServer, extra: &[&str]) -> Run {
    let base = oa::base(server);
    let mut args = vec![
        "-p",
        "what time is it?",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args)
        .env("OPENAI_API_KEY", oa::TEST_KEY)
        .run()
}

fn assert_no_rejections(server: &MockServer) {
    for r in server.requests() {
        assert!(r.rejected.is_none(), "request rejected: {:?}", r.rejected);
    }
}

fn last_message(req: &support::Recorded) -> Value {
    req.body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn dropped_connection_mid_text_is_retried() {
    let server = oa::server();
    server.enqueue(Reply::sse(vec![oa::role(), oa::text("The time is")]).ending(Ending::Drop));
    server.enqueue(oa::text_reply("It is noon."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.of_type("retry").len(), 1, "{:?}", run.types());
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_eq!(result["text"], "It is noon.");
    assert_valid_history(result);
    assert_no_rejections(&server);
    assert_eq!(server.accepted().len(), 2);
}

#[test]
fn an_error_after_a_complete_call_keeps_its_result_and_never_reruns_it() {
    let server = oa::server();
    // Call 1 is complete once call 2's first fragment arrives; then the stream fails.
    let mut first = vec![oa::role()];
    first.extend(oa::call_events(0, "call_keep", "get_current_time", "{}"));
    first.push(oa::call(1, Some("call_half"), Some("glob"), Some("{\"pat")));
    first.push(oa::error_event("server_error", "The server had an error"));
    server.enqueue(Reply::sse(first));
    server.enqueue(oa::text_reply("It is noon."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_no_rejections(&server);
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_valid_history(result);
    let started: Vec<&str> = run
        .of_type("tool_start")
        .iter()
        .filter_map(|l| l["id"].as_str())
        .collect();
    assert_eq!(
        started,
        vec!["call_keep"],
        "the half-received call never runs"
    );
    // The retry carries the kept call and its tool message; the half call is gone.
    let second = &server.accepted()[1];
    let messages = second.body["messages"].as_array().expect("messages");
    let calls: Vec<&str> = messages
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(calls, vec!["call_keep"]);
    assert_eq!(last_message(second)["tool_call_id"], "call_keep");
}

#[test]
fn a_stream_without_finish_or_done_is_not_success() {
    let server = oa::server();
    for _ in 0..2 {
        server.enqueue(Reply::sse(vec![oa::role(), oa::text("Looks finished")]));
    }
    let run = run_against(&server, &["--max-retries", "2"]);
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "model_error");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("stream ended")),
        "{result}"
    );
    assert_valid_history(result);
    assert_no_rejections(&server);
}

#[test]
fn malformed_chunk_is_an_error_then_recovers() {
    let server = oa::server();
    server.enqueue(Reply::sse(vec![
        oa::text("Hello"),
        SseEvent::data("{\"choices\": [{\"delta\": "),
    ]));
    server.enqueue(oa::text_reply("Clean answer."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let retries = run.of_type("retry");
    assert_eq!(retries.len(), 1);
    assert!(
        retries[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("malformed")),
        "{retries:?}"
    );
    assert_valid_history(run.result());
    assert_no_rejections(&server);
}

#[test]
fn finish_length_resumes_and_drops_a_cut_call() {
    let server = oa::server();
    // Cut mid-arguments: the half call must not run, and the model is asked to resume.
    server.enqueue(Reply::sse(vec![
        oa::text("Let me check"),
        oa::call(
            0,
            Some("call_cut"),
            Some("glob"),
            Some("{\"pattern\": \"*.r"),
        ),
        oa::finish("length"),
        oa::usage(10, 64),
        oa::done(),
    ]));
    server.enqueue(oa::text_reply("It is noon."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_no_rejections(&server);
    assert!(run.of_type("tool_start").is_empty(), "{:?}", run.types());
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_valid_history(result);
    let second = &server.accepted()[1];
    let resume = last_message(second);
    assert_eq!(resume["role"], "user");
    assert!(
        resume["content"]
            .as_str()
            .is_some_and(|c| c.contains("Output token limit hit")),
        "{resume}"
    );
}

#[test]
fn rate_limit_wait_is_honoured_then_succeeds() {
    let server = oa::server();
    server.enqueue(
        oa::error(429, "rate_limit_error", "Rate limit reached").header("retry-after-ms", "30"),
    );
    server.enqueue(oa::text_reply("It is noon."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let retries = run.of_type("retry");
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0]["delay_ms"], 30);
    assert_eq!(run.result()["reason"], "completed");
}
