//! Three subagents side by side under tokio's paused clock (issue 25's scenario): the
//! parent's reply completes three `task` blocks at 200/500/800 ms and ends at 1200 ms; each
//! child makes one 1 s read-only call and answers. Exact times, not sleeps.

use crate::support;

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use support::harness::{Setup, first_prompt};
use tooloop::message::{ContentBlock, Role};
use tooloop::protocol::Terminal;
use tooloop::provider::scripted::{Reply, ReplyBuilder};

/// A child's tool output: it must never reach the parent.
const CHILD_OUTPUT: &str = "PRIVATE-TOOL-OUTPUT";

fn parent_replies() -> Vec<Reply> {
    let task = |n: u32| {
        json!({"description": format!("look {n}"), "prompt": format!("child-{n}: look around"),
               "agent": "explore"})
    };
    vec![
        ReplyBuilder::new()
            .tool(100, 200, "t1", "task", task(1))
            .tool(300, 500, "t2", "task", task(2))
            .tool(600, 800, "t3", "task", task(3))
            .end(1200, "tool_use"),
        ReplyBuilder::new()
            .text(10, "all three reported")
            .end(20, "end_turn"),
    ]
}

/// Each child: a `wait` call complete at 50 ms (stream ends at 100 ms), then its answer
/// (complete at 60 ms).
fn children() -> tooloop::provider::scripted::Responder {
    Arc::new(|_system: &str, messages: &[tooloop::message::Message]| {
        let prompt = first_prompt(messages);
        let n = prompt.strip_prefix("child-")?.chars().next()?;
        Some(match messages.len() {
            1 => ReplyBuilder::new()
                .tool(10, 50, "c1", "wait", json!({"tag": CHILD_OUTPUT}))
                .end(100, "tool_use"),
            _ => ReplyBuilder::new()
                .text(50, &format!("report {n}: src/lib.rs:{n}"))
                .end(60, "end_turn"),
        })
    })
}

#[tokio::test(start_paused = true)]
async fn three_children_run_side_by_side_from_the_moment_their_blocks_complete() {
    let mut tree = Setup::new(parent_replies(), children()).build();
    let summary = tree
        .agent
        .run_prompt("explore three things", &CancellationToken::new())
        .await;
    tree.settle().await;
    assert_eq!(summary.reason, Terminal::Completed, "{summary:?}");
    tree.assert_valid();

    // The children's first requests start when their blocks complete, before the parent's
    // stream ends (1200 ms); each child's second request follows its 1 s tool.
    let mut times = tree.request_times();
    times.sort();
    assert_eq!(
        times,
        vec![
            ("".into(), 0),
            ("".into(), 1910),
            ("a1".into(), 200),
            ("a1".into(), 1250),
            ("a2".into(), 500),
            ("a2".into(), 1550),
            ("a3".into(), 800),
            ("a3".into(), 1850),
        ]
    );
    // The parent's follow-up goes out when the last child answers: 800 ms + 50 ms to the
    // child's tool_use + 1 s tool + 60 ms answer = 1910 ms, the physical limit.
    let reports = tree.reports();
    assert_eq!(reports.len(), 3);
    let durations: Vec<u64> = reports.iter().map(|r| r.duration_ms).collect();
    assert_eq!(durations, vec![1110, 1110, 1110]);

    // The parent's second request: three tool_results in tool_use order, each the child's
    // final text and its figures line.
    let requests = tree.provider.requests();
    let parent: Vec<_> = requests
        .iter()
        .filter(|m| !first_prompt(m).starts_with("child-"))
        .collect();
    assert_eq!(parent.len(), 2);
    let results = parent[1].last().expect("results");
    assert_eq!(results.role, Role::User);
    let got: Vec<(String, String, bool)> = results
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => (tool_use_id.clone(), content.clone(), *is_error),
            other => panic!("not a tool_result: {other:?}"),
        })
        .collect();
    let ids: Vec<&str> = got.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, ["t1", "t2", "t3"]);
    for (n, (_, content, is_error)) in got.iter().enumerate() {
        let n = n + 1;
        assert!(!is_error);
        let mut lines = content.lines();
        assert_eq!(
            lines.next(),
            Some(format!("report {n}: src/lib.rs:{n}").as_str())
        );
        let figures = lines.next().expect("figures line");
        assert!(
            figures.starts_with("(agent explore · 2 turns · 1 tools · ")
                && figures.ends_with(" tokens · 1.1s)"),
            "{figures}"
        );
        assert_eq!(lines.next(), None);
    }

    // The parent's context grew by the children's final texts only: their tool outputs
    // stayed in their own histories.
    let bodies = tree.provider.bodies();
    let parent_bodies: Vec<String> = bodies
        .iter()
        .map(|b| String::from_utf8_lossy(b).to_string())
        .filter(|b| b.contains("explore three things"))
        .collect();
    assert_eq!(parent_bodies.len(), 2);
    assert!(!parent_bodies[1].contains(CHILD_OUTPUT));
    for (id, history) in tree.child_histories() {
        let text = serde_json::to_string(&history).expect("json");
        assert!(text.contains(CHILD_OUTPUT), "{id} kept its tool output");
    }
    let growth = parent_bodies[1].len() - parent_bodies[0].len();
    let assistant = serde_json::to_string(&*tree.agent.history[1])
        .expect("json")
        .len();
    let results_json = serde_json::to_string(&*tree.agent.history[2])
        .expect("json")
        .len();
    assert_eq!(
        growth,
        assistant + results_json + 2,
        "two messages and their separators, nothing else"
    );
    assert!(
        results_json < 1000,
        "three short reports: {results_json} bytes"
    );
}

#[tokio::test(start_paused = true)]
async fn usage_of_the_children_adds_into_the_parent() {
    let mut tree = Setup::new(parent_replies(), children()).build();
    let summary = tree
        .agent
        .run_prompt("explore three things", &CancellationToken::new())
        .await;
    tree.settle().await;
    // Each request of the scripted provider reports 10 input and 5 output tokens (the
    // final count): 2 parent requests and 6 child requests.
    assert_eq!(summary.usage.input_tokens, 8 * 10);
    assert_eq!(summary.usage.output_tokens, 8 * 5);
    for r in tree.reports() {
        assert_eq!(r.usage.input_tokens, 20);
        assert_eq!(r.turns, 2);
        assert_eq!(r.tools, 1);
    }
}

#[tokio::test(start_paused = true)]
async fn at_most_max_parallel_children_run_and_the_rest_queue() {
    let mut setup = Setup::new(parent_replies(), children());
    setup.limits.max_parallel = 2;
    let mut tree = setup.build();
    let summary = tree
        .agent
        .run_prompt("explore three things", &CancellationToken::new())
        .await;
    tree.settle().await;
    assert_eq!(summary.reason, Terminal::Completed);
    tree.assert_valid();
    let mut times = tree.request_times();
    times.sort();
    // a1 (200 ms) and a2 (500 ms) run; the third waits for a1's slot (free at 1310 ms).
    let third: Vec<u64> = times
        .iter()
        .filter(|(id, _)| id == "a3")
        .map(|(_, t)| *t)
        .collect();
    assert_eq!(third, vec![1310, 2360]);
}
