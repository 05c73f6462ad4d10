//! A long session: 2,000 tool turns, headless, the REAL binary against the mock server of
//! `tests/support` over real HTTP on 127.0.0.1.
//!
//! `cargo bench --bench soak` — every reply is 200 bytes of text and one `get_current_time`
//! call, so the history grows by two messages per turn (4,001 at the end, ~1 MB per request).
//! Measured per turn, at the mock: the client's time = the next request fully received −
//! this reply fully written (the mock's own JSON parse and validation are not in it), and the
//! binary's RSS (`/proc/PID/status`) the moment request N arrives.
//!
//! Every tool result the binary sends back must be a success (a failing tool would make the
//! turns cheaper, not the client faster), and the compaction soak must compact.
//!
//! `BENCH_SHORT=1` is CI's mode: 60 turns and a 9,000-token window. `SOAK_TURNS=500` shortens
//! the run; `SOAK_BIN=path` runs another build of the binary;
//! `SOAK_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2` (or libmimalloc.so.2) runs it
//! with another allocator (how the allocators were compared).
//!
//! Two soaks, one after the other (`SOAK_MODE=plain` or `compact` runs one):
//! - plain: the mock reports 10 input tokens per reply, so tooloop never compacts and the
//!   history reaches ~1 MB (the goal is stated at that size);
//! - compact (`soak/compact.rs`): the mock counts every request's tokens (4 bytes each, as the
//!   API reports them) and the model's window is `SOAK_WINDOW` (default 40,000) tokens, so
//!   auto-compaction runs several times; summary requests are answered and reported apart.

#[path = "../tests/support/mod.rs"]
mod support;

#[path = "common/proc.rs"]
mod proc;
use proc::{cpu_ticks, rss_kib};

#[path = "soak/compact.rs"]
mod compact;
#[path = "soak/floor.rs"]
mod floor;

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{MockServer, Recorded, Reply, ReplyBuilder, Route, text_reply};

/// The binary's pid, for the validator (a plain fn) to sample its RSS.
static PID: AtomicU32 = AtomicU32::new(0);
/// (request number, RSS in KiB, CPU ticks, a summary request?, of the ticks those in the
/// kernel) at each arrival.
type Sample = (usize, u64, u64, bool, u64);
static SAMPLES: OnceLock<Mutex<Vec<Sample>>> = OnceLock::new();
/// Tool results seen in the requests, and the first that was an error.
static TOOL_RESULTS: AtomicUsize = AtomicUsize::new(0);
static TOOL_ERROR: Mutex<Option<String>> = Mutex::new(None);

/// Counts the tool results of a request's last message; keeps the first error.
fn check_tool_results(body: &serde_json::Value) {
    let Some(last) = body["messages"].as_array().and_then(|m| m.last()) else {
        return;
    };
    for block in last["content"].as_array().into_iter().flatten() {
        if block["type"] == "tool_result" {
            TOOL_RESULTS.fetch_add(1, Ordering::Relaxed);
            if block["is_error"] == true {
                let mut first = TOOL_ERROR.lock().unwrap_or_else(|p| p.into_inner());
                first.get_or_insert_with(|| block.to_string());
            }
        }
    }
}

fn samples() -> &'static Mutex<Vec<Sample>> {
    SAMPLES.get_or_init(|| Mutex::new(Vec::new()))
}

