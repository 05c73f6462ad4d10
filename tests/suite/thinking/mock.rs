//! The mock refuses what the Messages API refuses about extended thinking, with its words.

use crate::support;

use serde_json::{Value, json};
use support::anthropic_thinking::{redacted_data, sign};
use support::*;

async fn post(server: &MockServer, body: &Value) -> (u16, String) {
    let resp = reqwest::Client::new()
        .post(format!("{}/v1/messages", server.url()))
        .header("anthropic-version", "2023-06-01")
        .header("x-api-key", "test-key")
        .json(body)
        .send()
        .await
        .expect("send");
    let status = resp.status().as_u16();
    (status, resp.text().await.expect("body"))
}

fn message_of(text: &str) -> String {
    let v: Value = serde_json::from_str(text).expect("json");
    v["error"]["message"].as_str().unwrap_or("").to_string()
}

fn thinking(text: &str) -> Value {
    json!({"type": "thinking", "thinking": text, "signature": sign(text)})
}

fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "get_current_time", "input": {}})
}

fn tool_result(id: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": "noon"})
}

/// A tool loop two assistant turns deep, as tooloop sends it, with thinking on.
fn loop_body() -> Value {
    json!({
        "model": "m", "max_tokens": 4096,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": [
            {"role": "user", "content": "what time is it?"},
            {"role": "assistant", "content": [thinking("first"), tool_use("toolu_1")]},
            {"role": "user", "content": [tool_result("toolu_1")]},
            {"role": "assistant", "content": [
                {"type": "redacted_thinking", "data": redacted_data("r1")},
                thinking("second"), {"type": "text", "text": "again"}, tool_use("toolu_2")]},
            {"role": "user", "content": [tool_result("toolu_2")]},
        ]
    })
}

#[tokio::test]
async fn a_tool_loop_with_its_thinking_intact_is_accepted() {
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let (status, text) = post(&server, &loop_body()).await;
    assert_eq!(status, 200, "{text}");
}

#[tokio::test]
async fn dropped_or_edited_thinking_is_refused_with_the_apis_words() {
    let server = MockServer::start();
    server.expect_rejections();
    let mut cases: Vec<(Value, String)> = Vec::new();

    let mut dropped = loop_body();
    let content = dropped["messages"][3]["content"].as_array_mut().expect("c");
    content.drain(..2);
    cases.push((
        dropped,
        "messages.3.content.0.type: Expected `thinking` or `redacted_thinking`, but found \
         `text`. When `thinking` is enabled, a final `assistant` message must start with a \
         thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). \
         We recommend you include thinking blocks from previous turns. To avoid this \
         requirement, disable `thinking`. Please consult our documentation at \
         https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
            .into(),
    ));

    let mut edited = loop_body();
    edited["messages"][3]["content"][1]["thinking"] = json!("second, tidied up");
    cases.push((
        edited,
        "messages.3.content.1: Invalid `signature` in `thinking` block".into(),
    ));

    let mut resigned = loop_body();
    resigned["messages"][1]["content"][0]["signature"] = json!("sig-made-up");
    cases.push((
        resigned,
        "messages.1.content.0: Invalid `signature` in `thinking` block".into(),
    ));

    let mut unsigned = loop_body();
    let block = unsigned["messages"][1]["content"][0]
        .as_object_mut()
        .expect("o");
    block.remove("signature");
    cases.push((
        unsigned,
        "messages.1.content.0.thinking.signature: Field required".into(),
    ));

    let mut redacted = loop_body();
    redacted["messages"][3]["content"][0]["data"] = json!("EmwSomethingElse==");
    cases.push((
        redacted,
        "messages.3.content.0: Invalid `data` in `redacted_thinking` block".into(),
    ));

    let mut moved = loop_body();
    let content = moved["messages"][3]["content"].as_array_mut().expect("c");
    content.swap(1, 2);
    content.swap(0, 1);
    cases.push((
        moved,
        "messages.3.content.0: If an assistant message contains any thinking blocks, the \
         first block must be thinking or redacted_thinking. Found text."
            .into(),
    ));

    let mut ends_in_thinking = loop_body();
    let msgs = ends_in_thinking["messages"].as_array_mut().expect("m");
    msgs.truncate(3);
    msgs.push(json!({"role": "assistant", "content": [thinking("cut short")]}));
    msgs.push(json!({"role": "user", "content": "continue"}));
    cases.push((
        ends_in_thinking,
        "messages.3: The final block in an assistant message cannot be `thinking`.".into(),
    ));

    for (body, want) in cases {
        let (status, text) = post(&server, &body).await;
        assert_eq!(status, 400, "{text}");
        assert_eq!(message_of(&text), want);
    }
    assert!(server.accepted().is_empty());
}

#[tokio::test]
async fn the_thinking_parameter_is_checked() {
    let server = MockServer::start();
    server.expect_rejections();
    let body = |max: u64, thinking: Value| {
        json!({"model": "m", "max_tokens": max, "thinking": thinking,
               "messages": [{"role": "user", "content": "hi"}]})
    };
    let cases = [
        (
            body(4096, json!({"type": "enabled", "budget_tokens": 512})),
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            body(2048, json!({"type": "enabled", "budget_tokens": 2048})),
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our \
             documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
        ),
        (
            body(4096, json!({"type": "enabled"})),
            "thinking.enabled.budget_tokens: Field required",
        ),
    ];
    for (b, want) in cases {
        let (status, text) = post(&server, &b).await;
        assert_eq!(status, 400, "{text}");
        assert_eq!(message_of(&text), want);
    }
    // Without thinking on, a tool loop without thinking blocks is fine.
    server.enqueue(text_reply("ok"));
    let mut plain = loop_body();
    plain.as_object_mut().expect("o").remove("thinking");
    for i in [1, 3] {
        let c = plain["messages"][i]["content"].as_array_mut().expect("c");
        c.retain(|b| b["type"] != "thinking" && b["type"] != "redacted_thinking");
    }
    let (status, text) = post(&server, &plain).await;
    assert_eq!(status, 200, "{text}");
}
