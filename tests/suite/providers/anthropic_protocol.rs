//! The Anthropic stream protocol over real HTTP: every edge case of the Messages API SSE.

use crate::support;

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use support::anthropic::named;
use support::stream::*;
use support::*;
use tooloop::message::ContentBlock;
use tooloop::provider::{BlockKind, Provider, ProviderError, StreamEvent, Usage};

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
    let seen = anthropic_run(&server, Reply::sse(events)).await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    assert_eq!(seen.raw.len(), total);
    assert_eq!(seen.raw[0].0, "ping");
    assert_eq!(seen.raw[1].0, "message_start");
    assert!(matches!(seen.events[0], StreamEvent::MessageStart { .. }));
    assert_eq!(seen.text(), "Hello world");
    assert_eq!(seen.completed(), vec![ContentBlock::text("Hello world")]);
    assert_eq!(seen.events.last(), Some(&StreamEvent::MessageStop));
}

#[tokio::test]
async fn raw_precedes_its_normalized_event() {
    let server = MockServer::start();
    server.enqueue(text_reply("a b"));
    let p = anthropic(&server);
    let req = sample_request();
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
    let seen = anthropic_run(
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
        seen.completed(),
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
    let seen = anthropic_run(&server, builder.clone().chunk(1).build()).await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    assert_eq!(
        seen.completed(),
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
            output_tokens: 17,
            ..Default::default()
        },
    }));
}

#[tokio::test]
async fn usage_from_message_start_and_message_delta() {
    let server = MockServer::start();
    let seen = anthropic_run(
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
                output_tokens: 1,
                ..Default::default()
            },
        }
    );
    assert!(seen.events.contains(&StreamEvent::Delta {
        stop_reason: Some("end_turn".into()),
        usage: Usage {
            input_tokens: 0,
            output_tokens: 56,
            ..Default::default()
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
    let seen = anthropic_run(&server, Reply::sse(events).chunked(3)).await;
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
        seen.completed(),
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
    let seen = anthropic_run(&server, Reply::sse(events)).await;
    assert_eq!(seen.text(), "Hello, world");
    assert_eq!(seen.completed(), vec![ContentBlock::text("Hello, world")]);
}

#[tokio::test]
async fn unparseable_tool_input_is_tool_use_invalid() {
    let server = MockServer::start();
    let seen = anthropic_run(
        &server,
        ReplyBuilder::new()
            .tool_use_fragments("toolu_bad", "read_file", &["{\"path\": ", "\"a.txt"])
            .tool_use_fragments("toolu_arr", "read_file", &["[1, 2]"])
            .build(),
    )
    .await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    let invalid = seen.invalid();
    let ids: Vec<&str> = invalid.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, vec!["toolu_bad", "toolu_arr"]);
    assert!(
        invalid[0].error.contains("{\"path\": \"a.txt"),
        "{}",
        invalid[0].error
    );
    assert!(invalid[1].error.contains("[1, 2]"), "{}", invalid[1].error);
    assert!(seen.completed().is_empty());
    assert_eq!(seen.events.last(), Some(&StreamEvent::MessageStop));
}

#[tokio::test]
async fn error_event_after_content_is_typed() {
    let server = MockServer::start();
    let b = ReplyBuilder::new().text("partial answer here");
    let seen = anthropic_run(&server, b.error_after(4, "overloaded_error", "Overloaded")).await;
    assert_eq!(seen.text(), "partial ");
    assert_eq!(
        seen.error,
        Some(ProviderError::Stream {
            error_type: "overloaded_error".into(),
            message: "Overloaded".into()
        })
    );
    let seen = anthropic_run(
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
    let seen = anthropic_run(
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
    let seen = anthropic_run(
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
    let seen = anthropic_run(&server, Reply::sse(events)).await;
    assert_eq!(seen.error, Some(ProviderError::Incomplete));
}

#[tokio::test]
async fn dropped_connection_is_interrupted() {
    let server = MockServer::start();
    let b = ReplyBuilder::new().text("one two three").delay_ms(5);
    let seen = anthropic_run(&server, b.drop_after(4)).await;
    assert!(
        matches!(seen.error, Some(ProviderError::Interrupted(_))),
        "{:?}",
        seen.error
    );
    assert_eq!(seen.text(), "one ");
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
    let seen = anthropic_run(&server, Reply::sse(events).chunked(2)).await;
    assert!(seen.error.is_none(), "{:?}", seen.error);
    assert_eq!(seen.completed(), vec![ContentBlock::text("crlf ok")]);
    assert!(seen.raw.iter().all(|(name, _)| name == "data"));
}

#[tokio::test]
async fn stall_is_left_to_the_idle_timeout() {
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("a b c").stall_after(3));
    let p = anthropic(&server);
    let req = sample_request();
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