/// Samples the client the moment a request arrives, then validates it like the API.
fn sample_then_validate(req: &Recorded) -> Result<(), Reply> {
    let pid = PID.load(Ordering::Relaxed);
    if pid != 0 {
        let mut s = samples().lock().unwrap_or_else(|p| p.into_inner());
        let n = s.len() + 1;
        // A summary request is the one without tools (autocompact.rs).
        let summary = req.body.is_object() && req.body.get("tools").is_none();
        let (cpu, sys) = cpu_ticks(pid);
        s.push((n, rss_kib(pid), cpu, summary, sys));
    }
    check_tool_results(&req.body);
    support::anthropic_validate::validate(req)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn summary(label: &str, ms: &[f64]) {
    let mut v = ms.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    println!(
        "{label:<12} turns {:>4}: mean {mean:6.2} ms  p50 {:6.2}  p90 {:6.2}  p99 {:6.2}  max {:6.2}",
        v.len(),
        percentile(&v, 0.5),
        percentile(&v, 0.9),
        percentile(&v, 0.99),
        percentile(&v, 1.0),
    );
}

/// ~200 bytes of text per reply, as in the measurement.
const TEXT: &str = "The clock says it is still today; I will look again to be sure that nothing \
                    moved in the meantime, because time is a tricky thing and one reading is \
                    never enough for a careful agent like me.";

/// Reply `i` of the soak: the text and one `get_current_time` call.
fn tool_turn(i: usize) -> Reply {
    ReplyBuilder::new()
        .text(TEXT)
        .tool_use(&format!("toolu_{i:05}"), "get_current_time", json!({}))
        .build()
}

/// A mock with the sampling validator; bodies are not kept (the mock would hold ~1 GB).
fn mock() -> MockServer {
    let server = MockServer::start();
    server.drop_bodies();
    server.add_route(Route {
        suffix: "/v1/messages",
        validate: sample_then_validate,
    });
    samples().lock().unwrap_or_else(|p| p.into_inner()).clear();
    server
}

fn main() {
    let short = std::env::var_os("BENCH_SHORT").is_some();
    let turns: usize = std::env::var("SOAK_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if short { 60 } else { 2000 });
    let bin = std::env::var("SOAK_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_tooloop").into());
    let mode = std::env::var("SOAK_MODE").unwrap_or_default();
    if mode != "compact" {
        plain(turns, &bin);
    }
    if mode != "plain" {
        compact::run(turns, &bin);
    }
}

/// Runs the binary for `turns` tool turns against `server` (`extra` args added) until it
/// exits; returns its wall time and the JSON result.
fn run_binary(
    server: &MockServer,
    turns: usize,
    bin: &str,
    home: &std::path::Path,
    extra: &[&str],
) -> (Duration, serde_json::Value) {
    let workspace = home.join("workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let h = home;
    let max_turns = (turns + 1).to_string();
    TOOL_RESULTS.store(0, Ordering::Relaxed);
    *TOOL_ERROR.lock().unwrap_or_else(|p| p.into_inner()) = None;
    let base = server.anthropic_base();
    let started = Instant::now();
    let mut child = Command::new(bin)
        .args([
            "-p",
            "Check the clock again and again.",
            "--provider",
            "anthropic",
            "--base-url",
            &base,
            "--model",
            "claude-mock",
            "--output-format",
            "json",
            "--max-turns",
            &max_turns,
        ])
        .args(extra)
        .env_remove("RUST_LOG")
        .envs(
            std::env::var("SOAK_PRELOAD")
                .ok()
                .map(|p| ("LD_PRELOAD", p)),
        )
        .env("ANTHROPIC_API_KEY", "sk-ant-soak")
        .env("HOME", h)
        .env("XDG_CONFIG_HOME", h.join(".config"))
        .env("XDG_DATA_HOME", h.join(".local/share"))
        .env("XDG_STATE_HOME", h.join(".local/state"))
        .env("XDG_CACHE_HOME", h.join(".cache"))
        .current_dir(&workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tooloop");
    PID.store(child.id(), Ordering::Relaxed);
    let out = {
        use std::io::Read;
        let mut stdout = child.stdout.take().expect("stdout");
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stdout.read_to_string(&mut s);
            s
        });
        let status = child.wait().expect("wait");
        let out = reader.join().unwrap_or_default();
        if !status.success() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            panic!("tooloop failed: {status}\n{err}");
        }
        out
    };
    let wall = started.elapsed();
    let result: serde_json::Value = serde_json::from_str(out.trim()).expect("json result");
    if let Some(e) = TOOL_ERROR.lock().unwrap_or_else(|p| p.into_inner()).take() {
        panic!("a tool result was an error: {e}");
    }
    let results = TOOL_RESULTS.load(Ordering::Relaxed);
    assert_eq!(
        results, turns,
        "{results} tool results for {turns} tool turns"
    );
    assert_eq!(
        result["reason"],
        "completed",
        "{}",
        &out[..out.len().min(500)]
    );
    (wall, result)
}

