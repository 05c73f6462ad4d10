//! How servers cut tool calls into fragments, against the mock over real HTTP: every rule of
//! `provider/openai/tool_calls.rs`, and that a call is handed on as soon as it is complete.

use crate::support;

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use support::openai::{
    self as oa, ok_events, position, request, stop_of, stop_reason, stream_with, tool_uses,
};
use support::{Ending, Reply};
use tooloop::agent::assembler::{Assembler, Completed};
use tooloop::message::{ContentBlock, Message};
use tooloop::provider::openai::OpenAiProvider;
use tooloop::provider::{Provider, StreamEvent};

#[tokio::test]
async fn two_parallel_calls_in_one_byte_chunks() {
    let reply = oa::calls_reply(&[
        ("call_a", "read_file", json!({"path": "src/é.rs"})),
        ("call_b", "read_file", json!({"path": "b", "limit": 2})),
    ])
    .chunked(1);
    let events = ok_events(reply).await;
    assert_eq!(
        tool_uses(&events),
        vec![
            (
                "call_a".into(),
                "read_file".into(),
                json!({"path": "src/é.rs"})
            ),
            (
                "call_b".into(),
                "read_file".into(),
                json!({"path": "b", "limit": 2})
            ),
        ]
    );
    // The first call is complete (handed to the executor) before the second one starts.
    let first_done = stop_of(&events, "call_a");
    let second_start = position(
        &events,
        |e| matches!(e, StreamEvent::BlockStart { id: Some(id), .. } if id == "call_b"),
    );
    assert!(first_done < second_start);
    let raw = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Raw { event, .. } if event == "data"))
        .count();
    assert_eq!(raw, 1 + 4 + 4 + 3, "one Raw per data line, [DONE] included");
    assert_eq!(stop_reason(&events).as_deref(), Some("tool_use"));
}

