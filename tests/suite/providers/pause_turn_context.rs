//! Issue 41, item 5: a paused web-search turn is not compacted away. The stream is the real
//! recorded Anthropic web search (tests/fixtures/streams/anthropic-web-search-tool.1) paused
//! as the API pauses a long server-tool turn: `stop_reason: pause_turn`, with the usage the
//! API reports summed over its internal iterations (~405k input tokens, more than the
//! model's whole window). The continuation request must carry the paused message back as
//! it is, and no summary request may run: that usage is not the size of the context.

use crate::support;

use serde_json::Value;
use support::web_search::sealed;
use support::{MockServer, Reply, SseEvent, Tooloop, assert_valid_history};

const STREAM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/streams/anthropic-web-search-tool.1.chunks.txt"
);

/// The recorded stream, paused, with the summed usage of a long server-tool turn (the
/// 405,112 input tokens of the run the issue reports).
fn paused_search() -> Reply {
    let text = std::fs::read_to_string(STREAM).expect("fixture");
    let events = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).expect("json line");
            // The mock decrypts what comes back as the API does: the recorded results
            // and citations carry the mock's seals instead of the API's.
            for r in v["content_block"]["content"]
                .as_array_mut()
                .into_iter()
                .flatten()
            {
                let url = r["url"].as_str().unwrap_or("").to_string();
                r["encrypted_content"] = sealed(&url).into();
            }
            let citation = &mut v["delta"]["citation"];
            if citation["type"] == "web_search_result_location" {
                let url = citation["url"].as_str().unwrap_or("").to_string();
                citation["encrypted_index"] = sealed(&url).into();
            }
            if v["type"] == "message_delta" {
                v["delta"]["stop_reason"] = "pause_turn".into();
                v["usage"]["input_tokens"] = 405_112.into();
            }
            let ty = v["type"].as_str().unwrap_or("data").to_string();
            SseEvent::named(&ty, &v)
        })
        .collect();
    Reply::sse(events)
}

fn types(message: &Value) -> Vec<String> {
    message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| b["type"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_paused_search_with_summed_usage_is_continued_not_compacted() {
    let server = MockServer::start();
    server.enqueue(paused_search());
    server.enqueue(support::text_reply("That is all I found."));
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "what is new in tech today",
        "--base-url",
        &base,
        "--model",
        "claude-sonnet-4-5",
        "--web-search",
        "--output-format",
        "stream-json",
    ])
    .env("ANTHROPIC_API_KEY", "k")
    .run();
    assert_eq!(run.code, Some(0), "{}\n{}", run.stderr, run.stdout);
    let reqs = server.accepted();
    assert_eq!(
        reqs.len(),
        2,
        "the search, then its continuation (no summary request)"
    );
    assert!(run.of_type("compact").is_empty(), "{}", run.stdout);
    let sent = reqs[1].body["messages"].as_array().expect("messages");
    assert_eq!(
        sent.len(),
        2,
        "user, the paused assistant message: {sent:?}"
    );
    assert_eq!(sent[1]["role"], "assistant");
    let kinds = types(&sent[1]);
    assert_eq!(
        kinds[..2],
        ["server_tool_use", "web_search_tool_result"],
        "{kinds:?}"
    );
    assert!(
        !reqs[1].body.to_string().contains("summary"),
        "{}",
        reqs[1].body
    );
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_valid_history(result);
}
