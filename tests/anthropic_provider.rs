//! The Anthropic provider against the mock server: wire format, every protocol edge case,
//! every error kind.

mod support;

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use support::anthropic::named;
use support::*;
use tooloop::message::{ContentBlock, Message};
use tooloop::provider::anthropic::AnthropicProvider;
use tooloop::provider::{
    BlockKind, ModelRequest, Provider, ProviderError, StreamEvent, ToolSpec, Usage,
};

const KEY: &str = "sk-ant-test-secret-0123456789";

fn request() -> ModelRequest {
    ModelRequest {
        model: "claude-test".into(),
        system: "You are a test.".into(),
        messages: vec![Message::user_text("hello")],
        tools: vec![ToolSpec {
            name: "get_current_time".into(),
            description: "The current time".into(),
            input_schema: json!({"type": "object", "properties": {}}),
        }],
        max_tokens: 256,
        disable_parallel_tool_use: false,
    }
}

fn provider(server: &MockServer) -> AnthropicProvider {
    AnthropicProvider::new(&server.anthropic_base(), KEY.into()).expect("provider")
}

/// Everything the stream yields: raw events apart, normalized events, and the error if any.
struct Seen {
    raw: Vec<(String, String)>,
    events: Vec<StreamEvent>,
    error: Option<ProviderError>,
    /// Whether anything came after the error (it must not).
    after_error: usize,
}

async fn run(server: &MockServer, reply: Reply) -> Seen {
    server.enqueue(reply);
    let p = provider(server);
    let req = request();
    let mut stream = p.start(&req).await.expect("start");
    let mut seen = Seen {
        raw: Vec::new(),
        events: Vec::new(),
        error: None,
        after_error: 0,
    };
    while let Some(item) = stream.next().await {
        if seen.error.is_some() {
            seen.after_error += 1;
            continue;
        }
        match item {
            Ok(StreamEvent::Raw { event, data }) => seen.raw.push((event, data)),
            Ok(ev) => seen.events.push(ev),
            Err(e) => seen.error = Some(e),
        }
    }
    assert_eq!(seen.after_error, 0, "nothing may follow an error");
    seen
}

fn completed(seen: &Seen) -> Vec<ContentBlock> {
    seen.events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::BlockComplete { block, .. } => Some(block.clone()),
            _ => None,
        })
        .collect()
}

fn text_of(seen: &Seen) -> String {
    seen.events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn sends_the_wire_format_to_the_prefixed_path() {
    let server = MockServer::start();
    let seen = run(&server, text_reply("Hi there")).await;
    assert!(seen.error.is_none());
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/anthropic/v1/messages");
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.body["model"], "claude-test");
    assert_eq!(r.body["max_tokens"], 256);
    assert_eq!(r.body["system"], "You are a test.");
    assert_eq!(r.body["stream"], true);
    assert_eq!(
        r.body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "hello"}]}])
    );
    assert_eq!(r.body["tools"][0]["name"], "get_current_time");
    assert!(r.body.get("tool_choice").is_none());
    assert_eq!(r.body, provider(&server).request_body(&request()));
}

#[tokio::test]
async fn disable_parallel_tool_use_goes_in_tool_choice() {
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let p = provider(&server);
    let mut req = request();
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
    let p = AnthropicProvider::new(&format!("{}/", server.url()), KEY.into()).expect("provider");
    let req = request();
    let mut s = p.start(&req).await.expect("start");
    while s.next().await.is_some() {}
    assert_eq!(server.accepted()[0].path, "/v1/messages");
}

#[tokio::test]
async fn raw_events_come_first_and_ping_before_message_start_is_ignored() {
    let server = MockServer::start();
    let mut events = ReplyBuilder::new().text("Hello world").events();
    events.insert(0, named("ping", json!({"type": "ping"})));
    events.insert(2, SseEvent::raw(": keep-alive comment\n\n"));
    events.insert(
        3,
        named(
            "some_future_event",
            json!({"type": "some_future_event", "x": 1}),
        ),
    );
    events.insert(
        4,
        SseEvent::raw("event: another_unknown\ndata: not json at all\n\n"),
    );
    let total = events.len() - 1; // the comment is no event
    let seen = run(&server, Reply::sse(events)).await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    assert_eq!(seen.raw.len(), total);
    assert_eq!(seen.raw[0].0, "ping");
    assert_eq!(seen.raw[1].0, "message_start");
    assert!(matches!(seen.events[0], StreamEvent::MessageStart { .. }));
    assert_eq!(text_of(&seen), "Hello world");
    assert_eq!(completed(&seen), vec![ContentBlock::text("Hello world")]);
    assert_eq!(seen.events.last(), Some(&StreamEvent::MessageStop));
}

