//! The OpenAI provider's stream against the mock server: text, reasoning, usage, stop
//! reasons, framing, and the ways a stream can end.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::openai::{self as oa, assemble, ok_events, position, request, stop_reason, stream};
use support::{Ending, Reply, SseEvent};
use tooloop::message::{ContentBlock, Message};
use tooloop::provider::openai::OpenAiProvider;
use tooloop::provider::{BlockKind, Provider, ProviderError, StreamEvent};

#[tokio::test]
async fn text_then_calls_make_ordered_blocks() {
    let mut events = vec![oa::role(), oa::text("Let me "), oa::text("look.")];
    events.extend(oa::call_events(0, "c1", "read_file", r#"{"path":"a"}"#));
    events.extend([oa::finish("tool_calls"), oa::usage(30, 12), oa::done()]);
    let got = ok_events(Reply::sse(events)).await;
    let text_started = position(&got, |e| {
        matches!(
            e,
            StreamEvent::BlockStart {
                kind: BlockKind::Text,
                ..
            }
        )
    });
    let text_done = position(
        &got,
        |e| matches!(e, StreamEvent::BlockStop { index } if *index == text_started_index(&got)),
    );
    assert!(text_started < text_done);
    let tool_start = position(&got, |e| {
        matches!(
            e,
            StreamEvent::BlockStart {
                kind: BlockKind::ToolUse,
                ..
            }
        )
    });
    assert!(
        text_done < tool_start,
        "text is complete when the calls begin"
    );
    let asm = assemble(&got);
    assert_eq!(
        asm.blocks(true),
        vec![
            ContentBlock::text("Let me look."),
            ContentBlock::ToolUse {
                id: "c1".into(),
                name: "read_file".into(),
                input: json!({"path": "a"})
            },
        ]
    );
    assert_eq!((asm.usage.input_tokens, asm.usage.output_tokens), (30, 12));
}

#[tokio::test]
async fn usage_from_the_final_chunk_and_model_from_the_first() {
    let events = ok_events(oa::text_reply("Hi")).await;
    assert!(events.iter().any(|e| matches!(
        e,
        StreamEvent::MessageStart { model: Some(m), .. } if m == "mock-model"
    )));
    let asm = assemble(&events);
    assert_eq!((asm.usage.input_tokens, asm.usage.output_tokens), (10, 5));
    assert_eq!(asm.blocks(true), vec![ContentBlock::text("Hi")]);
    assert_eq!(asm.stop_reason.as_deref(), Some("end_turn"));
}

#[tokio::test]
async fn finish_stop_with_calls_still_means_tool_use() {
    let mut events = oa::call_events(0, "c1", "read_file", "{}");
    events.extend([oa::finish("stop"), oa::done()]);
    let got = ok_events(Reply::sse(events)).await;
    assert_eq!(stop_reason(&got).as_deref(), Some("tool_use"));
}

#[tokio::test]
async fn finish_length_is_max_tokens() {
    let reply = Reply::sse(vec![oa::text("cut"), oa::finish("length"), oa::done()]);
    assert_eq!(
        stop_reason(&ok_events(reply).await).as_deref(),
        Some("max_tokens")
    );
}

#[tokio::test]
async fn done_missing_after_a_finish_still_ends_properly() {
    let reply = Reply::sse(vec![oa::text("Hi"), oa::finish("stop"), oa::usage(3, 1)]);
    let events = ok_events(reply).await;
    assert_eq!(assemble(&events).usage.input_tokens, 3);
}

#[tokio::test]
async fn a_stream_with_neither_finish_nor_done_is_incomplete() {
    let (events, err) = stream(Reply::sse(vec![oa::text("Hi")])).await;
    assert_eq!(err, Some(ProviderError::Incomplete));
    assert!(!events.contains(&StreamEvent::MessageStop));
}

#[tokio::test]
async fn a_dropped_connection_is_interrupted() {
    let reply = Reply::sse(vec![oa::text("Hi")]).ending(Ending::Drop);
    let (_, err) = stream(reply).await;
    assert!(
        matches!(err, Some(ProviderError::Interrupted(_))),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_error_object_in_the_stream() {
    let reply = Reply::sse(vec![
        oa::text("Hi"),
        oa::error_event(
            "server_error",
            "The server had an error while processing your request.",
        ),
    ]);
    let (events, err) = stream(reply).await;
    assert_eq!(
        err,
        Some(ProviderError::Stream {
            error_type: "api_error".into(),
            message: "The server had an error while processing your request.".into()
        })
    );
    assert!(err.is_some_and(|e| e.is_retryable()));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::TextDelta { .. }))
    );
    assert!(
        matches!(events.last(), Some(StreamEvent::Raw { data, .. }) if data.contains("server_error")),
        "the error's raw event reaches the JSON pane too"
    );
}

#[tokio::test]
async fn malformed_json_is_malformed() {
    let reply = Reply::sse(vec![oa::text("Hi"), SseEvent::data("{\"choices\": [")]);
    let (_, err) = stream(reply).await;
    assert!(matches!(err, Some(ProviderError::Malformed(_))), "{err:?}");
}

#[tokio::test]
async fn reasoning_becomes_a_thinking_block() {
    let reply = Reply::sse(vec![
        oa::chunk(json!({"reasoning_content": "Think"}), None),
        oa::chunk(json!({"reasoning_content": "ing."}), None),
        oa::text("Answer"),
        oa::finish("stop"),
        oa::done(),
    ]);
    let blocks = assemble(&ok_events(reply).await).blocks(true);
    assert_eq!(
        blocks,
        vec![
            ContentBlock::Thinking {
                thinking: "Thinking.".into(),
                signature: String::new()
            },
            ContentBlock::text("Answer"),
        ]
    );
}

#[tokio::test]
async fn comments_and_crlf_framing_as_openrouter_sends_them() {
    let chunk = |delta: Value, finish: Option<&str>| {
        let c = json!({"model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        SseEvent::raw(format!("data: {c}\r\n\r\n"))
    };
    let reply = Reply::sse(vec![
        SseEvent::raw(": OPENROUTER PROCESSING\n\n"),
        chunk(json!({"content": "Hé"}), None),
        SseEvent::raw(": OPENROUTER PROCESSING\n\n"),
        chunk(json!({"content": "llo"}), Some("stop")),
        SseEvent::raw("data: [DONE]\r\n\r\n"),
    ])
    .chunked(3);
    let events = ok_events(reply).await;
    assert_eq!(
        assemble(&events).blocks(true),
        vec![ContentBlock::text("Héllo")]
    );
}

/// Paused time: the 90 s pass at once while the mock holds the request.
#[tokio::test(start_paused = true)]
async fn a_server_that_never_answers_hits_the_head_timeout() {
    let server = oa::server();
    server.enqueue(Reply::hang());
    let p = OpenAiProvider::new(&oa::base(&server), None)
        .expect("provider")
        .with_head_timeout(Duration::from_secs(90));
    let req = request(vec![Message::user_text("go")]);
    let err = p.start(&req).await.err();
    assert_eq!(err, Some(ProviderError::Idle(Duration::from_secs(90))));
}

/// The index of the first text block.
fn text_started_index(events: &[StreamEvent]) -> usize {
    events
        .iter()
        .find_map(|e| match e {
            StreamEvent::BlockStart {
                index,
                kind: BlockKind::Text,
                ..
            } => Some(*index),
            _ => None,
        })
        .expect("a text block")
}
