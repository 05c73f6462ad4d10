//! The cold first call: a fresh process of the real binary (`-p`), one reply asking for three
//! instant `read_file` calls, the mock on loopback. Measured at the mock: that reply fully
//! written → the follow-up request (the three results) fully received, which is every fixed
//! cost between two requests with each tool's first call in it (a validator compiled at the
//! first call once put 10–19 ms there, unseen by the in-process runs that warm up first), and
//! the binary's RSS when the follow-up arrives.
//!
//! `TURN_LATENCY_BIN=path` runs another build of the binary (before/after runs).

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use serde_json::json;

use crate::proc::rss_kib;
use crate::support::{MockServer, Recorded, Reply, ReplyBuilder, Route, text_reply};

/// The goal for the cold fixed cost between two requests.
pub const GOAL_MS: f64 = 5.0;

/// The binary's pid and its RSS when the follow-up (the second request) arrived.
static PID: AtomicU32 = AtomicU32::new(0);
static RSS_AT_FOLLOW_UP: AtomicU64 = AtomicU64::new(0);

/// Samples the RSS as the second request arrives (the validator is a plain fn).
fn sample_then_validate(req: &Recorded) -> Result<(), Reply> {
    let pid = PID.load(Ordering::Relaxed);
    if pid != 0 && req.body["messages"].as_array().map_or(0, Vec::len) == 3 {
        RSS_AT_FOLLOW_UP.store(rss_kib(pid), Ordering::Relaxed);
    }
    crate::support::anthropic_validate::validate(req)
}

/// One fresh process: (reply end → follow-up received, RSS at the follow-up in KiB).
fn once(bin: &str) -> (Duration, u64) {
    let mock = MockServer::start();
    mock.add_route(Route {
        suffix: "/v1/messages",
        validate: sample_then_validate,
    });
    let mut reply = ReplyBuilder::new().text("I will read the three files.");
    for (i, name) in ["a.txt", "b.txt", "c.txt"].iter().enumerate() {
        reply = reply.tool_use(&format!("toolu_{i}"), "read_file", json!({"path": name}));
    }
    mock.enqueue(reply.build());
    mock.enqueue(text_reply("All three read."));
    let home = tempfile::tempdir().expect("temp HOME");
    let h = home.path();
    let workspace = h.join("workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(workspace.join(name), format!("the file {name}\n")).expect("file");
    }
    RSS_AT_FOLLOW_UP.store(0, Ordering::Relaxed);
    let child = Command::new(bin)
        .args([
            "-p",
            "Read a.txt, b.txt and c.txt.",
            "--provider",
            "anthropic",
        ])
        .args([
            "--base-url",
            &mock.anthropic_base(),
            "--model",
            "claude-mock",
        ])
        .args(["--output-format", "json"])
        .env_remove("RUST_LOG")
        .env("ANTHROPIC_API_KEY", "sk-ant-cold")
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
    let out = child.wait_with_output().expect("wait");
    PID.store(0, Ordering::Relaxed);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tooloop failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_str(stdout.trim()).expect("json result");
    assert_eq!(result["reason"], "completed", "{stdout}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "one tool turn, one answer");
    assert!(
        requests.iter().all(|r| r.rejected.is_none()),
        "a request was rejected"
    );
    // The follow-up carries three results, each the file's text, none an error.
    let results = &requests[1].body["messages"][2]["content"];
    let results = results.as_array().expect("tool results");
    assert_eq!(results.len(), 3, "{results:?}");
    for (r, name) in results.iter().zip(["a.txt", "b.txt", "c.txt"]) {
        assert_ne!(r["is_error"], true, "a tool failed: {r}");
        assert!(r.to_string().contains(&format!("the file {name}")), "{r}");
    }
    let ends = mock.reply_ends();
    let between = requests[1].received.saturating_duration_since(ends[0]);
    let rss = RSS_AT_FOLLOW_UP.load(Ordering::Relaxed);
    assert!(
        rss > 0,
        "no RSS sampled: the process was gone at the follow-up"
    );
    (between, rss)
}

/// `reps` fresh processes; prints the figures and returns the median in ms.
pub fn run(reps: usize) -> f64 {
    let bin =
        std::env::var("TURN_LATENCY_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_tooloop").into());
    let mut ms = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..reps {
        let (d, kib) = once(&bin);
        ms.push(d.as_secs_f64() * 1e3);
        rss.push(kib as f64 / 1024.0);
    }
    ms.sort_by(f64::total_cmp);
    rss.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    println!(
        "cold first call, fresh process ({bin}): reply end → follow-up median {median:.2} ms \
         (min {:.2}, max {:.2}, {reps} runs; goal ≤ {GOAL_MS} ms), RSS at the follow-up \
         median {:.1} MB",
        ms[0],
        ms[ms.len() - 1],
        rss[rss.len() / 2]
    );
    median
}
