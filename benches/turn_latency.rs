//! Turn latency against the physical limit, over real HTTP on 127.0.0.1, engine in-process.
//!
//! `cargo bench --bench turn_latency` — a mock Anthropic server streams a reply whose
//! tool_use blocks complete at scripted times; each tool is a `web_fetch` of a local URL that
//! answers after a known delay. Measured: request start → the moment the mock receives the
//! follow-up request, as a ratio to the limit max(stream end, max(block_i + tool_i)), where
//! stream end and block_i are when the client actually received them (the mock's timers
//! drift a little; that drift is the server's, not ours, so it is in the limit).
//!
//! First, the cold first call in fresh processes of the real binary (`turn_latency/cold.rs`).
//! `BENCH_SHORT=1` runs every part once (3 tools only), assertions included: CI's mode.
//! `TURN_LATENCY_COLD_ONLY=1` runs the cold part alone; `TURN_LATENCY_BIN=path` runs it on
//! another build of the binary.

#[path = "../tests/support/mod.rs"]
mod support;

#[path = "turn_latency/slow_server.rs"]
mod slow_server;

#[path = "turn_latency/cold.rs"]
mod cold;

#[path = "common/proc.rs"]
mod proc;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use support::{MockServer, Reply, ReplyBuilder, SseEvent, text_reply};
use tooloop::agent::exec_env::ExecEnv;
use tooloop::agent::{Agent, LoopSettings};
use tooloop::cli::ToolExec;
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{AgentEvent, Terminal};
use tooloop::provider::anthropic::AnthropicProvider;
use tooloop::tools::{ToolRegistry, Workspace};
use tooloop::trace::TraceRecorder;

/// One scripted reply: when each tool_use block completes and how long its tool takes.
struct Scenario {
    stream_ms: u64,
    /// (block completes at ms, tool takes ms), in block order.
    blocks: Vec<(u64, u64)>,
}

impl Scenario {
    /// `n` blocks spread evenly over a 1 s stream, tools of 100–300 ms.
    fn spread(n: usize) -> Self {
        let stream_ms = 1000;
        let blocks = (0..n)
            .map(|i| {
                let at = stream_ms * (i as u64 + 1) / (n as u64 + 1);
                let took = 100 + (i as u64 * 37 % 5) * 50;
                (at, took)
            })
            .collect();
        Scenario { stream_ms, blocks }
    }

    fn scripted_limit(&self) -> u64 {
        self.blocks
            .iter()
            .map(|(at, took)| at + took)
            .max()
            .unwrap_or(0)
            .max(self.stream_ms)
    }

    /// Each segment before a tool block carries a short text block; events are grouped in
    /// four timed bursts per segment (fewer timers, less drift), the last burst being the
    /// tool block's fragments and its content_block_stop at the scripted time.
    fn reply(&self, fetch_base: &str) -> Reply {
        let mut b = ReplyBuilder::new();
        for (i, (_, took)) in self.blocks.iter().enumerate() {
            b = b.text(&format!(
                "Now I will look at the page number {i} to see it. "
            ));
            b = b.tool_use(
                &format!("toolu_{i:02}"),
                "web_fetch",
                json!({"url": format!("{fetch_base}/slow?ms={took}&i={i}")}),
            );
        }
        b = b.text("Waiting for the results.");
        let events = b.events();
        Reply::sse(self.schedule(events))
    }

    /// Gives every event the delay that puts it at its scripted time.
    fn schedule(&self, events: Vec<SseEvent>) -> Vec<SseEvent> {
        // Walk the events: each segment is text (start, deltas, stop) + tool (start,
        // fragments, stop). Times are assigned per event, then turned into relative delays.
        let mut at = vec![0u64; events.len()];
        let mut seg_start = 0u64;
        let mut i = 2; // message_start and ping go out at once
        for (seg, (complete, _)) in self.blocks.iter().enumerate() {
            let tool_stop = find_stop(&events, i, 2 * seg + 1);
            let span = complete - seg_start;
            let count = tool_stop + 1 - i;
            for (k, slot) in at[i..=tool_stop].iter_mut().enumerate() {
                // Four bursts: k in quarter q goes out at the end of that quarter.
                let q = (k * 4 / count) as u64 + 1;
                *slot = seg_start + span * q / 4;
            }
            i = tool_stop + 1;
            seg_start = *complete;
        }
        for slot in at.iter_mut().skip(i) {
            *slot = self.stream_ms;
        }
        let mut prev = 0;
        events
            .into_iter()
            .zip(at)
            .map(|(e, t)| {
                let d = t.saturating_sub(prev);
                prev = prev.max(t);
                e.after(Duration::from_millis(d))
            })
            .collect()
    }
}

