//! The mock's deferred-loading rules (issue 39), like the Messages API's: `defer_loading`
//! needs its beta and a tool the model always sees; a `tool_reference` must name a tool in
//! `tools`; a deferred definition costs nothing until a reference loads it.

use crate::support;

use serde_json::{Value, json};
use support::*;

const BETA: &str = "advanced-tool-use-2025-11-20";

async fn post(server: &MockServer, beta: bool, body: Value) -> (u16, String) {
    let mut req = reqwest::Client::new()
        .post(format!("{}/v1/messages", server.url()))
        .header("anthropic-version", "2023-06-01")
        .header("x-api-key", "test-key")
        .json(&body);
    if beta {
        req = req.header("anthropic-beta", BETA);
    }
    let resp = req.send().await.expect("send");
    let status = resp.status().as_u16();
    (status, resp.text().await.expect("body"))
}

fn tool(name: &str, deferred: bool) -> Value {
    let mut t = json!({"name": name, "description": "d", "input_schema": {"type": "object"}});
    if deferred {
        t["defer_loading"] = true.into();
    }
    t
}

/// A search that answered with references to `names`.
fn searched(names: &[&str]) -> Value {
    let refs: Vec<Value> = names
        .iter()
        .map(|n| json!({"type": "tool_reference", "tool_name": n}))
        .collect();
    json!([
        {"role": "user", "content": "find it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_s", "name": "tool_search", "input": {"query": "x"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_s", "content": refs}]}
    ])
}

fn body(tools: Vec<Value>, messages: Value) -> Value {
    json!({"model": "m", "max_tokens": 10, "tools": tools, "messages": messages})
}

fn message(text: &str) -> String {
    let v: Value = serde_json::from_str(text).expect("json error body");
    v["error"]["message"].as_str().expect("message").to_string()
}

#[tokio::test]
async fn refuses_what_the_api_refuses() {
    let server = MockServer::start();
    server.expect_rejections();
    let hi = json!([{"role": "user", "content": "hi"}]);
    let cases = [
        (
            false,
            body(
                vec![tool("tool_search", false), tool("a", true)],
                hi.clone(),
            ),
            "tools.1.custom.defer_loading: Extra inputs are not permitted",
        ),
        (
            true,
            body(vec![tool("a", true), tool("b", true)], hi.clone()),
            "All tools have defer_loading set. At least one tool must be non-deferred.",
        ),
        (
            true,
            body(
                vec![tool("tool_search", false), tool("a", true)],
                searched(&["nope"]),
            ),
            "Tool reference 'nope' has no corresponding tool definition",
        ),
        (
            true,
            body(
                vec![json!({"name": "s", "description": "d", "input_schema": {"type": "string"}})],
                hi.clone(),
            ),
            "tools.0.custom.input_schema.type: Input should be 'object'",
        ),
    ];
    for (beta, b, want) in cases {
        let (status, text) = post(&server, beta, b).await;
        assert_eq!(status, 400, "{text}");
        assert_eq!(message(&text), want);
    }
}

#[tokio::test]
async fn a_deferred_definition_costs_nothing_until_referenced() {
    let server = MockServer::start();
    server.enable_prompt_cache();
    for _ in 0..3 {
        server.enqueue(ReplyBuilder::new().text("ok").usage(1, 1).build());
    }
    let big = |name: &str, deferred: bool| {
        let mut t = tool(name, deferred);
        t["description"] = "x".repeat(4000).into();
        t
    };
    let tools = vec![tool("tool_search", false), big("a", true), big("b", true)];
    let hi = json!([{"role": "user", "content": "hi"}]);
    let (status, text) = post(&server, true, body(tools.clone(), hi)).await;
    assert_eq!(status, 200, "{text}");
    let (status, text) = post(&server, true, body(tools.clone(), searched(&["a"]))).await;
    assert_eq!(status, 200, "{text}");
    let (status, text) = post(&server, true, body(tools, searched(&["a", "b"]))).await;
    assert_eq!(status, 200, "{text}");
    let counts: Vec<_> = server
        .accepted()
        .iter()
        .map(|r| r.accounted.unwrap().total())
        .collect();
    assert!(
        counts[0] < 100,
        "deferred definitions are not counted: {counts:?}"
    );
    assert!(
        (1000..1200).contains(&(counts[1] - counts[0])),
        "one 4000-byte definition loaded: {counts:?}"
    );
    assert!(
        (1000..1200).contains(&(counts[2] - counts[1])),
        "{counts:?}"
    );
}
