//! Scheduling overhead of the StreamingToolExecutor with instant tools, in-process.
//!
//! `cargo bench --bench executor` — prints the median time of a turn with N instant tools
//! against the same turn with none, and the overhead per tool. Every turn is checked after
//! its clock stops: it completed, and each of the N tools answered without `is_error` (a
//! regression that made tools fail early would otherwise read as lower overhead).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use tooloop::agent::exec_env::ExecEnv;
use tooloop::agent::{Agent, LoopSettings};
use tooloop::message::{ContentBlock, validate_history};
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{Terminal, TurnSummary};
use tooloop::provider::scripted::{Reply, ReplyBuilder, ScriptedProvider};
use tooloop::tools::{Effect, Tool, ToolContext, ToolOutput, ToolRegistry, Workspace};

struct Instant0;

#[async_trait]
impl Tool for Instant0 {
    fn name(&self) -> &'static str {
        "noop"
    }
    fn description(&self) -> &'static str {
        "returns at once"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    async fn run(&self, _input: Value, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::ok("ok")
    }
}

fn replies(n: usize) -> Vec<Reply> {
    let mut first = ReplyBuilder::new();
    for i in 0..n {
        first = first.tool(0, 0, &format!("t{i}"), "noop", json!({}));
    }
    if n == 0 {
        return vec![ReplyBuilder::new().text(0, "done").end(0, "end_turn")];
    }
    vec![
        first.end(0, "tool_use"),
        ReplyBuilder::new().text(0, "done").end(0, "end_turn"),
    ]
}

async fn one_turn(n: usize, workspace: &std::path::Path) -> Duration {
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Instant0));
    let ws = Workspace::new(workspace, false).expect("workspace");
    let exec = ExecEnv::with_defaults(registry, ws, EventSink::null());
    let provider = ScriptedProvider::new(replies(n));
    let mut agent = Agent::new(Arc::new(provider), exec, LoopSettings::default());
    let start = Instant::now();
    let summary = agent.run_prompt("go", &CancellationToken::new()).await;
    let elapsed = start.elapsed();
    check_turn(n, &summary, &agent);
    elapsed
}

/// The turn did what it is timed for: completed, with `n` tool results, none an error, in a
/// valid history.
fn check_turn(n: usize, summary: &TurnSummary, agent: &Agent) {
    assert_eq!(summary.reason, Terminal::Completed, "{:?}", summary.error);
    assert_eq!(summary.turns, if n == 0 { 1 } else { 2 });
    assert_eq!(summary.text, "done");
    validate_history(agent.history.shared()).expect("a valid history");
    let results: Vec<_> = agent
        .history
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => Some((tool_use_id, content, *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), n, "one result per tool");
    for (id, content, is_error) in results {
        assert!(!is_error && content == "ok", "tool {id} failed: {content}");
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    // `BENCH_SHORT=1` (CI's mode): a few turns of each kind, their assertions all the same.
    let short = std::env::var_os("BENCH_SHORT").is_some();
    let iterations = if short { 5 } else { 300 };
    rt.block_on(async {
        // Warm up allocators and the runtime.
        for _ in 0..if short { 1 } else { 50 } {
            one_turn(100, dir.path()).await;
        }
        let mut base = Vec::new();
        for _ in 0..iterations {
            base.push(one_turn(0, dir.path()).await);
        }
        let base = median(base);
        println!("turn without tools: median {:?}", base);
        for n in [1usize, 10, 100] {
            let mut times = Vec::new();
            for _ in 0..iterations {
                times.push(one_turn(n, dir.path()).await);
            }
            let m = median(times);
            let per_tool = m.saturating_sub(base).as_secs_f64() * 1e6 / n as f64;
            println!(
                "{n:>3} instant tools: median {m:?} per turn, overhead {per_tool:.1} µs per tool (goal < 50 µs at 100)"
            );
        }
    });
}
