//! The Anthropic provider's HTTP side: what it sends, and every error it can type.

use crate::support;

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use support::stream::*;
use support::*;
use tooloop::message::{ContentBlock, Message};
use tooloop::provider::anthropic::AnthropicProvider;
use tooloop::provider::{Provider, ProviderError};

#[tokio::test]
async fn sends_the_wire_format_to_the_prefixed_path() {
    let server = MockServer::start();
    let seen = anthropic_run(&server, text_reply("Hi there")).await;
    assert!(seen.error.is_none());
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/anthropic/v1/messages");
    assert_eq!(r.header("x-api-key"), Some(TEST_KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.body["model"], "claude-test");
    assert_eq!(r.body["max_tokens"], 256);
    // Prompt caching is on by default: breakpoints on the system prompt and the newest
    // message.
    assert_eq!(
        r.body["system"],
        json!([{"type": "text", "text": "You are a test.", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(r.body["stream"], true);
    assert_eq!(
        r.body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}
        ]}])
    );
    assert_eq!(r.body["tools"][0]["name"], "get_current_time");
    assert!(r.body.get("tool_choice").is_none());
    assert_eq!(r.body, anthropic(&server).request_body(&sample_request()));
}

#[tokio::test]
async fn disable_parallel_tool_use_goes_in_tool_choice() {
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let p = anthropic(&server);
    let mut req = sample_request();
    req.disable_parallel_tool_use = true;
    let mut s = p.start(&req).await.expect("start");
    while s.next().await.is_some() {}
    assert_eq!(
        server.accepted()[0].body["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
}

#[tokio::test]
async fn trailing_slash_base_works() {
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let p =
        AnthropicProvider::new(&format!("{}/", server.url()), TEST_KEY.into()).expect("provider");
    let req = sample_request();
    let mut s = p.start(&req).await.expect("start");
    while s.next().await.is_some() {}
    assert_eq!(server.accepted()[0].path, "/v1/messages");
}

#[tokio::test]
async fn http_errors_are_typed_with_retry_hints() {
    let server = MockServer::start();
    let e = anthropic_start_err(&server, rate_limited(1500)).await;
    match &e {
        ProviderError::Http {
            status,
            error_type,
            message,
            retry_after,
            should_retry,
            body,
        } => {
            assert_eq!(*status, 429);
            assert!(
                body.contains("\"rate_limit_error\""),
                "the raw body: {body}"
            );
            assert_eq!(error_type.as_deref(), Some("rate_limit_error"));
            assert!(message.contains("rate limit"), "{message}");
            assert_eq!(*retry_after, Some(Duration::from_millis(1500)));
            assert_eq!(*should_retry, None);
        }
        other => panic!("{other:?}"),
    }
    assert!(e.is_retryable());
    let e = anthropic_start_err(
        &server,
        Reply::error(429, "rate_limit_error", "slow down").header("retry-after", "7"),
    )
    .await;
    assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));

    let e = anthropic_start_err(&server, overloaded().header("x-should-retry", "false")).await;
    assert!(e.is_overloaded());
    assert!(!e.is_retryable(), "x-should-retry: false wins");
    let e = anthropic_start_err(
        &server,
        Reply::error(400, "invalid_request_error", "bad").header("x-should-retry", "true"),
    )
    .await;
    assert!(e.is_retryable(), "x-should-retry: true wins");

    let e = anthropic_start_err(
        &server,
        Reply::status(502, "<html>Bad Gateway from some proxy</html>"),
    )
    .await;
    assert!(
        matches!(&e, ProviderError::Http { status: 502, error_type: None, message, .. } if message.contains("Bad Gateway from some proxy"))
    );
    let e = anthropic_start_err(&server, Reply::status(503, &"x".repeat(10_000))).await;
    assert!(
        e.to_string().len() < 500,
        "long bodies are cut: {}",
        e.to_string().len()
    );
}

#[tokio::test]
async fn a_200_json_document_is_not_a_stream() {
    let server = MockServer::start();
    let mut reply = Reply::status(200, r#"{"type":"message","content":[]}"#);
    reply.head_delay = Duration::ZERO;
    let e = anthropic_start_err(&server, reply).await;
    assert!(matches!(e, ProviderError::Malformed(_)), "{e:?}");
}

#[tokio::test]
async fn validation_errors_come_back_with_the_api_message() {
    let server = MockServer::start();
    server.expect_rejections();
    let p = anthropic(&server);
    let mut req = sample_request();
    req.messages = vec![
        Message::user_text("hi"),
        Message::assistant(vec![ContentBlock::ToolUse {
            id: "toolu_x".into(),
            name: "t".into(),
            input: json!({}),
        }]),
        Message::user_text("no result"),
    ];
    let e = match p.start(&req).await {
        Ok(_) => panic!("must be rejected"),
        Err(e) => e,
    };
    assert!(
        matches!(&e, ProviderError::Http { status: 400, error_type: Some(t), message, .. }
        if t == "invalid_request_error" && message.contains("`tool_use` ids were found without `tool_result`")),
        "{e:?}"
    );
    assert!(!e.is_retryable());
}

#[tokio::test]
async fn auth_error_and_the_key_never_leaks() {
    let server = MockServer::start();
    let e = anthropic_start_err(
        &server,
        Reply::error(401, "authentication_error", "invalid x-api-key"),
    )
    .await;
    assert!(matches!(&e, ProviderError::Http { status: 401, .. }));
    assert!(!e.is_retryable());
    let mut all = vec![e];
    all.push(
        anthropic_run(&server, ReplyBuilder::new().text("a b").drop_after(3))
            .await
            .error
            .expect("err"),
    );
    all.push(
        anthropic_run(
            &server,
            ReplyBuilder::new()
                .text("a")
                .error_after(2, "api_error", "boom"),
        )
        .await
        .error
        .expect("err"),
    );
    // Connection refused: a port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let p = AnthropicProvider::new(&format!("http://127.0.0.1:{port}"), TEST_KEY.into())
        .expect("provider");
    let req = sample_request();
    let e = match p.start(&req).await {
        Ok(_) => panic!("nothing listens there"),
        Err(e) => e,
    };
    assert!(matches!(e, ProviderError::Connect(_)), "{e:?}");
    assert!(e.is_retryable());
    all.push(e);
    for e in &all {
        assert!(
            !format!("{e} {e:?}").contains(TEST_KEY),
            "key leaked in {e:?}"
        );
    }
}

#[tokio::test]
async fn no_response_head_is_an_idle_error() {
    let server = MockServer::start();
    server.enqueue(Reply::hang());
    let p = anthropic(&server).with_head_timeout(Duration::from_millis(100));
    let req = sample_request();
    let e = match p.start(&req).await {
        Ok(_) => panic!("a server that never answers cannot give a stream"),
        Err(e) => e,
    };
    assert_eq!(e, ProviderError::Idle(Duration::from_millis(100)));
    assert!(e.is_retryable());
}
