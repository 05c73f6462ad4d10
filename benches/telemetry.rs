//! What telemetry costs the loop: `cargo bench --bench telemetry`.
//!
//! Telemetry is a consumer between the agent's event channel and the front end, so its cost
//! is the extra time an event takes to pass through it. A turn's events (prompt, one
//! request with 60 stream events, N tool calls, the end) are sent through
//! `telemetry::start` with telemetry on and off, and the time until the front end's side has
//! received them all is compared (fastest of 9 passes each): per request (N = 0) and per
//! tool call (N = 16, all of the extra charged to the calls: an upper bound). The collector is down (a refused port) or stalled (accepts and never answers),
//! so exporting fails the whole time; memory (VmRSS) is sampled over 1,000 and 5,000 turns.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{AgentEvent, Terminal, ToolOutcome, TurnSummary};
use tooloop::provider::Usage;
use tooloop::telemetry::settings::Settings;

fn usage() -> Usage {
    Usage {
        input_tokens: 1200,
        output_tokens: 300,
        cache_read_tokens: 9000,
        ..Usage::default()
    }
}

/// One prompt: a request streaming 60 events, `tools` tool calls, the end.
fn turn(n: usize, tools: usize) -> Vec<AgentEvent> {
    let mut ev = vec![
        AgentEvent::PromptStart {
            text: format!("prompt {n}"),
        },
        AgentEvent::TurnStart { turn: 1 },
        AgentEvent::RequestStart {
            turn: 1,
            attempt: 1,
            model: "claude-bench".into(),
            body: Arc::new(json!({"model": "claude-bench"}).into()),
        },
    ];
    for i in 0..30 {
        ev.push(AgentEvent::RawSse {
            event: "content_block_delta".into(),
            data: format!("{{\"i\":{i}}}"),
        });
        ev.push(AgentEvent::TextDelta {
            text: "some words ".into(),
        });
    }
    for t in 0..tools {
        ev.push(AgentEvent::ToolUse {
            id: format!("toolu_{t}"),
            name: "read_file".into(),
            input: json!({"path": "src/main.rs"}),
            safe: true,
            summary: "src/main.rs".into(),
            preview: None,
        });
    }
    ev.push(AgentEvent::StreamEnd {
        turn: 1,
        stop_reason: Some("end_turn".into()),
        usage: Some(usage()),
    });
    ev.push(AgentEvent::Usage(usage()));
    for t in 0..tools {
        ev.push(AgentEvent::ToolStart {
            id: format!("toolu_{t}"),
            name: "read_file".into(),
        });
        ev.push(AgentEvent::ToolEnd {
            id: format!("toolu_{t}"),
            name: "read_file".into(),
            is_error: false,
            outcome: ToolOutcome::Ok,
            duration_ms: 1,
            output: "fn main() {}".into(),
        });
    }
    ev.push(AgentEvent::Done(TurnSummary {
        reason: Terminal::Completed,
        turns: 1,
        usage: usage(),
        text: String::new(),
        transitions: Vec::new(),
        error: None,
        cost_usd: Some(0.01 * n as f64),
        context_tokens: 10_000,
    }));
    ev
}

/// Tool calls per turn for the per-call figure (many, so their cost stands above the noise).
const TOOLS: usize = 16;

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Sends `turns` turns through the tap and waits until all came out; the tap is shut down
/// after (its deadline not counted). Returns the time and the RSS samples (every 100 turns).
async fn pass(on: bool, turns: usize, tools: usize, sample: bool) -> (Duration, Vec<(usize, u64)>) {
    let (sink, rx) = EventSink::channel();
    let settings = Settings {
        enabled: on,
        ..Settings::default()
    };
    let (mut out, tap) = tooloop::telemetry::start(settings, Default::default(), &sink, rx);
    let mut samples = Vec::new();
    let started = Instant::now();
    // Made as they go (the same work on and off), so memory is what the pipeline holds.
    for n in 0..turns {
        let events = turn(n, tools);
        let count = events.len();
        for e in events {
            sink.send(e);
        }
        for _ in 0..count {
            out.recv().await.expect("the tap forwards every event");
        }
        if sample && (n + 1) % 100 == 0 {
            samples.push((n + 1, rss_kib()));
        }
    }
    let took = started.elapsed();
    if let Some(tap) = tap {
        tap.shutdown().await;
    }
    (took, samples)
}

