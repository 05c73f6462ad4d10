//! The StreamingToolExecutor's schedule under tokio's paused clock: exact start times.

use crate::support;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use support::harness::harness;
use tooloop::cli::ToolExec;
use tooloop::message::{ContentBlock, Role};
use tooloop::protocol::Terminal;
use tooloop::provider::scripted::{Reply, ReplyBuilder};

/// tool_use blocks complete at 200/500/800 ms, the stream ends at 1200 ms.
fn three_tools(name: &str) -> Vec<Reply> {
    vec![
        ReplyBuilder::new()
            .tool(100, 200, "t1", name, json!({"tag": "a"}))
            .tool(300, 500, "t2", name, json!({"tag": "b"}))
            .tool(600, 800, "t3", name, json!({"tag": "c"}))
            .end(1200, "tool_use"),
        ReplyBuilder::new().text(10, "all done").end(20, "end_turn"),
    ]
}

async fn run_three(strategy: ToolExec) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let mut h = harness(three_tools("wait"), &[("wait", true, 1000)], strategy);
    let summary = h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    assert_eq!(summary.reason, Terminal::Completed);
    h.assert_valid();
    let starts = h.starts().into_iter().map(|(_, t)| t).collect();
    let ends = h.ends().into_iter().map(|(_, t)| t).collect();
    (starts, ends, h.request_times())
}

#[tokio::test(start_paused = true)]
async fn streaming_starts_each_tool_when_its_block_completes() {
    let (starts, ends, requests) = run_three(ToolExec::Streaming).await;
    assert_eq!(starts, vec![200, 500, 800]);
    assert_eq!(ends, vec![1200, 1500, 1800]);
    assert_eq!(
        requests,
        vec![0, 1800],
        "follow-up request when all results are in"
    );
}

#[tokio::test(start_paused = true)]
async fn parallel_starts_all_safe_tools_when_the_stream_ends() {
    let (starts, ends, requests) = run_three(ToolExec::Parallel).await;
    assert_eq!(starts, vec![1200, 1200, 1200]);
    assert_eq!(ends, vec![2200, 2200, 2200]);
    assert_eq!(requests, vec![0, 2200]);
}

#[tokio::test(start_paused = true)]
async fn serial_runs_one_by_one_after_the_stream() {
    let (starts, ends, requests) = run_three(ToolExec::Serial).await;
    assert_eq!(starts, vec![1200, 2200, 3200]);
    assert_eq!(ends, vec![2200, 3200, 4200]);
    assert_eq!(requests, vec![0, 4200]);
}

#[tokio::test(start_paused = true)]
async fn an_unsafe_tool_waits_for_all_before_it_and_blocks_all_after_it() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(100, 200, "s1", "read", json!({"tag": "s1"}))
            .tool(300, 500, "u1", "change", json!({"tag": "u1"}))
            .tool(600, 800, "s2", "read", json!({"tag": "s2"}))
            .end(1200, "tool_use"),
        ReplyBuilder::new().text(10, "ok").end(20, "end_turn"),
    ];
    let mut h = harness(
        replies,
        &[("read", true, 1000), ("change", false, 1000)],
        ToolExec::Streaming,
    );
    h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    h.assert_valid();
    assert_eq!(
        h.starts(),
        vec![("s1".into(), 200), ("u1".into(), 1200), ("s2".into(), 2200)]
    );
    assert_eq!(
        h.ends(),
        vec![
            ("s1".into(), 1200),
            ("u1".into(), 2200),
            ("s2".into(), 3200)
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn results_come_back_in_tool_use_order_not_completion_order() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(0, 10, "slow", "slow", json!({"tag": "slow"}))
            .tool(10, 20, "fast", "fast", json!({"tag": "fast"}))
            .end(30, "tool_use"),
        ReplyBuilder::new().text(10, "ok").end(20, "end_turn"),
    ];
    let mut h = harness(
        replies,
        &[("slow", true, 1000), ("fast", true, 50)],
        ToolExec::Streaming,
    );
    h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    h.assert_valid();
    // Completion events go out as they happen…
    let ends: Vec<String> = h.ends().into_iter().map(|(id, _)| id).collect();
    assert_eq!(ends, vec!["fast", "slow"]);
    // …but the results message keeps the tool_use order.
    let results = &h.agent.history[2];
    assert_eq!(results.role, Role::User);
    let ids: Vec<&str> = results
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, vec!["slow", "fast"]);
}

#[tokio::test(start_paused = true)]
async fn unknown_tools_and_schema_violations_are_answered_at_once() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(0, 10, "x1", "no_such_tool", json!({}))
            .tool(10, 20, "x2", "wait", json!({"tag": 5}))
            .end(30, "tool_use"),
        ReplyBuilder::new().text(10, "ok").end(20, "end_turn"),
    ];
    let mut h = harness(replies, &[("wait", true, 1000)], ToolExec::Streaming);
    h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    h.assert_valid();
    assert!(h.starts().is_empty(), "nothing ran");
    assert_eq!(h.ends(), vec![("x1".into(), 10), ("x2".into(), 20)]);
    let results = &h.agent.history[2].content;
    match (&results[0], &results[1]) {
        (
            ContentBlock::ToolResult {
                content: a,
                is_error: true,
                ..
            },
            ContentBlock::ToolResult {
                content: b,
                is_error: true,
                ..
            },
        ) => {
            assert!(a.contains("no such tool: no_such_tool"), "{a}");
            assert!(
                b.contains("invalid input for wait") && b.contains("/tag"),
                "{b}"
            );
        }
        other => panic!("expected two error results, got {other:?}"),
    }
    assert!(h.runs.lock().expect("runs").is_empty());
}
