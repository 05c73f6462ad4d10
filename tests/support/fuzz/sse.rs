//! `anthropic_sse` and `openai_sse`: response bodies cut at arbitrary points, through the
//! SSE framing and the provider's decoder into the one assembler, then closed the way the
//! query loop closes a reply (`agent/query_loop.rs`: `consume`, `end_reply`,
//! `close_reply`).
//!
//! Input layout: byte 0 picks the chunking, byte 1 the event after which the user aborts
//! (0: never); OpenAI reads byte 2 as the framing (odd: one JSON body). The rest is the body.
//!
//! Checked: no panic; the same events whatever the chunking; every completed tool_use has
//! an object input, or an invalid-input error the model can read; the history the reply
//! leaves (under every way the stream can end) passes `validate_history`, with every
//! tool_use input an object and no empty text block.

use std::collections::{HashSet, VecDeque};
use std::convert::Infallible;

use futures::StreamExt;
use serde_json::json;
use tooloop::agent::assembler::{Assembler, Completed};
use tooloop::message::markers::INTERRUPT_MARKER;
use tooloop::message::{ContentBlock, HistoryCheck, Message, validate_history};
use tooloop::provider::StreamEvent;
use tooloop::provider::anthropic::stream::Decoder;
use tooloop::provider::openai::body::{Framing, decode};

use super::MAX_INPUT;

/// A decoded stream, errors as their text (what the loop keeps of them).
type Events = Vec<Result<StreamEvent, String>>;

pub fn anthropic_sse(data: &[u8]) {
    if data.len() < 2 || data.len() > MAX_INPUT {
        return;
    }
    let (split, abort, body) = (data[0], data[1], &data[2..]);
    let whole = anthropic(&[body]);
    let pieces = chunks(body, split);
    assert_eq!(
        anthropic(&pieces),
        whole,
        "chunking changed the decoded events"
    );
    close_every_way(whole, abort);
}

pub fn openai_sse(data: &[u8]) {
    if data.len() < 3 || data.len() > MAX_INPUT {
        return;
    }
    let (split, abort, body) = (data[0], data[1], &data[3..]);
    let framing = if data[2] % 2 == 1 {
        Framing::Json
    } else {
        Framing::Sse
    };
    let whole = openai(&[body], framing);
    let pieces = chunks(body, split);
    assert_eq!(
        openai(&pieces, framing),
        whole,
        "chunking changed the decoded events"
    );
    close_every_way(whole, abort);
}

fn anthropic(chunks: &[&[u8]]) -> Events {
    let mut dec = Decoder::new();
    let mut queue = VecDeque::new();
    let mut out = Vec::new();
    for c in chunks {
        dec.feed(c, &mut queue);
        out.extend(queue.drain(..).map(|r| r.map_err(|e| e.to_string())));
    }
    dec.finish(&mut queue);
    out.extend(queue.drain(..).map(|r| r.map_err(|e| e.to_string())));
    out
}

fn openai(chunks: &[&[u8]], framing: Framing) -> Events {
    let body: Vec<Result<Vec<u8>, Infallible>> = chunks.iter().map(|c| Ok(c.to_vec())).collect();
    let stream = decode(futures::stream::iter(body), framing, taken_ids());
    futures::executor::block_on(stream.map(|r| r.map_err(|e| e.to_string())).collect())
}

/// `body` cut into pieces: 0 = one byte each, else pseudo-random sizes up to `split`.
fn chunks(body: &[u8], split: u8) -> Vec<&[u8]> {
    if split == 0 {
        return body.chunks(1).collect();
    }
    let mut state = u32::from(split).wrapping_mul(2_654_435_761) | 1;
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let n = (state as usize % usize::from(split)) + 1;
        let (a, b) = rest.split_at(n.min(rest.len()));
        out.push(a);
        rest = b;
    }
    out
}

/// The conversation before the reply: one earlier round with tool ids a hostile reply may
/// reuse (ids are unique across the whole history).
fn prior() -> Vec<Message> {
    let call = |id: &str| ContentBlock::ToolUse {
        id: id.into(),
        name: "glob".into(),
        input: json!({"pattern": "*"}),
    };
    vec![
        Message::user_text("list the files"),
        Message::assistant(vec![call("toolu_01"), call("call_1"), call("call_0")]),
        Message::user(vec![
            ContentBlock::tool_result("toolu_01", "a", false),
            ContentBlock::tool_result("call_1", "b", false),
            ContentBlock::tool_result("call_0", "c", false),
        ]),
        Message::user_text("again"),
    ]
    .into_iter()
    .fold(Vec::new(), |mut acc: Vec<Message>, m| {
        // Two user messages in a row merge, as Agent::push does.
        match acc.last_mut() {
            Some(last) if last.role == m.role => last.content.extend(m.content),
            _ => acc.push(m),
        }
        acc
    })
}