#[tokio::test]
async fn raw_precedes_its_normalized_event() {
    let server = MockServer::start();
    server.enqueue(text_reply("a b"));
    let p = provider(&server);
    let req = request();
    let all: Vec<_> = p.start(&req).await.expect("start").collect().await;
    // Each SSE event yields its raw form, then at most one normalized event.
    for (i, item) in all.iter().enumerate() {
        let ev = item.as_ref().expect("ok");
        if !matches!(ev, StreamEvent::Raw { .. }) {
            assert!(
                i > 0 && matches!(all[i - 1], Ok(StreamEvent::Raw { .. })),
                "{ev:?} came without its raw event"
            );
        }
    }
}

#[tokio::test]
async fn zero_fragment_tool_input_is_an_empty_object() {
    let server = MockServer::start();
    let seen = run(
        &server,
        ReplyBuilder::new()
            .tool_use("toolu_01", "get_current_time", json!({}))
            .build(),
    )
    .await;
    assert!(seen.error.is_none());
    assert!(
        !seen
            .events
            .iter()
            .any(|e| matches!(e, StreamEvent::ToolInputDelta { .. }))
    );
    assert_eq!(
        completed(&seen),
        vec![ContentBlock::ToolUse {
            id: "toolu_01".into(),
            name: "get_current_time".into(),
            input: json!({})
        }]
    );
}

#[tokio::test]
async fn two_blocks_in_one_byte_chunks() {
    let server = MockServer::start();
    let input = json!({"path": "src/main.rs", "offset": 3, "note": "ünïcode → ok"});
    let builder = ReplyBuilder::new()
        .text("Let me look at that file.")
        .tool_use("toolu_02", "read_file", input.clone())
        .usage(42, 17);
    let seen = run(&server, builder.clone().chunk(1).build()).await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    assert_eq!(
        completed(&seen),
        vec![
            ContentBlock::text("Let me look at that file."),
            ContentBlock::ToolUse {
                id: "toolu_02".into(),
                name: "read_file".into(),
                input,
            }
        ]
    );
    assert_eq!(seen.raw.len(), builder.events().len());
    let fragments: String = seen
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolInputDelta { partial_json, .. } => Some(partial_json.as_str()),
            _ => None,
        })
        .collect();
    assert!(fragments.contains("src/main.rs"));
    assert!(seen.events.contains(&StreamEvent::BlockStart {
        index: 1,
        kind: BlockKind::ToolUse,
        id: Some("toolu_02".into()),
        name: Some("read_file".into()),
    }));
    assert!(seen.events.contains(&StreamEvent::Delta {
        stop_reason: Some("tool_use".into()),
        usage: Usage {
            input_tokens: 0,
            output_tokens: 17
        },
    }));
}

#[tokio::test]
async fn usage_from_message_start_and_message_delta() {
    let server = MockServer::start();
    let seen = run(
        &server,
        ReplyBuilder::new().text("x").usage(1234, 56).build(),
    )
    .await;
    assert_eq!(
        seen.events[0],
        StreamEvent::MessageStart {
            model: Some("mock-model".into()),
            usage: Usage {
                input_tokens: 1234,
                output_tokens: 1
            },
        }
    );
    assert!(seen.events.contains(&StreamEvent::Delta {
        stop_reason: Some("end_turn".into()),
        usage: Usage {
            input_tokens: 0,
            output_tokens: 56
        },
    }));
}

#[tokio::test]
async fn thinking_with_signature_and_redacted_thinking() {
    let server = MockServer::start();
    let mut events = ReplyBuilder::new()
        .thinking("Let me think step by step.", "sig-abc")
        .text("Answer.")
        .events();
    // A redacted_thinking block at index 2, before message_delta.
    let at = events.len() - 2;
    events.insert(
        at,
        named(
            "content_block_start",
            json!({"type": "content_block_start", "index": 2,
        "content_block": {"type": "redacted_thinking", "data": "EncryptedBlob"}}),
        ),
    );
    events.insert(
        at + 1,
        named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 2}),
        ),
    );
    let seen = run(&server, Reply::sse(events).chunked(3)).await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    let thinking: String = seen
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ThinkingDelta { thinking, .. } => Some(thinking.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "Let me think step by step.");
    assert_eq!(
        completed(&seen),
        vec![
            ContentBlock::Thinking {
                thinking: "Let me think step by step.".into(),
                signature: "sig-abc".into()
            },
            ContentBlock::text("Answer."),
            ContentBlock::RedactedThinking {
                data: "EncryptedBlob".into()
            },
        ]
    );
}