/// The 1 MB soak: no compaction (the mock reports 10 input tokens per reply).
fn plain(turns: usize, bin: &str) {
    let server = mock();
    for i in 0..turns {
        server.enqueue(tool_turn(i));
    }
    server.enqueue(text_reply("Done looking at the clock."));
    let home = tempfile::tempdir().expect("temp HOME");
    let (wall, _) = run_binary(&server, turns, bin, home.path(), &[]);

    let requests = server.requests();
    let ends = server.reply_ends();
    assert!(
        requests.iter().all(|r| r.rejected.is_none()),
        "a request was rejected"
    );
    assert_eq!(requests.len(), turns + 1);
    // Turn k's client time: reply k written → request k+1 received.
    let client_ms: Vec<f64> = (0..turns)
        .map(|k| {
            requests[k + 1]
                .received
                .saturating_duration_since(ends[k])
                .as_secs_f64()
                * 1000.0
        })
        .collect();
    let tenth = (turns / 10).max(1);
    let bytes = |i: usize| {
        requests[i]
            .header("content-length")
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    println!(
        "soak: {turns} tool turns, real binary {bin}, allocator: {}",
        std::env::var("SOAK_PRELOAD").unwrap_or_else(|_| "glibc malloc".into())
    );
    println!(
        "wall {:.1} s, last request {} messages / {:.0} KB",
        wall.as_secs_f64(),
        2 * turns + 1,
        bytes(turns) as f64 / 1000.0
    );
    summary("first 10 %", &client_ms[..tenth]);
    summary("last 10 %", &client_ms[turns - tenth..]);
    let first = client_ms[..tenth].iter().sum::<f64>() / tenth as f64;
    let last = client_ms[turns - tenth..].iter().sum::<f64>() / tenth as f64;
    println!("ratio last/first (means): {:.2}", last / first);
    let samples = samples().lock().expect("samples").clone();
    let tick = 100.0; // USER_HZ on Linux
    // CPU per turn (robust on a busy machine, where wall time includes waiting for a core).
    // (all, kernel) CPU seconds of the binary when request n arrived.
    let ticks = |n: usize| {
        samples
            .iter()
            .find(|s| s.0 == n)
            .map_or((0.0, 0.0), |s| (s.2 as f64 / tick, s.4 as f64 / tick))
    };
    let cpu = |n: usize| ticks(n).0;
    let sys = |n: usize| ticks(n).1;
    let user = |n: usize| cpu(n) - sys(n);
    let per_turn = |f: &dyn Fn(usize) -> f64, from: usize, to: usize| {
        (f(to) - f(from)) * 1000.0 / (to - from) as f64
    };
    let (a, b) = (1, tenth + 1);
    let (c, d) = (turns + 1 - tenth, turns + 1);
    println!(
        "client CPU per turn: first 10 % {:.2} ms, last 10 % {:.2} ms \
         (user {:.2} → {:.2}, kernel {:.2} → {:.2})",
        per_turn(&cpu, a, b),
        per_turn(&cpu, c, d),
        per_turn(&user, a, b),
        per_turn(&user, c, d),
        per_turn(&sys, a, b),
        per_turn(&sys, c, d),
    );
    // The floor: each tenth's mean body through loopback TCP, in this run.
    let mean_bytes = |r: std::ops::Range<usize>| {
        (r.clone().map(|i| bytes(i + 1)).sum::<u64>() / r.len().max(1) as u64) as usize
    };
    let sizes = [mean_bytes(0..tenth), mean_bytes(turns - tenth..turns)];
    let floor = floor::transfer_ms(&sizes, 200);
    println!(
        "loopback floor (connect + {:.0} KB / {:.0} KB to a reader): {:.2} / {:.2} ms",
        sizes[0] as f64 / 1000.0,
        sizes[1] as f64 / 1000.0,
        floor[0],
        floor[1]
    );
    println!(
        "client time − floor (tooloop's own work): first 10 % {:.2} ms, last 10 % {:.2} ms, \
         ratio {:.2}",
        first - floor[0],
        last - floor[1],
        (last - floor[1]) / (first - floor[0])
    );
    for at in [10, 100, 1000, 2000, turns + 1] {
        if let Some((n, rss, cpu, _, _)) = samples.iter().find(|s| s.0 == at) {
            println!(
                "request {n:>5}: RSS {:6.1} MB, CPU so far {:6.2} s, body {:7.0} KB",
                *rss as f64 / 1024.0,
                *cpu as f64 / tick,
                bytes(n - 1) as f64 / 1000.0
            );
        }
    }
    let at = |n: usize| samples.iter().find(|s| s.0 == n).map(|s| s.1).unwrap_or(0);
    let last_n = turns.min(2000);
    if turns >= 100 {
        println!(
            "RSS growth request 100 → {last_n}: {:.1} MB, history growth {:.1} MB",
            (at(last_n) as f64 - at(100) as f64) / 1024.0,
            (bytes(last_n - 1) as f64 - bytes(99) as f64) / 1e6
        );
    }
}
