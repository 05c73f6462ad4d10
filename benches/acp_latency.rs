//! `tooloop acp` against headless stream-json: the same reply from the mock Anthropic server
//! (tests/support) through the real binary, both front ends on one engine.
//!
//! `cargo bench --bench acp_latency` — a reply of WORDS text deltas, streamed as fast as
//! the mock writes them. Measured per run:
//! - ACP: client side, `session/prompt` written → first `agent_message_chunk` read, and the
//!   mean gap between consecutive chunks (the per-update cost: event → mapping → JSON-RPC
//!   line → pipe → client);
//! - headless: `-p … --output-format stream-json`, the first `text_delta` line's own `t_ms`
//!   (from the prompt's submission inside the process; whole milliseconds) and, client
//!   side, the mean gap between consecutive `text_delta` lines.
//!
//! Medians of RUNS runs each, alternated. Prints one line per figure.
//!
//! `ACP_BENCH_BASELINE=/path/to/tooloop` also runs the ACP figures with that binary (an
//! older build), alternated with the others: a before/after from the same run.

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{MockServer, ReplyBuilder};

const RUNS: usize = 15;
const WORDS: usize = 2000;

fn command(bin: &str, home: &std::path::Path, server: &MockServer) -> Command {
    let mut cmd = Command::new(bin);
    for key in [
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "RUST_LOG",
        "TOOLOOP_LOG",
    ] {
        cmd.env_remove(key);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("ANTHROPIC_API_KEY", "sk-bench")
        .current_dir(home)
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &server.anthropic_base(),
            "--model",
            "claude-mock",
            "--no-session",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    cmd
}

/// (prompt → first chunk, mean gap between chunks, chunks).
fn acp_run(bin: &str, server: &MockServer) -> (Duration, Duration, usize) {
    let home = tempfile::tempdir().expect("home");
    let mut child = command(bin, home.path(), server)
        .arg("acp")
        .spawn()
        .expect("acp");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| writeln!(&mut stdin, "{v}").unwrap();
    let mut read = || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).expect("json line")
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}),
    );
    while read()["id"] != 1 {}
    let cwd = home.path().canonicalize().unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}}),
    );
    let session = loop {
        let v = read();
        if v["id"] == 2 {
            break v["result"]["sessionId"].as_str().unwrap().to_string();
        }
    };
    let start = Instant::now();
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
        "sessionId": session, "prompt": [{"type": "text", "text": "go"}]}}),
    );
    let mut chunks = Vec::new();
    loop {
        let v = read();
        if v["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
            chunks.push(start.elapsed());
        }
        if v["id"] == 3 {
            break;
        }
    }
    // Stdin closes: the agent ends its session and exits.
    drop(stdin);
    let _ = child.wait();
    (chunks[0], gap(&chunks), chunks.len())
}

/// (first text_delta's t_ms, mean gap between text_delta lines, lines).
fn headless_run(server: &MockServer) -> (Duration, Duration, usize) {
    let home = tempfile::tempdir().expect("home");
    let mut child = command(env!("CARGO_BIN_EXE_tooloop"), home.path(), server)
        .args(["-p", "go", "--output-format", "stream-json"])
        .stdin(Stdio::null())
        .spawn()
        .expect("headless");
    let out = BufReader::new(child.stdout.take().unwrap());
    let start = Instant::now();
    let mut first_t_ms = None;
    let mut deltas = Vec::new();
    for line in out.lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).expect("json line");
        if v["type"] == "text_delta" {
            first_t_ms.get_or_insert(v["t_ms"].as_u64().unwrap());
            deltas.push(start.elapsed());
        }
    }
    let _ = child.wait();
    (
        Duration::from_millis(first_t_ms.expect("a text_delta")),
        gap(&deltas),
        deltas.len(),
    )
}

fn gap(times: &[Duration]) -> Duration {
    if times.len() < 2 {
        return Duration::ZERO;
    }
    (times[times.len() - 1] - times[0]) / (times.len() as u32 - 1)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let server = MockServer::start();
    let text: String = (0..WORDS).map(|i| format!("w{i} ")).collect();
    server.respond_with(move |_| ReplyBuilder::new().text(&text).build());
    let (mut acp_first, mut acp_gap, mut hl_first, mut hl_gap) = (vec![], vec![], vec![], vec![]);
    let (mut acp_n, mut hl_n) = (0, 0);
    let baseline = std::env::var("ACP_BENCH_BASELINE").ok();
    let (mut base_first, mut base_gap) = (vec![], vec![]);
    for _ in 0..RUNS {
        if let Some(bin) = &baseline {
            let (f, g, _) = acp_run(bin, &server);
            base_first.push(f);
            base_gap.push(g);
        }
        let (f, g, n) = acp_run(env!("CARGO_BIN_EXE_tooloop"), &server);
        acp_first.push(f);
        acp_gap.push(g);
        acp_n = n;
        let (f, g, n) = headless_run(&server);
        hl_first.push(f);
        hl_gap.push(g);
        hl_n = n;
    }
    println!("acp_latency: {RUNS} runs each, {WORDS}-word reply");
    println!(
        "acp: session/prompt → first agent_message_chunk: median {:.2} ms (min {:.2}, max {:.2})",
        ms(median(acp_first.clone())),
        ms(*acp_first.iter().min().unwrap()),
        ms(*acp_first.iter().max().unwrap())
    );
    println!(
        "headless stream-json: prompt → first text_delta (t_ms): median {:.0} ms",
        ms(median(hl_first))
    );
    println!(
        "per update: acp {:.1} µs ({acp_n} chunks), headless {:.1} µs ({hl_n} lines) (medians)",
        us(median(acp_gap)),
        us(median(hl_gap))
    );
    if let Some(bin) = baseline {
        println!(
            "baseline {bin}: acp first chunk median {:.2} ms, per update {:.1} µs",
            ms(median(base_first)),
            us(median(base_gap))
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