#[tokio::test]
async fn initial_text_in_block_start_counts() {
    let server = MockServer::start();
    let events = vec![
        named(
            "message_start",
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 3}}}),
        ),
        named(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": "Hello"}}),
        ),
        named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": ", world"}}),
        ),
        named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        named(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ),
        named("message_stop", json!({"type": "message_stop"})),
    ];
    let seen = run(&server, Reply::sse(events)).await;
    assert_eq!(text_of(&seen), "Hello, world");
    assert_eq!(completed(&seen), vec![ContentBlock::text("Hello, world")]);
}

#[tokio::test]
async fn unparseable_tool_input_is_tool_use_invalid() {
    let server = MockServer::start();
    let seen = run(
        &server,
        ReplyBuilder::new()
            .tool_use_fragments("toolu_bad", "read_file", &["{\"path\": ", "\"a.txt"])
            .tool_use_fragments("toolu_arr", "read_file", &["[1, 2]"])
            .build(),
    )
    .await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    let invalid: Vec<_> = seen
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolUseInvalid { id, raw_input, .. } => {
                Some((id.as_str(), raw_input.as_str()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        invalid,
        vec![("toolu_bad", "{\"path\": \"a.txt"), ("toolu_arr", "[1, 2]")]
    );
    assert!(completed(&seen).is_empty());
    assert_eq!(seen.events.last(), Some(&StreamEvent::MessageStop));
}

#[tokio::test]
async fn error_event_after_content_is_typed() {
    let server = MockServer::start();
    let b = ReplyBuilder::new().text("partial answer here");
    let seen = run(&server, b.error_after(4, "overloaded_error", "Overloaded")).await;
    assert_eq!(text_of(&seen), "partial ");
    assert_eq!(
        seen.error,
        Some(ProviderError::Stream {
            error_type: "overloaded_error".into(),
            message: "Overloaded".into()
        })
    );
    let seen = run(
        &server,
        b.error_after(1, "api_error", "Internal server error"),
    )
    .await;
    assert!(
        matches!(seen.error, Some(ProviderError::Stream { ref error_type, .. }) if error_type == "api_error")
    );
    assert!(seen.error.as_ref().is_some_and(ProviderError::is_retryable));
}

#[tokio::test]
async fn malformed_event_json_is_malformed() {
    let server = MockServer::start();
    let seen = run(
        &server,
        ReplyBuilder::new().text("hello").malformed_after(3),
    )
    .await;
    assert!(
        matches!(seen.error, Some(ProviderError::Malformed(_))),
        "{:?}",
        seen.error
    );
    assert!(!seen.events.contains(&StreamEvent::MessageStop));
}

#[tokio::test]
async fn end_without_message_stop_is_incomplete() {
    let server = MockServer::start();
    let seen = run(
        &server,
        ReplyBuilder::new()
            .text("looks done")
            .without_message_stop(),
    )
    .await;
    assert_eq!(seen.error, Some(ProviderError::Incomplete));
    assert!(!seen.events.contains(&StreamEvent::MessageStop));
    // A final message_stop without its blank line is an unfinished event, per the SSE spec.
    let mut events = ReplyBuilder::new().text("x").events();
    events.pop();
    events.push(SseEvent::raw(
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n",
    ));
    let seen = run(&server, Reply::sse(events)).await;
    assert_eq!(seen.error, Some(ProviderError::Incomplete));
}

#[tokio::test]
async fn dropped_connection_is_interrupted() {
    let server = MockServer::start();
    let b = ReplyBuilder::new().text("one two three").delay_ms(5);
    let seen = run(&server, b.drop_after(4)).await;
    assert!(
        matches!(seen.error, Some(ProviderError::Interrupted(_))),
        "{:?}",
        seen.error
    );
    assert_eq!(text_of(&seen), "one ");
}

#[tokio::test]
async fn crlf_framing_and_data_only_names() {
    let server = MockServer::start();
    let events: Vec<SseEvent> = ReplyBuilder::new()
        .text("crlf ok")
        .events()
        .into_iter()
        .map(|e| {
            let s = String::from_utf8(e.bytes)
                .expect("utf8")
                .replace('\n', "\r\n");
            // Drop the event: line; the decoder falls back to the JSON type.
            let s = s
                .split("\r\n")
                .filter(|l| !l.starts_with("event:"))
                .collect::<Vec<_>>()
                .join("\r\n");
            SseEvent::raw(s)
        })
        .collect();
    let seen = run(&server, Reply::sse(events).chunked(2)).await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    assert_eq!(completed(&seen), vec![ContentBlock::text("crlf ok")]);
    assert!(seen.raw.iter().all(|(name, _)| name == "data"));
}

async fn start_err(server: &MockServer, reply: Reply) -> ProviderError {
    server.enqueue(reply);
    let p = provider(server);
    let req = request();
    match p.start(&req).await {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[tokio::test]
async fn http_errors_are_typed_with_retry_hints() {
    let server = MockServer::start();
    let e = start_err(&server, rate_limited(1500)).await;
    match &e {
        ProviderError::Http {
            status,
            error_type,
            message,
            retry_after,
            should_retry,
        } => {
            assert_eq!(*status, 429);
            assert_eq!(error_type.as_deref(), Some("rate_limit_error"));
            assert!(message.contains("rate limit"), "{message}");
            assert_eq!(*retry_after, Some(Duration::from_millis(1500)));
            assert_eq!(*should_retry, None);
        }
        other => panic!("{other:?}"),
    }
    assert!(e.is_retryable());
    let e = start_err(
        &server,
        Reply::error(429, "rate_limit_error", "slow down").header("retry-after", "7"),
    )
    .await;
    assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));

    let e = start_err(&server, overloaded().header("x-should-retry", "false")).await;
    assert!(e.is_overloaded());
    assert!(!e.is_retryable(), "x-should-retry: false wins");
    let e = start_err(
        &server,
        Reply::error(400, "invalid_request_error", "bad").header("x-should-retry", "true"),
    )
    .await;
    assert!(e.is_retryable(), "x-should-retry: true wins");

    let e = start_err(
        &server,
        Reply::status(502, "<html>Bad Gateway from some proxy</html>"),
    )
    .await;
    assert!(
        matches!(&e, ProviderError::Http { status: 502, error_type: None, message, .. } if message.contains("Bad Gateway from some proxy"))
    );
    let e = start_err(&server, Reply::status(503, &"x".repeat(10_000))).await;
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
    let e = start_err(&server, reply).await;
    assert!(matches!(e, ProviderError::Malformed(_)), "{e:?}");
}

#[tokio::test]
async fn validation_errors_come_back_with_the_api_message() {
    let server = MockServer::start();
    let p = provider(&server);
    let mut req = request();
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
    let e = start_err(
        &server,
        Reply::error(401, "authentication_error", "invalid x-api-key"),
    )
    .await;
    assert!(matches!(&e, ProviderError::Http { status: 401, .. }));
    assert!(!e.is_retryable());
    let mut all = vec![e];
    all.push(
        run(&server, ReplyBuilder::new().text("a b").drop_after(3))
            .await
            .error
            .expect("err"),
    );
    all.push(
        run(
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
    let p =
        AnthropicProvider::new(&format!("http://127.0.0.1:{port}"), KEY.into()).expect("provider");
    let req = request();
    let e = match p.start(&req).await {
        Ok(_) => panic!("nothing listens there"),
        Err(e) => e,
    };
    assert!(matches!(e, ProviderError::Connect(_)), "{e:?}");
    assert!(e.is_retryable());
    all.push(e);
    for e in &all {
        assert!(!format!("{e} {e:?}").contains(KEY), "key leaked in {e:?}");
    }
}

#[tokio::test]
async fn stall_is_left_to_the_idle_timeout() {
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("a b c").stall_after(3));
    let p = provider(&server);
    let req = request();
    let mut s = p.start(&req).await.expect("start");
    // message_start, ping, content_block_start: raw + normalized (ping has raw only).
    for _ in 0..5 {
        assert!(matches!(s.next().await, Some(Ok(_))));
    }
    // Then nothing, and no end either: the loop's idle timeout decides.
    let next = tokio::time::timeout(Duration::from_millis(200), s.next()).await;
    assert!(
        next.is_err(),
        "a stalled stream must neither yield nor end: {next:?}"
    );
}
