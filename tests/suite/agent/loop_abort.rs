//! Abort at every phase of a turn: history stays valid, every tool_use is answered, and the
//! next prompt succeeds against a provider that validates like the API.

use crate::support;

use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use support::harness::{Harness, harness};
use tooloop::cli::ToolExec;
use tooloop::message::markers::INTERRUPT_MARKER;
use tooloop::message::{ContentBlock, Role};
use tooloop::protocol::Terminal;
use tooloop::provider::ProviderError;
use tooloop::provider::scripted::{Reply, ReplyBuilder};

fn abort_at(ms: u64) -> CancellationToken {
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        t.cancel();
    });
    token
}

/// After an abort: the marker is in history, and a next prompt completes.
async fn next_prompt_works(h: &mut Harness) {
    h.assert_valid();
    let last = h.agent.history.last().expect("history");
    assert_eq!(last.role, Role::User);
    assert!(
        last.content
            .iter()
            .any(|b| matches!(b, ContentBlock::Text { text, .. } if text == INTERRUPT_MARKER)),
        "marker in {last:?}"
    );
    h.provider.push(
        ReplyBuilder::new()
            .text(10, "continuing")
            .end(20, "end_turn"),
    );
    let s = h.agent.run_prompt("go on", &CancellationToken::new()).await;
    assert_eq!(s.reason, Terminal::Completed, "{:?}", s.error);
    assert_eq!(s.text, "continuing");
    h.assert_valid();
}

fn http(status: u16, retry_after: Option<Duration>) -> ProviderError {
    ProviderError::Http {
        status,
        error_type: Some("overloaded_error".into()),
        message: "busy".into(),
        retry_after,
        should_retry: None,
        body: String::new(),
    }
}

fn result_texts(h: &Harness, index: usize) -> Vec<(String, String, bool)> {
    h.agent.history[index]
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => Some((tool_use_id.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn abort_before_the_first_byte() {
    let replies = vec![Reply::Fail(Duration::from_secs(100), http(500, None))];
    let mut h = harness(replies, &[], ToolExec::Streaming);
    let s = h.agent.run_prompt("hello", &abort_at(50)).await;
    assert_eq!(s.reason, Terminal::AbortedStreaming);
    assert_eq!(h.agent.history.len(), 1);
    next_prompt_works(&mut h).await;
    // The next prompt joined the interrupted one: roles still alternate.
    assert_eq!(h.agent.history.len(), 2);
}

#[tokio::test(start_paused = true)]
async fn abort_mid_text_keeps_the_partial_text() {
    let replies = vec![
        ReplyBuilder::new()
            .partial_text(100, "Half an ans")
            .stall_until(100_000),
    ];
    let mut h = harness(replies, &[], ToolExec::Streaming);
    let s = h.agent.run_prompt("hello", &abort_at(200)).await;
    assert_eq!(s.reason, Terminal::AbortedStreaming);
    assert_eq!(
        h.agent.history[1].content,
        vec![ContentBlock::text("Half an ans")]
    );
    next_prompt_works(&mut h).await;
}

#[tokio::test(start_paused = true)]
async fn abort_mid_tool_use_json_drops_the_half_block_and_answers_the_complete_one() {
    let replies = vec![
        ReplyBuilder::new()
            .text(10, "Looking.")
            .tool(20, 100, "t1", "wait", json!({"tag": "a"}))
            .partial_tool(150, "t2", "wait")
            .stall_until(100_000),
    ];
    let mut h = harness(replies, &[("wait", true, 1000)], ToolExec::Streaming);
    let s = h.agent.run_prompt("hello", &abort_at(300)).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::AbortedStreaming);
    let assistant = &h.agent.history[1];
    let ids: Vec<&str> = assistant.tool_uses().map(|(id, _, _)| id).collect();
    assert_eq!(ids, vec!["t1"], "the half-received t2 is dropped");
    assert_eq!(
        result_texts(&h, 2),
        vec![(
            "t1".into(),
            "interrupted by user\n[output before it was stopped]\nstopped".into(),
            true
        )]
    );
    assert_eq!(*h.runs.lock().expect("runs"), vec!["a"], "t1 had started");
    next_prompt_works(&mut h).await;
}

#[tokio::test(start_paused = true)]
async fn abort_with_tools_queued_never_starts_them() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(0, 10, "u1", "change", json!({"tag": "u1"}))
            .tool(10, 20, "u2", "change", json!({"tag": "u2"}))
            .end(30, "tool_use"),
    ];
    let mut h = harness(replies, &[("change", false, 1000)], ToolExec::Streaming);
    let s = h.agent.run_prompt("hello", &abort_at(500)).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::AbortedTools);
    assert_eq!(
        *h.runs.lock().expect("runs"),
        vec!["u1"],
        "u2 never started"
    );
    let results = result_texts(&h, 2);
    assert_eq!(results.len(), 2);
    assert!(
        results
            .iter()
            .all(|(_, c, e)| *e && c.starts_with("interrupted by user")),
        "{results:?}"
    );
    assert_eq!(
        results[1].1, "interrupted by user",
        "u2 never ran, so it has no output"
    );
    next_prompt_works(&mut h).await;
}

