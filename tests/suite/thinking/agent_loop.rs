//! Extended thinking through the real binary against the validating mock: the request asks
//! for thinking, every thinking block goes back exactly as it came (signature included), and
//! tooloop never trips the API's thinking rules, also after a retry or a max_tokens cut.

use crate::support;

use serde_json::{Value, json};
use support::anthropic_thinking::sign;
use support::*;

fn run(server: &MockServer, extra: &[&str]) -> Run {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "what time is it, and what is here?",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
    ];
    if !extra.contains(&"--thinking") {
        args.extend(["--thinking", "2048"]);
    }
    args.extend_from_slice(extra);
    Tooloop::new(&args)
        .env("ANTHROPIC_API_KEY", "sk-ant-thinking")
        .run()
}

fn assert_all_accepted(server: &MockServer) {
    for r in server.requests() {
        assert!(r.rejected.is_none(), "rejected: {:?}", r.rejected);
    }
}

/// The thinking block exactly as the API sent it.
fn block(text: &str) -> Value {
    json!({"type": "thinking", "thinking": text, "signature": sign(text)})
}

const T1: &str = "The user wants the time. I will ask the clock first.";
const T2: &str = "It is noon. Now the directory listing.";
const T3: &str = "Both results are in; answer briefly.";

#[test]
fn thinking_goes_back_unchanged_across_a_three_turn_tool_loop() {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking(T1)
            .text("Checking the clock.")
            .tool_use("toolu_1", "get_current_time", json!({}))
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking(T2)
            .tool_use("toolu_2", "list_dir", json!({}))
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking(T3)
            .text("It is noon; the workspace is empty.")
            .build(),
    );
    let run = run(&server, &["--max-tokens", "1024"]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_all_accepted(&server);
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 3);
    for r in &reqs {
        assert_eq!(
            r.body["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048})
        );
        // --max-tokens 1024 is below the budget: raised to budget + 1024, and said so.
        assert_eq!(r.body["max_tokens"], 3072);
        assert_eq!(
            r.header("anthropic-beta"),
            Some("interleaved-thinking-2025-05-14")
        );
    }
    let notice = run
        .of_type("notice")
        .iter()
        .filter_map(|n| n["text"].as_str())
        .find(|t| t.contains("thinking budget"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(notice.contains("sending max_tokens 3072"), "{notice:?}");

    // Request 2 carries turn 1's thinking; request 3 carries both, byte for byte.
    let m2 = &reqs[1].body["messages"];
    assert_eq!(m2[1]["content"][0], block(T1));
    let m3 = &reqs[2].body["messages"];
    assert_eq!(m3[1]["content"][0], block(T1));
    assert_eq!(m3[3]["content"][0], block(T2));
    let raw = serde_json::to_string(&block(T2)).expect("json");
    assert!(reqs[2].body_text.contains(&raw), "{}", reqs[2].body_text);

    // The thinking streamed as thinking_delta lines, before the turn's text.
    let thought: String = run
        .of_type("thinking_delta")
        .iter()
        .filter_map(|l| l["text"].as_str())
        .collect();
    assert_eq!(thought, format!("{T1}{T2}{T3}"));
    let types = run.types();
    let first_thinking = types.iter().position(|t| t == "thinking_delta");
    let first_text = types.iter().position(|t| t == "text_delta");
    assert!(first_thinking < first_text, "{types:?}");
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_valid_history(result);
    assert_eq!(result["messages"][5]["content"][0], block(T3));
}

#[test]
fn interleaved_thinking_streams_and_is_kept_in_order() {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("First the clock.")
            .text("One moment.")
            .tool_use("toolu_a", "get_current_time", json!({}))
            .signed_thinking("Then the files.")
            .tool_use("toolu_b", "list_dir", json!({}))
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Done.")
            .text("Noon, nothing here.")
            .build(),
    );
    let run = run(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_all_accepted(&server);
    // Events in wire order: thinking, text, tool, thinking, tool.
    let order: Vec<String> = run
        .lines
        .iter()
        .filter_map(|l| match l["type"].as_str()? {
            "thinking_delta" => Some(format!("think:{}", l["text"].as_str()?)),
            "text_delta" => Some("text".into()),
            "tool_use" => Some(format!("tool:{}", l["id"].as_str()?)),
            _ => None,
        })
        .fold(Vec::new(), |mut v: Vec<String>, s| {
            // One entry per run of deltas.
            let kind = |x: &str| x.split(':').next().unwrap_or("").to_string();
            if v.last()
                .is_none_or(|l| kind(l) != kind(&s) || s.starts_with("tool"))
            {
                v.push(s);
            }
            v
        });
    assert_eq!(
        order,
        [
            "think:First ",
            "text",
            "tool:toolu_a",
            "think:Then ",
            "tool:toolu_b",
            "think:Done.",
            "text"
        ]
    );
    let sent = &server.accepted()[1].body["messages"][1]["content"];
    let kinds: Vec<&str> = sent
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|b| b["type"].as_str())
        .collect();
    assert_eq!(
        kinds,
        ["thinking", "text", "tool_use", "thinking", "tool_use"]
    );
    assert_eq!(sent[3], block("Then the files."));
    assert_valid_history(run.result());
}

#[test]
fn a_retry_after_a_dropped_stream_keeps_the_thinking_first() {
    let server = MockServer::start();
    let first = ReplyBuilder::new()
        .signed_thinking("Let me check.")
        .tool_use("toolu_1", "get_current_time", json!({}))
        .delay_ms(2);
    // 0 message_start, 1 ping, 2 thinking start, 3-5 deltas, 6 signature, 7 stop,
    // 8 tool start, 9 tool stop, 10 message_delta: drop before message_delta.
    server.enqueue(first.drop_after(10));
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("The clock answered.")
            .text("It is noon.")
            .build(),
    );
    let run = run(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert!(!run.of_type("retry").is_empty(), "{:?}", run.types());
    assert_all_accepted(&server);
    let second = &server.accepted()[1].body["messages"];
    assert_eq!(second[1]["content"][0], block("Let me check."));
    assert_eq!(second[2]["content"][0]["tool_use_id"], "toolu_1");
    assert_valid_history(run.result());
}

#[test]
fn max_tokens_recovery_keeps_the_thinking_first() {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Long answer ahead.")
            .text("The first half of")
            .tool_use("toolu_ok", "get_current_time", json!({}))
            .tool_use_fragments("toolu_cut", "list_dir", &["{\"pa"])
            .stop_reason("max_tokens")
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Resume.")
            .text(" the answer.")
            .build(),
    );
    let run = run(&server, &[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_all_accepted(&server);
    let result = run.result();
    assert_eq!(result["transitions"][0], "max_tokens_recovery");
    let second = &server.accepted()[1].body["messages"];
    assert_eq!(second[1]["content"][0], block("Long answer ahead."));
    assert_valid_history(result);
}

#[test]
fn thinking_off_sends_no_thinking() {
    let server = MockServer::start();
    server.enqueue(text_reply("Hi."));
    let run = run(&server, &["--thinking", "off"]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let req = &server.accepted()[0];
    assert!(req.body.get("thinking").is_none(), "{}", req.body);
    assert_eq!(req.header("anthropic-beta"), None);
    assert_eq!(req.body["max_tokens"], 8192);
}

#[test]
fn a_budget_below_the_minimum_is_a_usage_error() {
    let server = MockServer::start();
    let run = run(&server, &["--thinking", "500"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("at least 1024"), "{}", run.stderr);
    assert!(server.requests().is_empty());
}
