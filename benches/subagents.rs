//! Three subagents side by side against the physical limit (issue 25), over real HTTP on
//! 127.0.0.1, the engine in-process.
//!
//! `cargo bench --bench subagents` — the mock streams the parent's reply with three `task`
//! blocks completing at 200/500/800 ms (the stream ends at 1200 ms). Each child (the built-in
//! `explore`) gets one `web_fetch` of a local page that answers after 1 s, then answers. The
//! limit: max(stream end, max(block_i + 1 s)), with block_i and the stream end taken when the
//! client received them (the mock's timers drift; that is the server's delay). Measured: the
//! parent's request start → the mock has the parent's follow-up (the three reports).

#[path = "../tests/support/mod.rs"]
mod support;

#[path = "turn_latency/slow_server.rs"]
mod slow_server;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use support::{MockServer, Recorded, Reply, ReplyBuilder};
use tooloop::agent::context::{ContextSettings, ContextState};
use tooloop::agent::exec_env::ExecEnv;
use tooloop::agent::subagent::{AgentLimits, Subagents, definitions};
use tooloop::agent::{Agent, LoopSettings};
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{AgentEvent, Terminal};
use tooloop::provider::anthropic::AnthropicProvider;
use tooloop::tools::{ToolRegistry, Workspace};

const BLOCKS_MS: [u64; 3] = [200, 500, 800];
const STREAM_MS: u64 = 1200;
const TOOL_MS: u64 = 1000;

fn prompt_of(req: &Recorded) -> String {
    req.body["messages"][0]["content"]
        .as_array()
        .map(|b| b.iter().filter_map(|x| x["text"].as_str()).collect())
        .or_else(|| {
            req.body["messages"][0]["content"]
                .as_str()
                .map(String::from)
        })
        .unwrap_or_default()
}

fn parent_reply() -> Reply {
    let mut b = ReplyBuilder::new();
    for i in 1..=3 {
        b = b.tool_use(
            &format!("toolu_{i}"),
            "task",
            json!({"description": format!("look {i}"), "prompt": format!("child-{i}: look"),
                   "agent": "explore"}),
        );
    }
    let mut events = b.events();
    let (mut prev, mut block) = (0, 0);
    for e in events.iter_mut() {
        let s = String::from_utf8_lossy(&e.bytes).to_string();
        let at = if s.starts_with("event: content_block_start") {
            block += 1;
            Some(BLOCKS_MS[block - 1])
        } else if s.starts_with("event: message_delta") {
            Some(STREAM_MS)
        } else {
            None
        };
        if let Some(at) = at {
            *e = e.clone().after(Duration::from_millis(at - prev));
            prev = at;
        }
    }
    Reply::sse(events)
}

struct Sample {
    follow_up: f64,
    limit: f64,
}

/// A child's fetch result, as its second request carries it: Ok when it is the slow page.
fn child_fetch(req: &Recorded) -> Result<(), String> {
    let result = &req.body["messages"][2]["content"][0];
    let page = format!("slept {TOOL_MS} ms");
    if result["type"] == "tool_result"
        && result["is_error"] != true
        && result.to_string().contains(&page)
    {
        Ok(())
    } else {
        Err(result.to_string())
    }
}

