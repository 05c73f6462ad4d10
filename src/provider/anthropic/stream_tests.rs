//! Decoder edge cases that need no socket (the HTTP-level ones are in tests/anthropic_*.rs).

use super::*;
use serde_json::json;

fn sse(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn decode(input: &str) -> Vec<Item> {
    let mut d = Decoder::new();
    let mut out = VecDeque::new();
    d.feed(input.as_bytes(), &mut out);
    d.finish(&mut out);
    out.into_iter()
        .filter(|i| !matches!(i, Ok(StreamEvent::Raw { .. })))
        .collect()
}

fn start() -> String {
    sse(
        "message_start",
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 5}}}),
    )
}

fn stop() -> String {
    sse("message_stop", json!({"type": "message_stop"}))
}

#[test]
fn delta_for_an_unknown_block_is_malformed() {
    let input = start()
        + &sse(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 3,
            "delta": {"type": "text_delta", "text": "x"}}),
        );
    let out = decode(&input);
    assert!(
        matches!(out.last(), Some(Err(ProviderError::Malformed(m))) if m.contains("block 3")),
        "{out:?}"
    );
}

#[test]
fn tool_use_without_id_is_malformed() {
    let input = start()
        + &sse(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "name": "t", "input": {}}}),
        );
    assert!(matches!(
        decode(&input).last(),
        Some(Err(ProviderError::Malformed(_)))
    ));
}

#[test]
fn whole_input_in_block_start_is_used_without_fragments() {
    let input = start()
        + &sse(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"a": 1}}}),
        )
        + &sse(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        )
        + &stop();
    let out = decode(&input);
    assert!(
        out.ends_with(&[
            Ok(StreamEvent::ToolInputDelta {
                index: 0,
                partial_json: r#"{"a":1}"#.into()
            }),
            Ok(StreamEvent::BlockStop { index: 0 }),
            Ok(StreamEvent::MessageStop),
        ]),
        "{out:?}"
    );
}

#[test]
fn nothing_after_message_stop_or_error() {
    let input = start()
        + &stop()
        + &sse(
            "error",
            json!({"type": "error", "error": {"type": "api_error", "message": "late"}}),
        );
    let out = decode(&input);
    assert_eq!(out.last(), Some(&Ok(StreamEvent::MessageStop)));
    assert!(out.iter().all(Result::is_ok));
    let input = start()
        + &sse(
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        )
        + &stop();
    let out = decode(&input);
    assert_eq!(
        out.last(),
        Some(&Err(ProviderError::Stream {
            error_type: "overloaded_error".into(),
            message: "Overloaded".into()
        }))
    );
    assert_eq!(out.iter().filter(|i| i.is_err()).count(), 1);
}

#[test]
fn server_blocks_are_kept_verbatim_and_unknown_deltas_ignored() {
    let server = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search"});
    let citation = json!({"type": "web_search_result_location", "url": "https://a.example"});
    let input = start()
        + &sse(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": server}),
        )
        + &sse(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
        )
        + &sse(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        )
        + &sse(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "text", "text": ""}}),
        )
        + &sse(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "citations_delta", "citation": citation}}),
        )
        + &sse(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "future_delta", "text": "x"}}),
        )
        + &sse(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        )
        + &stop();
    let out = decode(&input);
    assert!(out.iter().all(Result::is_ok), "{out:?}");
    assert!(out.contains(&Ok(StreamEvent::OtherBlock {
        index: 0,
        block: server
    })));
    assert!(out.contains(&Ok(StreamEvent::ToolInputDelta {
        index: 0,
        partial_json: "{}".into()
    })));
    assert!(out.contains(&Ok(StreamEvent::Citation { index: 1, citation })));
    assert!(
        !out.iter()
            .any(|i| matches!(i, Ok(StreamEvent::TextDelta { .. }))),
        "the unknown delta adds nothing: {out:?}"
    );
}

#[test]
fn every_event_has_a_raw_twin() {
    let input = sse("ping", json!({"type": "ping"})) + &start() + &stop();
    let mut d = Decoder::new();
    let mut out = VecDeque::new();
    d.feed(input.as_bytes(), &mut out);
    let raw: Vec<String> = out
        .iter()
        .filter_map(|i| match i {
            Ok(StreamEvent::Raw { event, .. }) => Some(event.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(raw, vec!["ping", "message_start", "message_stop"]);
}

/// The typed fast path for content_block_delta and the `Value` path must agree: odd deltas
/// (wrong field types, escapes, extra fields, a number index as float) give what the
/// general path gives, and Raw copies stay in front of what their event produced.
#[test]
fn delta_fast_path_matches_the_general_path() {
    let block = sse(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    let odd = [
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a\"\\n\u{e9}"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}}),
        json!({"type": "content_block_delta", "index": 0, "extra": [1], "delta": {"type": "text_delta", "text": "b", "more": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {}}}),
    ];
    let mut input = start() + &block;
    for d in &odd {
        input += &sse("content_block_delta", d.clone());
    }
    // Under another event name the typed path is skipped: the general path's answer.
    let mut general = start() + &block;
    for d in &odd {
        general += &format!("event: other_name\ndata: {d}\n\n");
    }
    let texts = |items: Vec<Item>| -> Vec<String> {
        items
            .into_iter()
            .filter_map(|i| match i {
                Ok(StreamEvent::TextDelta { text, .. }) => Some(text),
                _ => None,
            })
            .collect()
    };
    let fast = texts(decode(&input));
    assert_eq!(fast, vec!["a\"\\n\u{e9}", "", "b", ""]);
    assert_eq!(fast, texts(decode(&general)));

    let float_index = start()
        + &block
        + &sse(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0.5, "delta": {"type": "text_delta", "text": "x"}}),
        );
    assert!(
        matches!(decode(&float_index).last(), Some(Err(ProviderError::Malformed(m))) if m.contains("index")),
    );

    let mut d = Decoder::new();
    let mut out = VecDeque::new();
    d.feed(
        (start() + &block + &sse("content_block_delta", odd[0].clone())).as_bytes(),
        &mut out,
    );
    let kinds: Vec<&str> = out
        .iter()
        .map(|i| match i {
            Ok(StreamEvent::Raw { .. }) => "raw",
            Ok(StreamEvent::TextDelta { .. }) => "text",
            Ok(_) => "other",
            Err(_) => "err",
        })
        .collect();
    assert_eq!(kinds, ["raw", "other", "raw", "other", "raw", "text"]);
}
