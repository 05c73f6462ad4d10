//! The cold first call: a fresh process of the real binary (`-p`), one reply asking for three
//! instant `read_file` calls, the mock on loopback. Measured at the mock: that reply fully
//! written → the follow-up request (the three results) fully received, which is every fixed
//! cost between two requests with each tool's first call in it (a validator compiled at the
//! first call once put 10–19 ms there, unseen by the in-process runs that warm up first), and
//! the binary's RSS when the follow-up arrives. The same process then gets a second such
//! reply (three more files): its interval is the warm cost on the same machine, so what only a
//! first call costs (cold − warm) can be held to the goal in any build on any machine.
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

/// A reply asking for three instant `read_file` calls.
fn three_reads(names: [&str; 3]) -> Reply {
    let mut reply = ReplyBuilder::new().text("I will read the three files.");
    for name in names {
        reply = reply.tool_use(
            &format!("toolu_{}", &name[..1]),
            "read_file",
            json!({"path": name}),
        );
    }
    reply.build()
}

/// What one fresh process gave.
struct Once {
    /// The first reply's end → the follow-up received: each tool's first call in it.
    cold: Duration,
    /// The same interval for the second tool reply in the same process.
    warm: Duration,
    /// RSS at the follow-up, KiB.
    rss: u64,
}

const COLD_FILES: [&str; 3] = ["a.txt", "b.txt", "c.txt"];
const WARM_FILES: [&str; 3] = ["d.txt", "e.txt", "f.txt"];

/// One fresh process.
fn once(bin: &str) -> Once {
    let mock = MockServer::start();
    mock.add_route(Route {
        suffix: "/v1/messages",
        validate: sample_then_validate,
    });
    mock.enqueue(three_reads(COLD_FILES));
    mock.enqueue(three_reads(WARM_FILES));
    mock.enqueue(text_reply("All six read."));
    let home = tempfile::tempdir().expect("temp HOME");
    let h = home.path();
    let workspace = h.join("workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    for name in COLD_FILES.iter().chain(&WARM_FILES) {
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
    assert_eq!(requests.len(), 3, "two tool turns, one answer");
    assert!(
        requests.iter().all(|r| r.rejected.is_none()),
        "a request was rejected"
    );
    // Each follow-up carries three results, each the file's text, none an error.
    for (req, at, names) in [(&requests[1], 2, COLD_FILES), (&requests[2], 4, WARM_FILES)] {
        let results = &req.body["messages"][at]["content"];
        let results = results.as_array().expect("tool results");
        assert_eq!(results.len(), 3, "{results:?}");
        for (r, name) in results.iter().zip(names) {
            assert_ne!(r["is_error"], true, "a tool failed: {r}");
            assert!(r.to_string().contains(&format!("the file {name}")), "{r}");
        }
    }
    let ends = mock.reply_ends();
    let rss = RSS_AT_FOLLOW_UP.load(Ordering::Relaxed);
    assert!(
        rss > 0,
        "no RSS sampled: the process was gone at the follow-up"
    );
    Once {
        cold: requests[1].received.saturating_duration_since(ends[0]),
        warm: requests[2].received.saturating_duration_since(ends[1]),
        rss,
    }
}

/// The medians of `reps` fresh processes, in ms.
pub struct Figures {
    pub cold: f64,
    pub warm: f64,
    /// Median over the processes of cold − warm: what only a first call costs.
    pub first_only: f64,
}

/// `reps` fresh processes; prints the figures and returns their medians.
pub fn run(reps: usize) -> Figures {
    let bin =
        std::env::var("TURN_LATENCY_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_tooloop").into());
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (mut cold, mut warm, mut first_only, mut rss) = (vec![], vec![], vec![], vec![]);
    for _ in 0..reps {
        let o = once(&bin);
        cold.push(ms(o.cold));
        warm.push(ms(o.warm));
        first_only.push(ms(o.cold) - ms(o.warm));
        rss.push(o.rss as f64 / 1024.0);
    }
    for v in [&mut cold, &mut warm, &mut first_only, &mut rss] {
        v.sort_by(f64::total_cmp);
    }
    let median = |v: &[f64]| v[v.len() / 2];
    println!(
        "cold first call, fresh process ({bin}): reply end → follow-up median {:.2} ms \
         (min {:.2}, max {:.2}, {reps} runs; goal ≤ {GOAL_MS} ms); the second tool reply in \
         the same process {:.2} ms; first call only (cold − warm) {:.2} ms; RSS at the \
         follow-up median {:.1} MB",
        median(&cold),
        cold[0],
        cold[cold.len() - 1],
        median(&warm),
        median(&first_only),
        median(&rss)
    );
    Figures {
        cold: median(&cold),
        warm: median(&warm),
        first_only: median(&first_only),
    }
}