/// The index of the content_block_stop of block `index`, searching from `from`.
fn find_stop(events: &[SseEvent], from: usize, index: usize) -> usize {
    let needle = format!("\"type\":\"content_block_stop\",\"index\":{index}}}");
    let alt = format!("\"index\":{index},\"type\":\"content_block_stop\"");
    (from..events.len())
        .find(|&k| {
            let s = String::from_utf8_lossy(&events[k].bytes);
            s.starts_with("event: content_block_stop") && (s.contains(&needle) || s.contains(&alt))
        })
        .unwrap_or(events.len() - 1)
}

/// What one turn looked like, in ms since request start.
struct Sample {
    follow_up: f64,
    limit: f64,
    stream_end: f64,
    /// ToolUse → ToolStart of each tool, from the trace's queue slices (µs).
    start_lags_us: Vec<u64>,
}

struct Env {
    mock: Arc<MockServer>,
    fetch_base: String,
    workspace: tempfile::TempDir,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

async fn run_once(env: &Env, sc: &Scenario, strategy: ToolExec) -> Sample {
    env.mock.enqueue(sc.reply(&env.fetch_base));
    env.mock.enqueue(text_reply("All done."));
    let before = env.mock.requests().len();
    let (sink, mut rx) = EventSink::channel();
    let t0 = Instant::now();
    let mock = env.mock.clone();
    let follow = tokio::spawn(async move {
        mock.wait_for_requests_async(before + 2).await;
        t0.elapsed()
    });
    let observer = tokio::spawn(async move {
        let mut trace = TraceRecorder::new(t0);
        let mut tool_use = HashMap::new();
        let mut stream_end = None;
        while let Some(ev) = rx.recv().await {
            let now = t0.elapsed();
            trace.observe(&ev);
            match &ev {
                AgentEvent::ToolUse { id, .. } => {
                    tool_use.insert(id.clone(), now);
                }
                AgentEvent::StreamEnd { turn: 1, .. } => stream_end = Some(now),
                AgentEvent::Done(_) => break,
                _ => {}
            }
        }
        (trace, tool_use, stream_end)
    });

    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(tooloop::tools::web_fetch::WebFetch));
    let ws = Workspace::new(env.workspace.path(), false).expect("workspace");
    let mut exec = ExecEnv::with_defaults(registry, ws, sink);
    exec.strategy = strategy;
    let provider =
        AnthropicProvider::new(&env.mock.anthropic_base(), support::stream::TEST_KEY.into())
            .expect("provider");
    let mut agent = Agent::new(Arc::new(provider), exec, LoopSettings::default());
    let summary = agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(summary.reason, Terminal::Completed, "{:?}", summary.error);
    assert_eq!(summary.turns, 2);
    for r in agent.history[2].content.iter() {
        let v = serde_json::to_value(r).expect("json");
        assert_ne!(v["is_error"], true, "a tool failed: {v}");
    }
    drop(agent);