fn taken_ids() -> HashSet<String> {
    prior()
        .iter()
        .flat_map(|m| m.tool_uses().map(|(id, _, _)| id.to_string()))
        .collect()
}

/// How the loop saw the stream end.
#[derive(Debug)]
enum End {
    Finished,
    Aborted,
    Failed(String),
}

/// Feeds the events to an assembler as `consume` does, then closes the reply in each way
/// the loop can and validates the history each leaves.
fn close_every_way(events: Events, abort_at: u8) {
    let history = prior();
    let mut check = HistoryCheck::default();
    for i in 0..history.len() {
        check
            .message(&history, i)
            .expect("the prior history is valid");
    }
    let mut asm = Assembler::new();
    let mut end = None;
    for (n, item) in events.into_iter().enumerate() {
        if abort_at != 0 && n == usize::from(abort_at) {
            end = Some(End::Aborted);
            break;
        }
        let event = match item {
            Err(e) => {
                end = Some(End::Failed(e));
                break;
            }
            Ok(StreamEvent::Raw { .. }) => continue,
            Ok(ev) => asm.with_unique_tool_id(ev, |id| check.knows(id)),
        };
        match asm.push(event) {
            Some(Completed::Block(ContentBlock::ToolUse { id, name, input })) => {
                assert!(input.is_object(), "tool_use {id} ({name}) input {input}");
                assert!(!id.is_empty(), "a completed tool_use without an id");
            }
            Some(Completed::Invalid(inv)) => {
                assert!(!inv.id.is_empty(), "an invalid tool_use without an id");
                assert!(
                    inv.error.starts_with("Error: "),
                    "not a clean error: {}",
                    inv.error
                );
            }
            _ => {}
        }
        if asm.saw_stop {
            end = Some(End::Finished);
            break;
        }
    }
    let end = end.unwrap_or(if asm.saw_stop {
        End::Finished
    } else {
        End::Failed("incomplete".into())
    });
    match end {
        End::Finished => {
            let cut = asm.stop_reason.as_deref() == Some("max_tokens");
            let tail = cut.then_some("Output token limit hit.");
            close(&history, asm.blocks(!cut), tail);
            // Ctrl+C while the reply's tools ran.
            close(&history, asm.blocks(!cut), Some(INTERRUPT_MARKER));
        }
        End::Aborted => close(
            &history,
            asm.blocks_with_partial(None),
            Some(INTERRUPT_MARKER),
        ),
        End::Failed(e) => {
            let marker = format!("\n[reply cut off: {e}]");
            let kept = asm.blocks_with_partial(Some(&marker));
            let asked = kept
                .iter()
                .any(|b| matches!(b, ContentBlock::ToolUse { .. }));
            let tail = (!kept.is_empty() && !asked).then_some("[cut off]");
            close(&history, kept, tail);
            // Switching to the fallback model keeps only the complete blocks.
            close(&history, asm.complete_blocks_of_cut_reply(), None);
        }
    }
}

/// Appends the reply and its results as `close_reply` and `Agent::push` do, then validates.
fn close(prior: &[Message], blocks: Vec<ContentBlock>, tail: Option<&str>) {
    let mut history = prior.to_vec();
    for block in &blocks {
        match block {
            ContentBlock::ToolUse { id, input, .. } => {
                assert!(input.is_object(), "tool_use {id} kept with input {input}");
            }
            ContentBlock::Text { text, .. } => assert!(!text.is_empty(), "an empty text block"),
            _ => {}
        }
    }
    let results: Vec<ContentBlock> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, .. } => Some(ContentBlock::tool_result(id, "ok", false)),
            _ => None,
        })
        .collect();
    if !blocks.is_empty() {
        history.push(Message::assistant(blocks));
    }
    let mut answer = results;
    answer.extend(tail.map(ContentBlock::text));
    if !answer.is_empty() {
        match history.last_mut() {
            Some(last) if last.role == tooloop::message::Role::User => last.content.extend(answer),
            _ => history.push(Message::user(answer)),
        }
    }
    if let Err(e) = validate_history(&history) {
        panic!("the reply left an invalid history: {e}\n{history:#?}");
    }
}
