//! `tooloop -p … --provider openai` end to end: the real binary runs a multi-tool loop
//! against the mock's OpenAI route, and every request it sends is checked like the API would.

use crate::support;

use serde_json::{Value, json};
use support::openai as oa;
use support::openai_history::{ERROR_PREFIX, from_openai_messages};
use support::{Reply, Tooloop, assert_valid_history};
use tooloop::message::{ContentBlock, Message};

/// What the wire keeps of a history: error results carry the "Error: " prefix.
fn as_on_the_wire(messages: &[Message]) -> Vec<Message> {
    let mut out = messages.to_vec();
    for m in &mut out {
        for b in &mut m.content {
            if let ContentBlock::ToolResult {
                content, is_error, ..
            } = b
                && *is_error
                && !content.starts_with(ERROR_PREFIX)
            {
                *content = format!("{ERROR_PREFIX}{content}");
            }
        }
    }
    out
}

#[test]
fn a_multi_tool_loop_against_an_openai_compatible_server() {
    let server = oa::server();
    // Turn 1: text and two parallel calls, every byte its own HTTP chunk.
    let mut first = vec![oa::role(), oa::text("Looking at "), oa::text("the files.")];
    first.extend(oa::call_events(
        0,
        "call_a",
        "glob",
        r#"{"pattern":"*.rs"}"#,
    ));
    first.extend(oa::call_events(1, "call_b", "list_dir", r#"{"path":"."}"#));
    first.extend([oa::finish("tool_calls"), oa::usage(100, 20), oa::done()]);
    server.enqueue(Reply::sse(first).chunked(1));
    // Turn 2: one call without an id, finish "stop" (as some servers send it).
    server.enqueue(Reply::sse(vec![
        oa::call(0, None, Some("get_current_time"), Some("")),
        oa::finish("stop"),
        oa::usage(150, 10),
        oa::done(),
    ]));
    // Turn 3: the answer.
    server.enqueue(oa::text_reply("Done: nothing to report."));

    let base = oa::base(&server);
    let run = Tooloop::new(&[
        "-p",
        "look around and tell me the time",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--model",
        "mock-model",
        "--output-format",
        "stream-json",
    ])
    .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_eq!(result["turns"], 3);
    assert_eq!(result["text"], "Done: nothing to report.");
    assert_eq!(
        result["usage"],
        json!({"input_tokens": 260, "output_tokens": 35, "cache_read_tokens": 0, "cache_write_tokens": 0})
    );
    assert_valid_history(result);

    let tool_uses: Vec<(&str, &str)> = run
        .of_type("tool_use")
        .iter()
        .map(|l| {
            (
                l["id"].as_str().unwrap_or(""),
                l["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        tool_uses,
        vec![
            ("call_a", "glob"),
            ("call_b", "list_dir"),
            ("call_3", "get_current_time")
        ]
    );
    assert_eq!(run.of_type("tool_end").len(), 3);

    // Every request passed the OpenAI validation; each carries the tool messages.
    assert!(server.requests().iter().all(|r| r.rejected.is_none()));
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        reqs[0].header("authorization"),
        None,
        "no key set, none sent"
    );
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    let second: &Vec<Value> = reqs[1].body["messages"].as_array().expect("messages");
    assert_eq!(second[0]["role"], "system");
    assert_eq!(second[2]["role"], "assistant");
    assert_eq!(second[2]["content"], "Looking at the files.");
    assert_eq!(second[2]["tool_calls"][0]["id"], "call_a");
    assert_eq!(
        second[2]["tool_calls"][0]["function"],
        json!({"name": "glob", "arguments": "{\"pattern\":\"*.rs\"}"})
    );
    assert_eq!(second[3]["role"], "tool");
    assert_eq!(second[3]["tool_call_id"], "call_a");
    assert_eq!(second[4]["tool_call_id"], "call_b");
    assert_eq!(second.len(), 5);
    let third = reqs[2].body["messages"].as_array().expect("messages");
    assert_eq!(third[5]["tool_calls"][0]["id"], "call_3");
    assert_eq!(third[5]["content"], Value::Null);
    assert_eq!(third[6]["tool_call_id"], "call_3");

    // What went over the wire converts back to the history the agent kept.
    let history: Vec<Message> =
        serde_json::from_value(result["messages"].clone()).expect("history");
    let (system, back) = from_openai_messages(third).expect("converts back");
    assert!(!system.is_empty());
    assert_eq!(back, as_on_the_wire(&history[..5]));
}

#[test]
fn a_wrong_key_ends_the_turn_with_a_clear_message() {
    let server = oa::server();
    server.expect_rejections();
    let base = oa::base(&server);
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
    ])
    .env("OPENAI_API_KEY", "sk-wrong-key")
    .run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "model_error");
    assert_eq!(server.requests().len(), 1, "a 401 is not retried");
    assert!(!run.stdout.contains("sk-wrong-key") && !run.stderr.contains("sk-wrong-key"));
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-wrong-key")
    );
}

#[test]
fn no_parallel_tool_use_asks_for_one_call_per_reply() {
    let server = oa::server();
    server.enqueue(oa::text_reply("One at a time."));
    let base = oa::base(&server);
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--no-parallel-tool-use",
        "--max-tokens",
        "321",
        "--output-format",
        "json",
    ])
    .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.result()["reason"], "completed");
    let body = &server.accepted()[0].body;
    assert_eq!(body["parallel_tool_calls"], false);
    assert_eq!(body["max_tokens"], 321);
    assert!(body["tools"].as_array().is_some_and(|t| !t.is_empty()));
}