    let follow_up = follow.await.expect("follow-up");
    let (trace, tool_use, stream_end) = observer.await.expect("observer");
    let stream_end = stream_end.expect("stream end");
    let mut limit = stream_end;
    for (i, (_, took)) in sc.blocks.iter().enumerate() {
        let done = tool_use[&format!("toolu_{i:02}")];
        limit = limit.max(done + Duration::from_millis(*took));
    }
    let start_lags_us = trace.to_json()["traceEvents"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["cat"] == "queue")
        .filter_map(|e| e["dur"].as_u64())
        .collect();
    Sample {
        follow_up: ms(follow_up),
        limit: ms(limit),
        stream_end: ms(stream_end),
        start_lags_us,
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let short = std::env::var_os("BENCH_SHORT").is_some();
    let figures = cold::run(if short { 5 } else { 11 });
    // What only a first call costs (cold − warm, the same process) is held to the goal in
    // every build: a validator compiled on the first call (16–20 ms in release, 230 ms in a
    // debug build) or anything like it fails the bench, while a slow machine or a debug
    // build (CI's short mode), which slows both calls alike, does not. Where the warm
    // interval itself is long (a debug build on a loaded machine: 16 ms), so is its noise:
    // the bound is then half of it.
    let bound = cold::GOAL_MS.max(figures.warm / 2.0);
    assert!(
        figures.first_only <= bound,
        "a first call costs {:.2} ms more than the next (cold {:.2} ms, warm {:.2} ms; at most {bound:.2} ms)",
        figures.first_only,
        figures.cold,
        figures.warm,
    );
    // The goal itself is a release build's: twice it, as a loaded machine may miss it a little.
    if !cfg!(debug_assertions) {
        assert!(
            figures.cold <= 2.0 * cold::GOAL_MS,
            "the cold fixed cost between two requests is {:.2} ms (goal {} ms)",
            figures.cold,
            cold::GOAL_MS
        );
    }
    // `TURN_LATENCY_COLD_ONLY=1`: the cold part alone (a before/after of whole processes).
    if std::env::var_os("TURN_LATENCY_COLD_ONLY").is_some() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let fetch = slow_server::SlowServer::start();
    let env = Env {
        mock: Arc::new(MockServer::start()),
        fetch_base: fetch.url(),
        workspace: tempfile::tempdir().expect("tempdir"),
    };
    rt.block_on(async {
        // Warm-up: connection setup paths, allocator, lazy statics.
        run_once(&env, &Scenario::spread(3), ToolExec::Streaming).await;
        println!(
            "{:<9} {:>5} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8} {:>14}",
            "strategy",
            "tools",
            "limit_ms",
            "turn_ms",
            "excess_ms",
            "ratio",
            "ratio_max",
            "in_goal",
            "start_lag_us"
        );
        let sizes: &[usize] = if short { &[3] } else { &[3, 8, 16] };
        for &n in sizes {
            let sc = Scenario::spread(n);
            for (strategy, reps) in [
                (ToolExec::Streaming, 7),
                (ToolExec::Parallel, 3),
                (ToolExec::Serial, 3),
            ] {
                let reps = if short { 1 } else { reps };
                let mut samples = Vec::new();
                for _ in 0..reps {
                    samples.push(run_once(&env, &sc, strategy).await);
                }
                report(n, strategy, &sc, &samples);
            }
        }
    });
}

fn report(n: usize, strategy: ToolExec, sc: &Scenario, samples: &[Sample]) {
    let mut ratios: Vec<f64> = samples.iter().map(|s| s.follow_up / s.limit).collect();
    let mut excess: Vec<f64> = samples.iter().map(|s| s.follow_up - s.limit).collect();
    let mut limits: Vec<f64> = samples.iter().map(|s| s.limit).collect();
    let mut turns: Vec<f64> = samples.iter().map(|s| s.follow_up).collect();
    let mut drift: Vec<f64> = samples
        .iter()
        .map(|s| s.stream_end - sc.stream_ms as f64)
        .collect();
    let ratio_max = ratios.iter().copied().fold(0.0, f64::max);
    let within = samples
        .iter()
        .filter(|s| s.follow_up <= 1.02 * s.limit + 5.0)
        .count();
    let mut lags: Vec<u64> = samples
        .iter()
        .flat_map(|s| s.start_lags_us.clone())
        .collect();
    lags.sort();
    let lag = if strategy == ToolExec::Streaming && !lags.is_empty() {
        format!("p50 {} max {}", lags[lags.len() / 2], lags[lags.len() - 1])
    } else {
        "-".into()
    };
    let name = format!("{strategy:?}").to_lowercase();
    println!(
        "{:<9} {:>5} {:>9.1} {:>9.1} {:>9.2} {:>8.4} {:>8.4} {:>8} {:>14}",
        name,
        n,
        median(&mut limits),
        median(&mut turns),
        median(&mut excess),
        median(&mut ratios),
        ratio_max,
        if strategy == ToolExec::Streaming {
            format!("{within}/{}", samples.len())
        } else {
            "-".into()
        },
        lag
    );
    if strategy == ToolExec::Streaming {
        println!(
            "          (scripted limit {} ms; mock stream end drift median {:.1} ms)",
            sc.scripted_limit(),
            median(&mut drift)
        );
    }
}