/// The fastest pass: on a shared machine the others carry other processes' time.
fn fastest(v: Vec<Duration>) -> Duration {
    v.into_iter().min().unwrap_or_default()
}

async fn overhead(turns: usize, tools: usize) -> (Duration, Duration) {
    let mut off = Vec::new();
    let mut on = Vec::new();
    for _ in 0..9 {
        off.push(pass(false, turns, tools, false).await.0);
        on.push(pass(true, turns, tools, false).await.0);
    }
    (fastest(off), fastest(on))
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let stalled = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let stalled_url = format!("http://{}", stalled.local_addr().expect("addr"));
    let dead = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let dead_url = format!("http://{}", dead.local_addr().expect("addr"));
    drop(dead);
    // Accepts and never answers: every export waits for the exporter's timeout.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in stalled.incoming().flatten() {
            held.push(s);
        }
    });
    let endpoint = if which == "stalled" {
        stalled_url
    } else {
        dead_url
    };
    // SAFETY: set before the runtime and any other thread that reads the environment.
    unsafe {
        std::env::set_var("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint);
        std::env::set_var("OTEL_METRIC_EXPORT_INTERVAL", "1000");
        std::env::set_var("OTEL_BSP_SCHEDULE_DELAY", "200");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let collector = if which == "stalled" {
            "stalled"
        } else {
            "down"
        };
        println!("collector {collector} ({endpoint})");
        let turns = 500;
        let (off0, on0) = overhead(turns, 0).await;
        let (off16, on16) = overhead(turns, TOOLS).await;
        let per_request = on0.saturating_sub(off0) / turns as u32;
        // The request's cost is in both; all of the 16-tool turn's extra charged to its
        // tools is an upper bound per call that stays meaningful on a noisy machine.
        let per_tool = on16.saturating_sub(off16) / (turns as u32 * TOOLS as u32);
        println!(
            "0 tools: off {:.1} µs/turn, on {:.1} µs/turn -> {:.1} µs per request",
            off0.as_secs_f64() * 1e6 / turns as f64,
            on0.as_secs_f64() * 1e6 / turns as f64,
            per_request.as_secs_f64() * 1e6
        );
        println!(
            "{TOOLS} tools: off {:.1} µs/turn, on {:.1} µs/turn -> at most {:.1} µs per tool call",
            off16.as_secs_f64() * 1e6 / turns as f64,
            on16.as_secs_f64() * 1e6 / turns as f64,
            per_tool.as_secs_f64() * 1e6
        );
        // The 3-tool streaming turn of turn_latency (BENCHMARKS.md) takes 1068.6 ms.
        let turn = per_request + per_tool * 3;
        println!(
            "a 3-tool turn: +{:.1} µs = {:.4} % of turn_latency's 1068.6 ms",
            turn.as_secs_f64() * 1e6,
            turn.as_secs_f64() / 1.0686 * 100.0
        );
        for total in [1_000usize, 5_000] {
            let before = rss_kib();
            let (took, samples) = pass(true, total, 8, true).await;
            let shown: Vec<String> = samples
                .iter()
                .filter(|(n, _)| n % (total / 5) == 0)
                .map(|(n, kib)| format!("{n}: {:.1} MiB", *kib as f64 / 1024.0))
                .collect();
            println!(
                "{total} turns (8 tools each, {} spans): RSS before {:.1} MiB; {}; {:.1} s",
                total * 10,
                before as f64 / 1024.0,
                shown.join(", "),
                took.as_secs_f64()
            );
        }
    });
    rt.shutdown_timeout(Duration::from_millis(100));
}
