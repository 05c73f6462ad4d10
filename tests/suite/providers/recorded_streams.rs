//! Streams recorded from the real APIs (tests/fixtures/streams, sources in its README.md),
//! decoded and assembled by tooloop, must give what the official SDKs assemble from them
//! (`<name>.expected.json`, written by `make_expected.py` from the SDKs' accumulation rules).
//!
//! Each recording is framed as its API frames it (Anthropic: `event: TYPE` + `data:`;
//! OpenAI-compatible: `data:` lines and a final `data: [DONE]`) and fed in small pieces,
//! so events split across reads are part of the test.

use std::collections::HashSet;

use futures::StreamExt;
use serde_json::{Value, json};
use tooloop::agent::assembler::Assembler;
use tooloop::message::{Message, validate_history};
use tooloop::provider::anthropic::stream::event_stream;
use tooloop::provider::openai::body::{Framing, decode};
use tooloop::provider::{EventStream, StreamEvent};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/streams");

fn chunks(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{DIR}/{name}.chunks.txt")).expect("fixture");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// The wire bytes, cut into 97-byte reads (a prime, so cuts fall everywhere).
fn pieces(
    wire: String,
) -> futures::stream::Iter<std::vec::IntoIter<Result<Vec<u8>, std::io::Error>>> {
    let bytes = wire.into_bytes();
    let parts: Vec<Result<Vec<u8>, std::io::Error>> =
        bytes.chunks(97).map(|c| Ok(c.to_vec())).collect();
    futures::stream::iter(parts)
}

fn anthropic_wire(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json line");
            let ty = v["type"].as_str().unwrap_or("data");
            format!("event: {ty}\ndata: {l}\n\n")
        })
        .collect()
}

fn openai_wire(lines: &[String]) -> String {
    let mut wire: String = lines.iter().map(|l| format!("data: {l}\n\n")).collect();
    wire.push_str("data: [DONE]\n\n");
    wire
}

async fn assemble(mut stream: EventStream) -> Assembler {
    let mut asm = Assembler::new();
    while let Some(item) = stream.next().await {
        match item.expect("the recorded stream decodes") {
            StreamEvent::Raw { .. } => {}
            ev => {
                asm.push(ev);
            }
        }
    }
    assert!(asm.saw_stop, "the message ended properly");
    asm
}

async fn check(name: &str) -> Assembler {
    let lines = chunks(name);
    let stream = if name.starts_with("anthropic") {
        event_stream(pieces(anthropic_wire(&lines)))
    } else {
        decode(pieces(openai_wire(&lines)), Framing::Sse, HashSet::new())
    };
    let asm = assemble(stream).await;
    let want: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{DIR}/{name}.expected.json")).expect("expected"),
    )
    .expect("expected json");
    let got = json!({
        "stop_reason": asm.stop_reason,
        "usage": asm.usage,
        "content": asm.blocks(true),
    });
    assert_eq!(got["content"], want["content"], "{name}: content");
    assert_eq!(
        got["stop_reason"], want["stop_reason"],
        "{name}: stop_reason"
    );
    assert_eq!(got["usage"], want["usage"], "{name}: usage");
    // The assembled reply is a valid history entry, and it serializes to what was received.
    let history = vec![
        Message::user_text("q"),
        Message::assistant(asm.blocks(true)),
    ];
    if !history[1].tool_uses().any(|_| true) {
        validate_history(&history).expect("valid history");
    }
    let back: Message =
        serde_json::from_value(serde_json::to_value(&history[1]).expect("ser")).expect("de");
    assert_eq!(
        back, history[1],
        "{name}: a transcript round trip keeps every block"
    );
    asm
}

#[tokio::test]
async fn anthropic_plain_text() {
    check("anthropic-text").await;
}

/// Defect 3: server_tool_use, web_search_tool_result and cited text blocks are kept, in
/// order, verbatim; web_search_requests is counted.
#[tokio::test]
async fn anthropic_web_search_keeps_server_blocks_and_citations() {
    let asm = check("anthropic-web-search-tool.1").await;
    let blocks = asm.blocks(true);
    assert_eq!(blocks[0].other_type(), Some("server_tool_use"));
    assert_eq!(blocks[1].other_type(), Some("web_search_tool_result"));
    let cited = blocks
        .iter()
        .filter(|b| matches!(b, tooloop::message::ContentBlock::Text { citations, .. } if !citations.is_empty()))
        .count();
    assert!(cited >= 5, "{cited} cited text blocks");
    assert_eq!(asm.usage.web_search_requests, 1);
}

/// Code execution: server_tool_use with streamed input, and two kinds of results.
#[tokio::test]
async fn anthropic_code_execution_results_are_kept() {
    check("anthropic-code-execution-20250825.1").await;
}

/// Defect 5: content inside message_start counts as blocks that arrived (the tool_use in
/// it is complete and goes to the executor like any other).
#[tokio::test]
async fn anthropic_message_start_with_content() {
    let asm = check("anthropic-message-start-prepopulated-content").await;
    let blocks = asm.blocks(true);
    assert_eq!(blocks.len(), 3);
    assert!(
        matches!(&blocks[2], tooloop::message::ContentBlock::ToolUse { id, .. } if id == "toolu_followup")
    );
}

/// Defect 1: Mistral's list-of-parts content: thinking parts are reasoning, text parts
/// the answer (it used to complete with an empty answer).
#[tokio::test]
async fn mistral_content_parts() {
    let asm = check("mistral-reasoning").await;
    assert_eq!(Message::assistant(asm.blocks(true)).text(), "2 + 2 = 4");
}

/// Mistral's tool-call deltas carry no index.
#[tokio::test]
async fn mistral_tool_call_without_index() {
    check("mistral-tool-call").await;
}

/// DeepSeek reasoner: reasoning_content, a tool call, usage (with cached tokens) in the
/// last chunk.
#[tokio::test]
async fn deepseek_reasoning_and_tool_call() {
    check("deepseek-tool-call").await;
}

#[tokio::test]
async fn xai_reasoning_and_tool_call() {
    check("xai-tool-call").await;
}

/// Groq: empty deltas and usage in the last chunk.
#[tokio::test]
async fn groq_tool_call() {
    check("groq-tool-call").await;
}