#[tokio::test]
async fn a_call_is_handed_on_when_the_next_begins_not_at_the_end() {
    // The stream stalls after the second call's first fragment: the first call must be
    // complete without waiting for more bytes.
    let mut events = vec![oa::role()];
    events.extend(oa::call_events(0, "call_a", "read_file", r#"{"path":"a"}"#));
    events.push(oa::call(1, Some("call_b"), Some("read_file"), Some("")));
    let server = oa::server();
    server.enqueue(Reply::sse(events).ending(Ending::Stall));
    let p = OpenAiProvider::new(&oa::base(&server), None).expect("provider");
    let req = request(vec![Message::user_text("go")]);
    let mut s = p.start(&req).await.expect("start");
    let got = tokio::time::timeout(Duration::from_secs(20), async {
        let mut asm = Assembler::new();
        while let Some(Ok(event)) = s.next().await {
            if let Some(Completed::Block(ContentBlock::ToolUse { id, .. })) = asm.push(event) {
                return Some(id.clone());
            }
        }
        None
    })
    .await
    .expect("the first call completed while the stream was still open");
    assert_eq!(got.as_deref(), Some("call_a"));
}

#[tokio::test]
async fn missing_ids_are_filled_stable_and_unique() {
    let reply = || {
        Reply::sse(vec![
            oa::call(0, None, Some("read_file"), Some(r#"{"path":"a"}"#)),
            oa::call(1, None, Some("read_file"), Some(r#"{"path":"b"}"#)),
            oa::finish("tool_calls"),
            oa::done(),
        ])
    };
    // One call is already in the history: new ids must not repeat its id.
    let history = vec![
        Message::user_text("go"),
        Message::assistant(vec![ContentBlock::ToolUse {
            id: "call_1".into(),
            name: "read_file".into(),
            input: json!({}),
        }]),
        Message::user(vec![ContentBlock::tool_result("call_1", "x", false)]),
    ];
    let server = oa::server();
    server.enqueue(reply()).enqueue(reply());
    let (a, err_a) = stream_with(&server, &request(history.clone())).await;
    let (b, err_b) = stream_with(&server, &request(history)).await;
    assert_eq!((err_a, err_b), (None, None));
    let ids: Vec<String> = tool_uses(&a).into_iter().map(|t| t.0).collect();
    assert_eq!(ids, vec!["call_2", "call_3"]);
    assert_eq!(
        tool_uses(&a),
        tool_uses(&b),
        "the same history gives the same ids"
    );
}

#[tokio::test]
async fn a_server_id_already_in_the_history_is_renamed() {
    let history = vec![
        Message::user_text("go"),
        Message::assistant(vec![ContentBlock::ToolUse {
            id: "call_0".into(),
            name: "read_file".into(),
            input: json!({}),
        }]),
        Message::user(vec![ContentBlock::tool_result("call_0", "x", false)]),
    ];
    let server = oa::server();
    server.enqueue(Reply::sse(vec![
        oa::call(0, Some("call_0"), Some("read_file"), Some("{}")),
        oa::finish("tool_calls"),
        oa::done(),
    ]));
    let (events, err) = stream_with(&server, &request(history)).await;
    assert_eq!(err, None);
    let ids: Vec<String> = tool_uses(&events).into_iter().map(|t| t.0).collect();
    assert_eq!(ids.len(), 1);
    assert_ne!(ids[0], "call_0");
    assert!(ids[0].starts_with("call_0_"), "{}", ids[0]);
}

#[tokio::test]
async fn names_repeated_whole_in_every_fragment_are_not_doubled() {
    let reply = Reply::sse(vec![
        oa::call(0, Some("call_a"), Some("read_file"), Some("")),
        oa::call(0, Some("call_a"), Some("read_file"), Some(r#"{"pa"#)),
        oa::call(0, None, Some("read_file"), Some(r#"th":"a"}"#)),
        oa::call(1, None, Some("read_file"), Some(r#"{"path""#)),
        oa::call(1, None, Some("read_file"), Some(r#":"b"}"#)),
        oa::finish("tool_calls"),
        oa::done(),
    ]);
    let calls = tool_uses(&ok_events(reply).await);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].1, "read_file");
    assert_eq!(calls[0].2, json!({"path": "a"}));
    assert_eq!(calls[1].1, "read_file");
    assert_eq!(calls[1].2, json!({"path": "b"}));
}

#[tokio::test]
async fn a_name_streamed_in_pieces_is_joined() {
    let reply = Reply::sse(vec![
        oa::call(0, Some("call_a"), Some("read"), None),
        oa::call(0, None, Some("_file"), None),
        oa::call(0, None, None, Some(r#"{"path":"a"}"#)),
        oa::finish("tool_calls"),
        oa::done(),
    ]);
    let calls = tool_uses(&ok_events(reply).await);
    assert_eq!(
        calls,
        vec![("call_a".into(), "read_file".into(), json!({"path": "a"}))]
    );
}

#[tokio::test]
async fn whole_calls_in_one_chunk_with_the_finish() {
    let delta = json!({"role": "assistant", "content": null, "tool_calls": [
        oa::fragment(0, Some("c1"), Some("read_file"), Some(json!(r#"{"path":"a"}"#))),
        oa::fragment(1, Some("c2"), Some("read_file"), Some(json!(""))),
    ]});
    let events = ok_events(Reply::sse(vec![
        oa::chunk(delta, Some("tool_calls")),
        oa::done(),
    ]))
    .await;
    assert_eq!(
        tool_uses(&events),
        vec![
            ("c1".into(), "read_file".into(), json!({"path": "a"})),
            ("c2".into(), "read_file".into(), json!({})),
        ],
        "empty arguments mean {{}}"
    );
}

#[tokio::test]
async fn arguments_as_an_object() {
    let delta = json!({"tool_calls": [
        oa::fragment(0, Some("c1"), Some("read_file"), Some(json!({"path": "a"}))),
    ]});
    let events = ok_events(Reply::sse(vec![oa::chunk(delta, Some("stop")), oa::done()])).await;
    assert_eq!(
        tool_uses(&events),
        vec![("c1".into(), "read_file".into(), json!({"path": "a"}))]
    );
}

#[tokio::test]
async fn one_index_with_two_ids_is_two_calls() {
    let reply = Reply::sse(vec![
        oa::call(0, Some("c1"), Some("read_file"), Some(r#"{"path":"a"}"#)),
        oa::call(0, Some("c2"), Some("read_file"), Some(r#"{"path":"b"}"#)),
        oa::finish("tool_calls"),
        oa::done(),
    ]);
    let events = ok_events(reply).await;
    assert_eq!(
        tool_uses(&events),
        vec![
            ("c1".into(), "read_file".into(), json!({"path": "a"})),
            ("c2".into(), "read_file".into(), json!({"path": "b"})),
        ]
    );
}

#[tokio::test]
async fn one_index_without_ids_whole_calls_in_turn_is_two_calls() {
    let reply = Reply::sse(vec![
        oa::call(0, None, Some("read_file"), Some(r#"{"path":"a"}"#)),
        oa::call(0, None, Some("read_file"), Some(r#"{"path":"b"}"#)),
        oa::finish("stop"),
        oa::done(),
    ]);
    let calls = tool_uses(&ok_events(reply).await);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].2, json!({"path": "b"}));
    assert_ne!(calls[0].0, calls[1].0);
}

#[tokio::test]
async fn unparseable_arguments_are_an_invalid_call() {
    let reply = Reply::sse(vec![
        oa::call(0, Some("c1"), Some("read_file"), Some(r#"{"path": "a"#)),
        oa::finish("tool_calls"),
        oa::done(),
    ]);
    let events = ok_events(reply).await;
    let invalid = support::stream::assembled(&events).1;
    assert_eq!(invalid.len(), 1);
    assert_eq!(invalid[0].id, "c1");
    assert!(
        invalid[0].error.contains(r#"{"path": "a"#),
        "{}",
        invalid[0].error
    );
    assert!(tool_uses(&events).is_empty());
}

/// Older Ollama: no `index`, each call whole in its own chunk, the finish in the last one.
#[tokio::test]
async fn calls_without_an_index_as_older_ollama_sends_them() {
    let whole = |id: &str, path: &str| {
        json!({"id": id, "type": "function",
               "function": {"name": "read_file", "arguments": format!("{{\"path\":\"{path}\"}}")}})
    };
    let reply = Reply::sse(vec![
        oa::chunk(
            json!({"role": "assistant", "content": "", "tool_calls": [whole("call_x", "a")]}),
            None,
        ),
        oa::chunk(
            json!({"role": "assistant", "content": "", "tool_calls": [whole("call_y", "b")]}),
            Some("tool_calls"),
        ),
        oa::done(),
    ]);
    let calls = tool_uses(&ok_events(reply).await);
    assert_eq!(
        calls,
        vec![
            ("call_x".into(), "read_file".into(), json!({"path": "a"})),
            ("call_y".into(), "read_file".into(), json!({"path": "b"})),
        ]
    );
}
