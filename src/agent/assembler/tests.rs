//! The assembler on its own: events in, blocks out.

use super::*;
use serde_json::json;

fn start(index: usize, kind: BlockKind) -> StreamEvent {
    StreamEvent::BlockStart {
        index,
        kind,
        id: None,
        name: None,
    }
}

fn tool_start(index: usize, id: &str) -> StreamEvent {
    StreamEvent::BlockStart {
        index,
        kind: BlockKind::ToolUse,
        id: Some(id.into()),
        name: Some("t".into()),
    }
}

fn input(index: usize, json: &str) -> StreamEvent {
    StreamEvent::ToolInputDelta {
        index,
        partial_json: json.into(),
    }
}

fn thinking(a: &mut Assembler, index: usize, stop: bool) {
    a.push(start(index, BlockKind::Thinking));
    a.push(StreamEvent::ThinkingDelta {
        index,
        thinking: "hm".into(),
    });
    a.push(StreamEvent::SignatureDelta {
        index,
        signature: "sig".into(),
    });
    if stop {
        a.push(StreamEvent::BlockStop { index });
    }
}

#[test]
fn thinking_and_redacted_thinking_are_kept_byte_for_byte() {
    let mut a = Assembler::new();
    a.push(start(0, BlockKind::Thinking));
    for piece in ["Let me ", "think\u{2014} \"a\"\\n"] {
        a.push(StreamEvent::ThinkingDelta {
            index: 0,
            thinking: piece.into(),
        });
    }
    for piece in ["EqQB", "Cgg+/=="] {
        a.push(StreamEvent::SignatureDelta {
            index: 0,
            signature: piece.into(),
        });
    }
    a.push(StreamEvent::BlockStop { index: 0 });
    a.push(start(1, BlockKind::RedactedThinking));
    a.push(StreamEvent::RedactedThinking {
        index: 1,
        data: "EmwKAhgBEgy3va==".into(),
    });
    a.push(StreamEvent::BlockStop { index: 1 });
    a.push(start(2, BlockKind::Text));
    a.push(StreamEvent::TextDelta {
        index: 2,
        text: "ok".into(),
    });
    a.push(StreamEvent::BlockStop { index: 2 });
    assert_eq!(
        a.blocks(true),
        vec![
            ContentBlock::Thinking {
                thinking: "Let me think\u{2014} \"a\"\\n".into(),
                signature: "EqQBCgg+/==".into(),
            },
            ContentBlock::RedactedThinking {
                data: "EmwKAhgBEgy3va==".into()
            },
            ContentBlock::text("ok"),
        ]
    );
}

#[test]
fn tool_input_is_parsed_once_at_block_stop() {
    let mut a = Assembler::new();
    a.push(tool_start(0, "toolu_1"));
    assert!(a.push(input(0, "{\"pa")).is_none());
    assert!(a.push(input(0, "th\": \"a\"}")).is_none());
    match a.push(StreamEvent::BlockStop { index: 0 }) {
        Some(Completed::Block(ContentBlock::ToolUse { id, input, .. })) => {
            assert_eq!(id, "toolu_1");
            assert_eq!(input, &json!({"path": "a"}));
        }
        _ => panic!("a complete tool_use"),
    }
    // No fragment at all: a tool without parameters.
    a.push(tool_start(1, "toolu_2"));
    assert!(matches!(
        a.push(StreamEvent::BlockStop { index: 1 }),
        Some(Completed::Block(ContentBlock::ToolUse { input, .. })) if input == &json!({})
    ));
}

#[test]
fn invalid_input_is_kept_with_an_empty_object_and_quoted_in_the_error() {
    for raw in ["{\"path\": ", "[1, 2]"] {
        let mut a = Assembler::new();
        a.push(tool_start(0, "toolu_1"));
        a.push(input(0, raw));
        match a.push(StreamEvent::BlockStop { index: 0 }) {
            Some(Completed::Invalid(inv)) => {
                assert_eq!(inv.id, "toolu_1");
                assert!(inv.error.contains("not valid JSON"), "{}", inv.error);
                assert!(inv.error.contains(raw), "{}", inv.error);
            }
            _ => panic!("an invalid tool_use for {raw}"),
        }
        assert_eq!(
            a.blocks(true),
            vec![ContentBlock::ToolUse {
                id: "toolu_1".into(),
                name: "t".into(),
                input: json!({}),
            }]
        );
        assert!(a.blocks(false).is_empty(), "a max_tokens cut drops it");
    }
}

#[test]
fn a_cut_reply_never_ends_in_thinking() {
    // Thinking, then the stream dropped: nothing is kept (the request is sent again).
    let mut a = Assembler::new();
    thinking(&mut a, 0, true);
    a.push(start(1, BlockKind::RedactedThinking));
    a.push(StreamEvent::RedactedThinking {
        index: 1,
        data: "x".into(),
    });
    a.push(StreamEvent::BlockStop { index: 1 });
    assert!(a.blocks_with_partial(Some(" [cut]")).is_empty());
    assert!(a.complete_blocks_of_cut_reply().is_empty());
    assert!(a.blocks(false).is_empty());
    assert_eq!(
        a.blocks(true).len(),
        2,
        "a complete reply is kept as it came"
    );

    // Thinking, a tool call, more thinking cut off: the tool call ends the kept reply.
    let mut a = Assembler::new();
    thinking(&mut a, 0, true);
    a.push(tool_start(1, "toolu_1"));
    a.push(StreamEvent::BlockStop { index: 1 });
    thinking(&mut a, 2, true);
    thinking(&mut a, 3, false);
    let kept = a.blocks_with_partial(None);
    assert_eq!(kept.len(), 2);
    assert!(matches!(kept[1], ContentBlock::ToolUse { .. }));

    // Partial text after thinking: kept, with the marker.
    let mut a = Assembler::new();
    thinking(&mut a, 0, true);
    a.push(start(1, BlockKind::Text));
    a.push(StreamEvent::TextDelta {
        index: 1,
        text: "Hal".into(),
    });
    let kept = a.blocks_with_partial(Some(" [cut]"));
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[1], ContentBlock::text("Hal [cut]"));
}

#[test]
fn deltas_of_the_wrong_kind_and_unknown_blocks_are_ignored() {
    let mut a = Assembler::new();
    a.push(start(0, BlockKind::Other));
    a.push(input(0, "{}"));
    assert!(a.push(StreamEvent::BlockStop { index: 0 }).is_none());
    a.push(start(1, BlockKind::Text));
    a.push(StreamEvent::SignatureDelta {
        index: 1,
        signature: "s".into(),
    });
    a.push(StreamEvent::TextDelta {
        index: 1,
        text: "t".into(),
    });
    a.push(StreamEvent::BlockStop { index: 1 });
    assert!(a.push(StreamEvent::BlockStop { index: 7 }).is_none());
    assert_eq!(a.blocks(true), vec![ContentBlock::text("t")]);
}
