//! The mock server itself: validation with the API's wording, recording, chunked SSE.

use crate::support;

use serde_json::{Value, json};
use support::*;

async fn post(server: &MockServer, path: &str, key: bool, body: Value) -> (u16, String) {
    let mut req = reqwest::Client::new()
        .post(format!("{}{path}", server.url()))
        .header("anthropic-version", "2023-06-01")
        .json(&body);
    if key {
        req = req.header("x-api-key", "test-key");
    }
    let resp = req.send().await.expect("send");
    let status = resp.status().as_u16();
    (status, resp.text().await.expect("body"))
}

fn body(messages: Value) -> Value {
    json!({"model": "m", "max_tokens": 10, "messages": messages})
}

fn error_message(text: &str) -> String {
    let v: Value = serde_json::from_str(text).expect("json error body");
    assert_eq!(v["type"], "error");
    v["error"]["message"].as_str().expect("message").to_string()
}

#[tokio::test]
async fn rejects_what_the_api_rejects() {
    let server = MockServer::start();
    server.expect_rejections();
    let tu = |id: &str| json!({"type": "tool_use", "id": id, "name": "t", "input": {}});
    let tr = |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "ok"});
    let cases = [
        (
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [tu("toolu_a")]},
                   {"role": "user", "content": "no result"}]),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        ),
        // Text before the results: the API wants tool_result blocks first in the message.
        (
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [tu("toolu_a")]},
                   {"role": "user", "content": [{"type": "text", "text": "note"}, tr("toolu_a")]}]),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        ),
        (
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [tu("toolu_a"), tu("toolu_b")]},
                   {"role": "user", "content": [tr("toolu_a"), {"type": "text", "text": "note"}, tr("toolu_b")]}]),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        ),
        (
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [tu("toolu_a")]},
                   {"role": "user", "content": [tr("toolu_a"), tr("toolu_x")]}]),
            "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
        ),
        (
            json!([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]),
            "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"user\" roles in a row",
        ),
        (
            json!([{"role": "assistant", "content": "a"}]),
            "messages: first message must use the \"user\" role",
        ),
        (
            json!([{"role": "user", "content": []}]),
            "messages.0: all messages must have non-empty content except for the optional final assistant message",
        ),
        (
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [tu("toolu_a"), tu("toolu_a")]},
                   {"role": "user", "content": [tr("toolu_a")]}]),
            "messages.1.content.1: `tool_use` ids must be unique",
        ),
    ];
    for (messages, want) in cases {
        let (status, text) = post(&server, "/v1/messages", true, body(messages)).await;
        assert_eq!(status, 400, "{text}");
        assert_eq!(error_message(&text), want);
    }
    let ok = json!([{"role": "user", "content": "hi"}]);
    let (status, text) = post(&server, "/v1/messages", false, body(ok.clone())).await;
    assert_eq!(status, 401);
    assert!(text.contains("authentication_error"), "{text}");
    let resp = reqwest::Client::new()
        .post(format!("{}/v1/messages", server.url()))
        .header("x-api-key", "k")
        .json(&body(ok))
        .send()
        .await
        .expect("send");
    assert_eq!(resp.status().as_u16(), 400);
    assert!(error_message(&resp.text().await.expect("body")).contains("anthropic-version"));
    assert_eq!(server.requests().len(), 10);
    assert!(server.requests().iter().all(|r| r.rejected.is_some()));
}

/// Results first, then text, is what the API accepts (a prompt sent along with results).
#[tokio::test]
async fn text_after_the_tool_results_is_accepted() {
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let messages = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "t", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"},
            {"type": "text", "text": "and then this"}
        ]}
    ]);
    let (status, text) = post(&server, "/v1/messages", true, body(messages)).await;
    assert_eq!(status, 200, "{text}");
    assert!(server.requests()[0].rejected.is_none());
}

/// Sends one request the validator refuses (the first message is not the user's).
fn send_one_refused(server: &MockServer) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let bad = body(json!([{"role": "assistant", "content": "a"}]));
    let (status, _) = rt.block_on(post(server, "/v1/messages", true, bad));
    assert_eq!(status, 400);
}

#[test]
#[should_panic(
    expected = "mock server: 1 request(s) rejected, and the test did not say it \
                           expects a rejection (server.expect_rejections()):\n  request #0 \
                           POST /v1/messages: {\"type\":\"error\""
)]
fn an_unexpected_rejection_fails_the_test_when_the_server_drops() {
    let server = MockServer::start();
    send_one_refused(&server);
}

#[test]
#[should_panic(
    expected = "said it expects a rejection (expect_rejections()), but all 1 \
                           request(s) were accepted"
)]
fn an_expected_rejection_that_never_came_fails_too() {
    let server = MockServer::start();
    server.expect_rejections();
    server.enqueue(text_reply("ok"));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let ok = body(json!([{"role": "user", "content": "hi"}]));
    assert_eq!(rt.block_on(post(&server, "/v1/messages", true, ok)).0, 200);
}

