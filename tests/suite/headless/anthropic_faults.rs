//! Mid-stream faults from the Anthropic wire, through the real binary: never reported as
//! success, the history stays valid, and a retry recovers.

use crate::support;

use serde_json::json;
use support::*;

const KEY: &str = "sk-ant-faults-key";

fn run_against(server: &MockServer, extra: &[&str]) -> Run {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "what time is it?",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args).env("ANTHROPIC_API_KEY", KEY).run()
}

/// Every accepted request must have been valid (the mock rejects invalid ones with 400).
fn assert_no_rejections(server: &MockServer) {
    for r in server.requests() {
        assert!(r.rejected.is_none(), "request rejected: {:?}", r.rejected);
    }
}

#[test]
fn dropped_connection_mid_text_is_retried() {
    let server = MockServer::start();
    let first = ReplyBuilder::new().text("The time is about to").delay_ms(5);
    server.enqueue(first.drop_after(5));
    server.enqueue(text_reply("It is noon."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert!(!run.of_type("retry").is_empty(), "{:?}", run.types());
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_valid_history(result);
    assert_no_rejections(&server);
    assert_eq!(server.accepted().len(), 2);
}

#[test]
fn overloaded_error_event_after_a_tool_use_keeps_the_tool_result() {
    let server = MockServer::start();
    // The tool_use block completes (and runs), then the stream dies with overloaded_error.
    let first = ReplyBuilder::new()
        .text("Checking.")
        .tool_use("toolu_keep", "get_current_time", json!({}))
        .delay_ms(5);
    // message_start, ping, text start, 1 delta, text stop, tool start, tool stop = 7 events.
    server.enqueue(first.error_after(7, "overloaded_error", "Overloaded"));
    server.enqueue(text_reply("It is noon."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_no_rejections(&server);
    let result = run.result();
    assert_valid_history(result);
    // The tool ran once; the retry carried its result instead of running it again.
    assert_eq!(run.of_type("tool_start").len(), 1, "{:?}", run.types());
    let second = &server.accepted()[1];
    let ids: Vec<String> = tool_results(second).into_iter().map(|r| r.0).collect();
    assert_eq!(ids, vec!["toolu_keep"]);
}

#[test]
fn stream_without_message_stop_is_not_success() {
    let server = MockServer::start();
    for _ in 0..2 {
        server.enqueue(
            ReplyBuilder::new()
                .text("Looks finished")
                .without_message_stop(),
        );
    }
    let run = run_against(&server, &["--max-retries", "2"]);
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "model_error");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("message_stop")),
        "{result}"
    );
    assert_valid_history(result);
    assert_no_rejections(&server);
}

#[test]
fn malformed_event_is_an_error_then_recovers() {
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("Hello there").malformed_after(4));
    server.enqueue(text_reply("Clean answer."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert!(!run.of_type("retry").is_empty());
    assert!(
        run.of_type("retry")[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("malformed")),
        "{:?}",
        run.of_type("retry")
    );
    assert_valid_history(run.result());
    assert_no_rejections(&server);
}

#[test]
fn a_server_that_never_answers_ends_the_turn() {
    let server = MockServer::start();
    server.enqueue(Reply::hang());
    let run = run_against(&server, &["--idle-timeout", "1", "--max-retries", "1"]);
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "model_error");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("no data")),
        "{result}"
    );
    assert_valid_history(result);
}

/// How many events of `reply` come before its first text block (or message_delta): the
/// point to cut a stream "after the thinking blocks".
fn events_before_answer(reply: &ReplyBuilder) -> usize {
    let events = reply.events();
    let texts: Vec<String> = events
        .iter()
        .map(|e| String::from_utf8_lossy(&e.bytes).into_owned())
        .collect();
    texts
        .iter()
        .rposition(|t| t.starts_with("event: content_block_stop"))
        .map_or(0, |i| i + 1)
}

/// Issue 12: a stream that drops after the thinking blocks, before message_stop. The API
/// refuses an assistant message ending in thinking ("The final block in an assistant
/// message cannot be `thinking`"), so a reply that is only thinking is not kept and the
/// request goes again, unchanged.
#[test]
fn a_reply_cut_after_its_thinking_is_not_kept() {
    let server = MockServer::start();
    let cut = ReplyBuilder::new()
        .thinking(
            "The user wants the time. I will say it.",
            "EqQBCgIYAhIM+sig/==",
        )
        .redacted_thinking("EmwKAhgBEgy3va3pzb2Fy+redacted==")
        .delay_ms(2);
    let n = events_before_answer(&cut);
    server.enqueue(cut.drop_after(n));
    server.enqueue(text_reply("It is noon."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_no_rejections(&server);
    assert!(!run.of_type("retry").is_empty(), "{:?}", run.types());
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_valid_history(result);
    let accepted = server.accepted();
    assert_eq!(accepted.len(), 2);
    assert_eq!(
        accepted[0].body["messages"], accepted[1].body["messages"],
        "the request is sent again as it was"
    );
}

/// The same cut after thinking, a tool call and more thinking: the kept reply ends with
/// the tool call (whose result is kept, so the tool never runs twice).
#[test]
fn a_kept_partial_reply_drops_its_trailing_thinking() {
    let server = MockServer::start();
    let cut = ReplyBuilder::new()
        .thinking("I need the clock.", "EqQBsig1==")
        .tool_use("toolu_clock", "get_current_time", json!({}))
        .thinking("Now I will read it.", "EqQBsig2==")
        .redacted_thinking("EmwKAhgBredacted==")
        .delay_ms(2);
    let n = events_before_answer(&cut);
    server.enqueue(cut.drop_after(n));
    server.enqueue(text_reply("It is noon."));
    let run = run_against(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_no_rejections(&server);
    assert_eq!(run.of_type("tool_start").len(), 1, "{:?}", run.types());
    let result = run.result();
    assert_valid_history(result);
    let second = &server.accepted()[1];
    let kept = &second.body["messages"][1];
    assert_eq!(kept["role"], "assistant");
    let types: Vec<&str> = kept["content"]
        .as_array()
        .expect("blocks")
        .iter()
        .filter_map(|b| b["type"].as_str())
        .collect();
    assert_eq!(types, vec!["thinking", "tool_use"]);
    assert_eq!(kept["content"][0]["signature"], "EqQBsig1==");
    assert_eq!(kept["content"][0]["thinking"], "I need the clock.");
    let ids: Vec<String> = tool_results(second).into_iter().map(|r| r.0).collect();
    assert_eq!(ids, vec!["toolu_clock"]);
}