async fn run_once(mock: &Arc<MockServer>, fetch: &str, dir: &std::path::Path) -> Sample {
    let fetch = fetch.to_string();
    // Every child's web_fetch must have fetched the page: a failed one ends sooner.
    let fetched = Arc::new(AtomicUsize::new(0));
    let failed: Arc<Mutex<Vec<String>>> = Arc::default();
    let (fetched2, failed2) = (fetched.clone(), failed.clone());
    mock.respond_with(move |req| {
        let turn = req.body["messages"].as_array().map_or(0, Vec::len);
        if prompt_of(req).starts_with("child-") {
            if turn == 3 {
                match child_fetch(req) {
                    Ok(()) => {
                        fetched2.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(e) => failed2.lock().expect("failed").push(e),
                }
            }
            return match turn {
                1 => ReplyBuilder::new()
                    .tool_use(
                        "toolu_c",
                        "web_fetch",
                        json!({"url": format!("{fetch}/slow?ms={TOOL_MS}")}),
                    )
                    .build(),
                _ => ReplyBuilder::new().text("report: src/lib.rs").build(),
            };
        }
        match turn {
            1 => parent_reply(),
            _ => ReplyBuilder::new().text("done").build(),
        }
    });
    let before = mock.requests().len();
    let (sink, mut rx) = EventSink::channel();
    let t0 = Instant::now();
    let observer = tokio::spawn(async move {
        let mut blocks = HashMap::new();
        let mut stream_end = None;
        while let Some(ev) = rx.recv().await {
            let now = t0.elapsed();
            match &ev {
                AgentEvent::ToolUse { id, .. } => {
                    blocks.insert(id.clone(), now);
                }
                AgentEvent::StreamEnd { turn: 1, .. } => stream_end = stream_end.or(Some(now)),
                AgentEvent::Done(_) => break,
                _ => {}
            }
        }
        (blocks, stream_end)
    });
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(tooloop::tools::web_fetch::WebFetch));
    let ws = Workspace::new(dir, false).expect("workspace");
    let mut exec = ExecEnv::with_defaults(registry, ws, sink.clone());
    let provider: Arc<dyn tooloop::provider::Provider> = Arc::new(
        AnthropicProvider::new(&mock.anthropic_base(), support::stream::TEST_KEY.into())
            .expect("provider"),
    );
    let settings = LoopSettings::default();
    let hub = Subagents::new(
        provider.clone(),
        settings.clone(),
        ContextSettings::default(),
        exec.clone(),
        definitions::builtin(),
        AgentLimits::default(),
        None,
    );
    let context = ContextState::default();
    exec.registry = Arc::new(hub.with_task_tool(&exec.registry, context.ledger.clone(), sink));
    let mut agent = Agent::new(provider, exec, settings);
    agent.context = context;
    let mock2 = mock.clone();
    // The follow-up is the parent's third request body: find it by its prompt.
    let follow = tokio::spawn(async move {
        loop {
            let found = mock2.requests()[before..].iter().any(|r| {
                !prompt_of(r).starts_with("child-")
                    && r.body["messages"].as_array().map_or(0, Vec::len) == 3
            });
            if found {
                return t0.elapsed();
            }
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
    });
    let summary = agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(summary.reason, Terminal::Completed, "{:?}", summary.error);
    let results: &Value = &serde_json::to_value(&*agent.history[2]).expect("json");
    assert!(
        !results.to_string().contains("\"is_error\":true"),
        "{results}"
    );
    drop(agent);
    let failed = failed.lock().expect("failed").clone();
    assert!(failed.is_empty(), "a child's fetch failed: {failed:?}");
    assert_eq!(fetched.load(Ordering::SeqCst), 3, "not every child fetched");
    let follow_up = follow.await.expect("follow-up");
    let (blocks, stream_end) = observer.await.expect("observer");
    let mut limit = stream_end.expect("stream end");
    for i in 1..=3 {
        limit = limit.max(blocks[&format!("toolu_{i}")] + Duration::from_millis(TOOL_MS));
    }
    Sample {
        follow_up: follow_up.as_secs_f64() * 1e3,
        limit: limit.as_secs_f64() * 1e3,
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let fetch = slow_server::SlowServer::start();
    let mock = Arc::new(MockServer::start());
    let dir = tempfile::tempdir().expect("tempdir");
    rt.block_on(async {
        run_once(&mock, &fetch.url(), dir.path()).await;
        let mut samples = Vec::new();
        // `BENCH_SHORT=1` (CI's mode): one measured run after the warm-up.
        let reps = if std::env::var_os("BENCH_SHORT").is_some() {
            1
        } else {
            7
        };
        for _ in 0..reps {
            samples.push(run_once(&mock, &fetch.url(), dir.path()).await);
        }
        let mut ratios: Vec<f64> = samples.iter().map(|s| s.follow_up / s.limit).collect();
        ratios.sort_by(f64::total_cmp);
        let mut excess: Vec<f64> = samples.iter().map(|s| s.follow_up - s.limit).collect();
        excess.sort_by(f64::total_cmp);
        println!(
            "three subagents (blocks at {BLOCKS_MS:?} ms, stream {STREAM_MS} ms, one {TOOL_MS} ms \
             tool each; scripted limit {} ms)",
            BLOCKS_MS[2] + TOOL_MS
        );
        for s in &samples {
            println!(
                "  limit {:8.1} ms  turn {:8.1} ms  ratio {:.4}",
                s.limit,
                s.follow_up,
                s.follow_up / s.limit
            );
        }
        println!(
            "median ratio {:.4} (excess {:.1} ms), worst {:.4}; within 5 %: {}/{}",
            ratios[ratios.len() / 2],
            excess[excess.len() / 2],
            ratios[ratios.len() - 1],
            ratios.iter().filter(|r| **r <= 1.05).count(),
            ratios.len()
        );
    });
}