#[tokio::test(start_paused = true)]
async fn abort_with_tools_running_keeps_finished_results() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(0, 10, "fast", "fast", json!({"tag": "fast"}))
            .tool(10, 20, "slow", "slow", json!({"tag": "slow"}))
            .end(30, "tool_use"),
    ];
    let mut h = harness(
        replies,
        &[("fast", true, 100), ("slow", true, 5000)],
        ToolExec::Streaming,
    );
    let s = h.agent.run_prompt("hello", &abort_at(1000)).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::AbortedTools);
    assert_eq!(
        result_texts(&h, 2),
        vec![
            ("fast".into(), "fast done".into(), false),
            (
                "slow".into(),
                "interrupted by user\n[output before it was stopped]\nstopped".into(),
                true
            ),
        ]
    );
    // The turn ended when the abort came, not when the slow tool would have finished.
    let done_at = h
        .events()
        .iter()
        .find_map(|(t, e)| matches!(e, tooloop::protocol::AgentEvent::Done(_)).then_some(*t))
        .expect("done");
    assert_eq!(done_at, 1000);
    next_prompt_works(&mut h).await;
}

#[tokio::test(start_paused = true)]
async fn abort_during_a_retry_wait_ends_it_at_once() {
    let replies = vec![Reply::Fail(
        Duration::ZERO,
        http(529, Some(Duration::from_secs(30))),
    )];
    let mut h = harness(replies, &[], ToolExec::Streaming);
    let s = h.agent.run_prompt("hello", &abort_at(1000)).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::AbortedStreaming);
    let retries: Vec<u64> = h
        .events()
        .iter()
        .filter_map(|(_, e)| match e {
            tooloop::protocol::AgentEvent::Retry { delay_ms, .. } => Some(*delay_ms),
            _ => None,
        })
        .collect();
    assert_eq!(retries, vec![30_000]);
    assert_eq!(h.provider.requests().len(), 1, "no second attempt");
    let done_at = h
        .events()
        .iter()
        .find_map(|(t, e)| matches!(e, tooloop::protocol::AgentEvent::Done(_)).then_some(*t))
        .expect("done");
    assert_eq!(done_at, 1000);
    next_prompt_works(&mut h).await;
}

/// After an abort the next prompt joins the marker's user message; if that prompt's request
/// fails, the prompt after it replaces only the failed words: the marker (and the answered
/// tool results before it) stay.
#[tokio::test(start_paused = true)]
async fn a_failed_prompt_after_an_abort_leaves_the_marker_in_place() {
    let replies = vec![
        ReplyBuilder::new()
            .text(10, "Looking.")
            .tool(20, 100, "t1", "wait", json!({"tag": "a"}))
            .end(120, "tool_use"),
    ];
    let mut h = harness(replies, &[("wait", true, 1000)], ToolExec::Streaming);
    let s = h.agent.run_prompt("hello", &abort_at(300)).await;
    assert!(s.reason.is_aborted(), "{:?}", s.reason);
    let before = h.agent.history.last().expect("marker").content.clone();
    h.provider.push(Reply::Fail(
        Duration::ZERO,
        ProviderError::Http {
            status: 404,
            error_type: Some("not_found_error".into()),
            message: "no such model".into(),
            retry_after: None,
            should_retry: None,
            body: String::new(),
        },
    ));
    let s = h
        .agent
        .run_prompt("failed words", &CancellationToken::new())
        .await;
    assert_eq!(s.reason, Terminal::ModelError);
    h.provider
        .push(ReplyBuilder::new().text(10, "ok").end(20, "end_turn"));
    let s = h
        .agent
        .run_prompt("next words", &CancellationToken::new())
        .await;
    assert_eq!(s.reason, Terminal::Completed, "{:?}", s.error);
    h.settle().await;
    let asked = &h.agent.history[h.agent.history.len() - 2].content;
    assert_eq!(
        &asked[..before.len()],
        &before[..],
        "the marker and results stay"
    );
    assert_eq!(asked[before.len()..], [ContentBlock::text("next words")]);
    h.assert_valid();
}
