//! Property tests for the history invariants (DESIGN.md §4): whatever the model streams
//! (blocks in any order, reused or missing tool ids, broken tool input, a stream that fails
//! or never stops), whatever the tools answer, and wherever the user aborts, every request
//! the loop sends and the history it leaves pass `validate_history`, and a next prompt
//! still works. The real Agent over the scripted provider, under tokio's paused clock.

use crate::support;

use std::time::Duration;

use proptest::prelude::*;
use support::harness::harness;
use tokio_util::sync::CancellationToken;
use tooloop::cli::ToolExec;
use tooloop::message::validate_history;
use tooloop::provider::scripted::{Reply, Step};
use tooloop::provider::{BlockKind, ProviderError, StreamEvent, Usage};

const TOOLS: [&str; 4] = ["fast", "slow", "exec", "missing"];

/// One thing a model stream can carry (indices small so blocks collide).
fn event() -> impl Strategy<Value = Result<StreamEvent, ProviderError>> {
    let index = 0usize..4;
    prop_oneof![
        3 => (index.clone(), prop::sample::select(vec![BlockKind::Text, BlockKind::Thinking,
            BlockKind::RedactedThinking, BlockKind::ToolUse, BlockKind::Other]),
            prop::option::of(prop::sample::select(vec!["", "t1", "t2", "call_1", "toolu_x"])),
            prop::option::of(prop::sample::select(TOOLS.to_vec())))
            .prop_map(|(index, kind, id, name)| Ok(StreamEvent::BlockStart {
                index, kind, id: id.map(String::from), name: name.map(String::from),
            })),
        3 => (index.clone(), "[a-z \n]{0,6}").prop_map(|(index, text)| Ok(StreamEvent::TextDelta { index, text })),
        1 => (index.clone(), "[a-z]{0,4}").prop_map(|(index, thinking)| Ok(StreamEvent::ThinkingDelta { index, thinking })),
        1 => (index.clone(), "[a-z]{0,4}").prop_map(|(index, signature)| Ok(StreamEvent::SignatureDelta { index, signature })),
        3 => (index.clone(), prop::sample::select(vec!["{", "}", "{}", "{\"fail\":true}",
            "{\"tag\":\"a\"}", "[1]", "\"{}\"", "null", "", " ", "{\"ta", "g\":1}"]))
            .prop_map(|(index, j)| Ok(StreamEvent::ToolInputDelta { index, partial_json: j.into() })),
        3 => index.prop_map(|index| Ok(StreamEvent::BlockStop { index })),
        1 => prop::option::of(prop::sample::select(vec!["end_turn", "tool_use", "max_tokens"]))
            .prop_map(|r| Ok(StreamEvent::Delta { stop_reason: r.map(String::from), usage: Usage::default() })),
        1 => Just(Ok(StreamEvent::MessageStop)),
        1 => prop::sample::select(vec![
            ProviderError::Incomplete,
            ProviderError::Malformed("bad".into()),
            ProviderError::Interrupted("reset".into()),
            ProviderError::Stream { error_type: "overloaded_error".into(), message: "busy".into() },
        ]).prop_map(Err),
    ]
}

/// A scripted reply as plain data (the provider's `Reply` is neither Clone nor Debug).
#[derive(Debug, Clone)]
enum Script {
    /// Fail before the first byte after this many ms.
    Fail(u64),
    /// Events, each this many ms after the one before.
    Stream(Vec<(u64, Result<StreamEvent, ProviderError>)>),
}

impl Script {
    fn reply(self) -> Reply {
        match self {
            Script::Fail(ms) => Reply::Fail(
                Duration::from_millis(ms),
                ProviderError::Connect("refused".into()),
            ),
            Script::Stream(steps) => Reply::Stream(
                steps
                    .into_iter()
                    .map(|(ms, e)| (Duration::from_millis(ms), e) as Step)
                    .collect(),
            ),
        }
    }
}