#[test]
fn a_declared_rejection_passes() {
    let server = MockServer::start();
    server.expect_rejections();
    send_one_refused(&server);
    drop(server);
}

/// A test already failing keeps its own message: the drop check does not panic a second
/// time (which would abort the whole test binary).
#[test]
fn a_failing_test_keeps_its_own_panic() {
    let caught = std::panic::catch_unwind(|| {
        let server = MockServer::start();
        send_one_refused(&server);
        panic!("the test's own failure");
    });
    let payload = caught.expect_err("the closure panicked");
    let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
    assert_eq!(message, "the test's own failure");
}

#[tokio::test]
async fn serves_in_order_with_any_prefix_and_records() {
    let server = MockServer::start();
    // `/elsewhere` has no route: a 404 the test asks for.
    server.expect_rejections();
    server.enqueue(text_reply("one"));
    server.enqueue(
        Reply::error(529, "overloaded_error", "Overloaded").header("x-should-retry", "true"),
    );
    let msgs = json!([{"role": "user", "content": "hi"}]);
    let (status, text) = post(
        &server,
        "/some/prefix/v1/messages",
        true,
        body(msgs.clone()),
    )
    .await;
    assert_eq!(status, 200);
    assert!(text.contains("event: message_stop"));
    let (status, _) = post(&server, "/v1/messages", true, body(msgs.clone())).await;
    assert_eq!(status, 529);
    let (status, text) = post(&server, "/v1/messages", true, body(msgs)).await;
    assert_eq!(status, 400);
    assert!(text.contains("no reply scripted"), "{text}");
    let reqs = server.accepted();
    assert_eq!(reqs[0].path, "/some/prefix/v1/messages");
    assert_eq!(reqs[0].header("X-API-Key"), Some("test-key"));
    assert_eq!(reqs[0].body["messages"][0]["content"], "hi");
    let (status, _) = post(&server, "/elsewhere", true, json!({})).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn one_byte_chunks_arrive_separately() {
    use futures::StreamExt;
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("hi").chunk(1).build());
    let resp = reqwest::Client::new()
        .post(format!("{}/v1/messages", server.url()))
        .header("x-api-key", "k")
        .header("anthropic-version", "2023-06-01")
        .json(&body(json!([{"role": "user", "content": "hi"}])))
        .send()
        .await
        .expect("send");
    let mut stream = resp.bytes_stream();
    let mut pieces = 0;
    let mut all = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.expect("chunk");
        pieces += 1;
        all.extend_from_slice(&chunk);
    }
    let expected: usize = ReplyBuilder::new()
        .text("hi")
        .events()
        .iter()
        .map(|e| e.bytes.len())
        .sum();
    assert_eq!(all.len(), expected);
    // Chunks may coalesce in the socket, but a 1-byte script must not arrive as one piece.
    assert!(pieces > 1, "got {pieces} piece(s)");
}

#[tokio::test]
async fn dropped_stream_is_a_body_error() {
    use futures::StreamExt;
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("hi").drop_after(3));
    let resp = reqwest::Client::new()
        .post(format!("{}/v1/messages", server.url()))
        .header("x-api-key", "k")
        .header("anthropic-version", "2023-06-01")
        .json(&body(json!([{"role": "user", "content": "hi"}])))
        .send()
        .await
        .expect("send");
    let mut stream = resp.bytes_stream();
    let mut failed = false;
    while let Some(chunk) = stream.next().await {
        if chunk.is_err() {
            failed = true;
        }
    }
    assert!(failed, "a dropped chunked body must surface as an error");
}

#[tokio::test]
async fn gates_hold_the_head_and_events_until_opened() {
    use futures::StreamExt;
    use std::time::Duration;
    let server = MockServer::start();
    let head = Gate::new();
    let mid = Gate::new();
    server.enqueue(
        ReplyBuilder::new()
            .text("a b")
            .build()
            .head_gated(&head)
            .gate_event(3, &mid),
    );
    let send = reqwest::Client::new()
        .post(format!("{}/v1/messages", server.url()))
        .header("x-api-key", "k")
        .header("anthropic-version", "2023-06-01")
        .json(&body(json!([{"role": "user", "content": "hi"}])))
        .send();
    let send = tokio::spawn(send);
    server.wait_for_requests_async(1).await;
    assert!(!send.is_finished(), "the head must wait for its gate");
    head.open();
    let resp = send.await.expect("join").expect("send");
    let mut stream = resp.bytes_stream();
    let mut got = Vec::new();
    // Events 0..3 arrive; event 3 waits for the gate.
    while !String::from_utf8_lossy(&got).contains("content_block_start") {
        got.extend_from_slice(&stream.next().await.expect("more").expect("chunk"));
    }
    let held = tokio::time::timeout(Duration::from_millis(100), stream.next()).await;
    assert!(held.is_err(), "event 3 must wait for its gate");
    mid.open();
    while let Some(chunk) = stream.next().await {
        got.extend_from_slice(&chunk.expect("chunk"));
    }
    assert!(String::from_utf8_lossy(&got).contains("message_stop"));
}