/// A whole block as a model streams it: start, deltas (text, or tool input pieces), stop
/// (unless the stream is cut first). Tool ids come from a small set so they collide.
fn block() -> impl Strategy<Value = Vec<Result<StreamEvent, ProviderError>>> {
    (
        0usize..4,
        prop::sample::select(vec![
            BlockKind::Text,
            BlockKind::ToolUse,
            BlockKind::ToolUse,
            BlockKind::Thinking,
        ]),
        prop::option::of(prop::sample::select(vec!["", "t1", "t2", "call_1"])),
        prop::sample::select(TOOLS.to_vec()),
        prop::collection::vec(
            prop::sample::select(vec![
                "{",
                "}",
                "{}",
                "{\"fail\":true}",
                "{\"tag\":\"a\"}",
                "[1]",
                "\"{}\"",
                "null",
                "",
                "x",
            ]),
            0..3,
        ),
        any::<bool>(),
    )
        .prop_map(|(index, kind, id, name, pieces, stop)| {
            let mut events = vec![Ok(StreamEvent::BlockStart {
                index,
                kind,
                id: id.map(String::from),
                name: Some(name.to_string()),
            })];
            for piece in pieces {
                events.push(Ok(match kind {
                    BlockKind::ToolUse => StreamEvent::ToolInputDelta {
                        index,
                        partial_json: piece.into(),
                    },
                    BlockKind::Thinking => StreamEvent::ThinkingDelta {
                        index,
                        thinking: piece.into(),
                    },
                    _ => StreamEvent::TextDelta {
                        index,
                        text: piece.into(),
                    },
                }));
            }
            if stop {
                events.push(Ok(StreamEvent::BlockStop { index }));
            }
            events
        })
}

/// A reply: fail before the first byte, or stream whole blocks and stray events, 0–60 ms
/// apart, usually ending with a stop reason and message_stop.
fn reply() -> impl Strategy<Value = Script> {
    let piece = prop_oneof![
        3 => block(),
        2 => event().prop_map(|e| vec![e]),
    ];
    let stream = (
        prop::collection::vec(piece, 0..8),
        prop::option::of(prop::sample::select(vec![
            "end_turn",
            "tool_use",
            "max_tokens",
        ])),
        prop::bool::weighted(0.8),
        prop::collection::vec(0u64..60, 40),
    )
        .prop_map(|(pieces, stop_reason, stop, delays)| {
            let mut events: Vec<_> = pieces.into_iter().flatten().collect();
            events.push(Ok(StreamEvent::Delta {
                stop_reason: stop_reason.map(String::from),
                usage: Usage::default(),
            }));
            if stop {
                events.push(Ok(StreamEvent::MessageStop));
            }
            let steps = events
                .into_iter()
                .enumerate()
                .map(|(i, e)| (delays[i % delays.len()], e))
                .collect();
            Script::Stream(steps)
        });
    prop_oneof![
        1 => (0u64..50).prop_map(Script::Fail),
        8 => stream,
    ]
}

#[derive(Debug, Clone)]
struct Prompt {
    replies: Vec<Script>,
    /// Abort after this many ms (None: never).
    abort_ms: Option<u64>,
}

fn prompt() -> impl Strategy<Value = Prompt> {
    (
        prop::collection::vec(reply(), 1..5),
        prop::option::of(0u64..1500),
    )
        .prop_map(|(replies, abort_ms)| Prompt { replies, abort_ms })
}

fn run(prompts: Vec<Prompt>, strategy: ToolExec) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let mut h = harness(
            Vec::new(),
            &[
                ("fast", true, 10),
                ("slow", true, 400),
                ("exec", false, 100),
            ],
            strategy,
        );
        for (n, p) in prompts.into_iter().enumerate() {
            for r in p.replies {
                h.provider.push(r.reply());
            }
            let cancel = CancellationToken::new();
            if let Some(ms) = p.abort_ms {
                let t = cancel.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    t.cancel();
                });
            }
            h.agent.run_prompt(&format!("prompt {n}"), &cancel).await;
            h.settle().await;
            if let Err(e) = validate_history(&h.agent.history) {
                panic!("after prompt {n}: {e}\n{:#?}", h.agent.history);
            }
            h.assert_valid();
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, max_shrink_iters: 2000, ..ProptestConfig::default() })]

    #[test]
    fn any_stream_tools_and_aborts_leave_a_valid_history(
        prompts in prop::collection::vec(prompt(), 1..4),
        strategy in prop::sample::select(vec![ToolExec::Streaming, ToolExec::Parallel, ToolExec::Serial]),
    ) {
        run(prompts, strategy);
    }
}
