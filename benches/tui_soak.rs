//! The soak in the real TUI: 2,000 tool turns of the release binary in a 200×50 tmux pane
//! against the mock server of `tests/support` (real HTTP on 127.0.0.1), as a user would run
//! one long prompt. Every reply is ~200 bytes of text and one `get_current_time` call.
//!
//! `cargo bench --bench tui_soak` — at request 100 and at the last tool request the mock
//! holds its reply (a gate) while the bench types keys into the prompt with `tmux send-keys`
//! and times each until `capture-pane` shows it (key → screen, tmux's own round trip
//! included); RSS and CPU time are read from /proc the moment each request arrives.
//! `TUI_SOAK_TURNS=N` shortens the run. Auto-compaction is left at its default (on); the
//! model `claude-mock` is unknown to the model table, so its window is the default 200,000
//! tokens, and the mock reports 10 input tokens per reply: it never compacts. With
//! `TUI_SOAK_WINDOW=N` the mock counts each request's tokens (4 bytes each) and a config
//! gives claude-mock an N-token window, so it does (summary requests are answered and left
//! out of the per-turn times). The TUI thread's CPU is read apart from the process's.
//! Frame times are the TUI's own (`TOOLOOP_FRAME_TIMES`: every frame's draw, terminal write
//! included, with its turn), reported for the turns after request 100 and the last tenth.
//! Skipped without tmux.

#[path = "../tests/support/mod.rs"]
mod support;

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{Gate, MockServer, Recorded, Reply, ReplyBuilder, Route, text_reply};

const SOCKET: &str = "tooloop-tui-soak";
const PROBE_KEYS: usize = 30;

static PID: AtomicU32 = AtomicU32::new(0);
/// (request number, RSS KiB, CPU ticks, when, CPU ticks of the TUI thread, a summary
/// request?) at each arrival.
type Sample = (usize, u64, u64, Instant, u64, bool);
static SAMPLES: OnceLock<Mutex<Vec<Sample>>> = OnceLock::new();

fn samples() -> &'static Mutex<Vec<Sample>> {
    SAMPLES.get_or_init(|| Mutex::new(Vec::new()))
}

fn proc_field(pid: u32, file: &str) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/{file}")).unwrap_or_default()
}

fn rss_kib(pid: u32) -> u64 {
    proc_field(pid, "status")
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn cpu_ticks(pid: u32) -> u64 {
    ticks_of(&proc_field(pid, "stat"))
}

/// The TUI's own thread (the main thread draws and applies events; the agent, HTTP and
/// tools run on tokio's workers).
fn tui_thread_ticks(pid: u32) -> u64 {
    ticks_of(&proc_field(pid, &format!("task/{pid}/stat")))
}

/// utime + stime of a /proc stat line.
fn ticks_of(stat: &str) -> u64 {
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let get = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    get(11) + get(12)
}

fn sample_then_validate(req: &Recorded) -> Result<(), Reply> {
    let pid = PID.load(Ordering::Relaxed);
    if pid != 0 {
        let mut s = samples().lock().unwrap_or_else(|p| p.into_inner());
        let n = s.len() + 1;
        s.push((
            n,
            rss_kib(pid),
            cpu_ticks(pid),
            Instant::now(),
            tui_thread_ticks(pid),
            req.body.is_object() && req.body.get("tools").is_none(),
        ));
    }
    support::anthropic_validate::validate(req)
}

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux")
        .args(["-L", SOCKET])
        .args(args)
        .env_remove("TMUX")
        .output()
        .expect("tmux");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn wait_for_screen(text: &str, timeout: Duration) -> bool {
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if tmux(&["capture-pane", "-p"]).contains(text) {
            return true;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    false
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Types PROBE_KEYS keys, one at a time, each timed until the screen shows it; then erases
/// them. Returns the sorted latencies in ms.
fn probe_keys() -> Vec<f64> {
    // A marker that cannot be anywhere else on screen, typed before timing starts.
    let marker = "QZQ";
    tmux(&["send-keys", "-l", marker]);
    assert!(
        wait_for_screen(marker, Duration::from_secs(10)),
        "the prompt does not take keys"
    );
    let mut typed = marker.to_string();
    let mut lat = Vec::new();
    for i in 0..PROBE_KEYS {
        let c = (b'a' + (i % 26) as u8) as char;
        typed.push(c);
        let t0 = Instant::now();
        tmux(&["send-keys", "-l", &c.to_string()]);
        if wait_for_screen(&typed, Duration::from_secs(10)) {
            lat.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        // Keys a few frame slots apart, like a fast typist.
        std::thread::sleep(Duration::from_millis(30));
    }
    for _ in 0..typed.chars().count() {
        tmux(&["send-keys", "BSpace"]);
    }
    lat.sort_by(|a, b| a.total_cmp(b));
    lat
}

/// (CPU ms, wall ms, CPU ms of the TUI thread) per turn between requests a and b.
fn per_turn(s: &[Sample], a: usize, b: usize) -> (f64, f64, f64) {
    let find = |n: usize| s.iter().find(|x| x.0 == n);
    match (find(a), find(b)) {
        (Some(x), Some(y)) => {
            let turns = (b - a) as f64;
            (
                (y.2 - x.2) as f64 * 10.0 / turns,
                (y.3 - x.3).as_secs_f64() * 1e3 / turns,
                (y.4 - x.4) as f64 * 10.0 / turns,
            )
        }
        _ => (0.0, 0.0, 0.0),
    }
}

/// (turn, microseconds) per frame from the TUI's `TOOLOOP_FRAME_TIMES` file.
fn read_frames(path: &std::path::Path) -> Vec<(u32, u32)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (a, b) = l.split_once(' ')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect()
}

/// ` --config FILE --max-tokens 4096` giving claude-mock a `window` (and prices), or nothing.
fn config_args(home: &std::path::Path, window: Option<u64>) -> String {
    let Some(w) = window else {
        return String::new();
    };
    let path = home.join("soak-config.toml");
    std::fs::write(
        &path,
        format!(
            "[models.\"claude-mock\"]\ncontext_window = {w}\nmax_output_tokens = 4096\n\
             price_input = 3.0\nprice_output = 15.0\n"
        ),
    )
    .expect("config");
    format!(" --config '{}' --max-tokens 4096", path.display())
}

fn main() {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(
            !support::env::strict(),
            "tmux is not installed: under CI the bench fails instead of skipping"
        );
        println!("tui_soak: tmux not found, skipped");
        return;
    }
    // `BENCH_SHORT=1` (CI's mode): the shortest run that still has its request-100 gate.
    let short = std::env::var_os("BENCH_SHORT").is_some();
    let turns: usize = std::env::var("TUI_SOAK_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if short { 110 } else { 2000 })
        .max(110);
    let bin = std::env::var("SOAK_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_tooloop").into());
    let server = MockServer::start();
    server.drop_bodies();
    server.add_route(Route {
        suffix: "/v1/messages",
        validate: sample_then_validate,
    });
    // `TUI_SOAK_WINDOW=N`: the mock counts tokens as the API reports them and claude-mock
    // gets an N-token window, so auto-compaction runs (as in the headless compacting soak).
    let window: Option<u64> = std::env::var("TUI_SOAK_WINDOW")
        .ok()
        .and_then(|v| v.parse().ok());
    if let Some(w) = window {
        server.set_context_window(w);
    }
    let text = "The clock says it is still today; I will look again to be sure that nothing \
                moved in the meantime, because time is a tricky thing and one reading is \
                never enough for a careful agent like me.";
    let (early, late) = (Gate::new(), Gate::new());
    // Replies are made as requests come: a summary request (no tools) gets a summary, the
    // others the next tool turn. `served` counts tool turns answered.
    let served = std::sync::Arc::new(AtomicU32::new(0));
    let summaries = std::sync::Arc::new(AtomicU32::new(0));
    let (e2, l2, sv, sm) = (
        early.clone(),
        late.clone(),
        served.clone(),
        summaries.clone(),
    );
    server.respond_with(move |req| {
        if req.body.get("tools").is_none() {
            let n = sm.fetch_add(1, Ordering::SeqCst);
            return text_reply(&format!(
                "Summary #{n}: the user asked to check the clock again and again; every call \
                 returned the current time. Next step: call get_current_time again."
            ));
        }
        let i = sv.fetch_add(1, Ordering::SeqCst) as usize;
        if i >= turns {
            return text_reply("Done looking at the clock.");
        }
        let mut reply = ReplyBuilder::new()
            .text(text)
            .tool_use(&format!("toolu_{i:05}"), "get_current_time", json!({}))
            .usage(10, 60)
            .build();
        // The reply to tool request 100 and to the last tool request wait for the probes.
        if i == 99 {
            reply = reply.head_gated(&e2);
        }
        if i == turns - 1 {
            reply = reply.head_gated(&l2);
        }
        reply
    });
    let wait_served = |n: usize, timeout: Duration| {
        let end = Instant::now() + timeout;
        while (served.load(Ordering::SeqCst) as usize) < n && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
    };

    let dir = tempfile::tempdir().expect("temp dir");
    let h = dir.path().join("home");
    let ws = dir.path().join("workspace");
    std::fs::create_dir_all(&h).expect("home");
    std::fs::create_dir_all(&ws).expect("workspace");
    let frames_file = dir.path().join("frames.txt");
    let cmd = format!(
        "cd '{ws}' && exec env -u OPENAI_API_KEY ANTHROPIC_API_KEY=sk-ant-soak HOME='{h}' \
         TOOLOOP_FRAME_TIMES='{frames}' \
         XDG_STATE_HOME='{h}/state' XDG_CONFIG_HOME='{h}/config' XDG_DATA_HOME='{h}/data' \
         XDG_CACHE_HOME='{h}/cache' '{bin}' --provider anthropic --base-url '{base}' \
         --model claude-mock --max-turns {max}{extra}",
        extra = config_args(&h, window),
        ws = ws.display(),
        h = h.display(),
        frames = frames_file.display(),
        base = server.anthropic_base(),
        max = turns + 1,
    );
    let _ = tmux(&["kill-server"]);
    let ok = Command::new("tmux")
        .args([
            "-L",
            SOCKET,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "200",
            "-y",
            "50",
        ])
        .arg(&cmd)
        .env_remove("TMUX")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "tmux new-session failed");
    let pid: u32 = tmux(&["display-message", "-p", "#{pane_pid}"])
        .trim()
        .parse()
        .expect("pane pid");
    PID.store(pid, Ordering::Relaxed);
    assert!(
        wait_for_screen("claude-mock", Duration::from_secs(20)),
        "no first frame"
    );
    let started = Instant::now();
    tmux(&["send-keys", "-l", "Check the clock again and again."]);
    tmux(&["send-keys", "Enter"]);

    wait_served(100, Duration::from_secs(600));
    std::thread::sleep(Duration::from_millis(300));
    let at100 = probe_keys();
    early.open();
    wait_served(turns, Duration::from_secs(3600));
    std::thread::sleep(Duration::from_millis(300));
    let at_end = probe_keys();
    late.open();
    wait_served(turns + 1, Duration::from_secs(600));
    let finished = wait_for_screen("Done looking at the clock.", Duration::from_secs(60));
    let wall = started.elapsed();
    let rss_idle = rss_kib(pid);
    let screen = tmux(&["capture-pane", "-p"]);
    let _ = tmux(&["kill-server"]);
    // The TUI writes its frame times as its event loop ends (SIGHUP from the closed pane).
    let end = Instant::now() + Duration::from_secs(10);
    while !frames_file.exists() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let frames = read_frames(&frames_file);

    let requests = server.requests();
    assert!(
        requests.iter().all(|r| r.rejected.is_none()),
        "a request was rejected"
    );
    assert!(finished, "the last answer never showed:\n{screen}");
    let s = samples().lock().expect("samples").clone();
    let rss = |n: usize| {
        s.iter()
            .find(|x| x.0 == n)
            .map_or(0.0, |x| x.1 as f64 / 1024.0)
    };
    println!(
        "tui soak: {turns} tool turns in tmux 200×50, {} requests, wall {:.1} s (two probe pauses \
         included), binary {bin}",
        requests.len(),
        wall.as_secs_f64()
    );
    let tenth = turns / 10;
    // As in the headless soak: reply k written → request k+1 received (the mock's own
    // parsing and validation of the body are not in it). The two probe pauses and turns
    // that carry a summary request are skipped; ranges count tool requests.
    let ends = server.reply_ends();
    let summary = |k: usize| s.get(k).is_some_and(|x| x.5);
    let tool_index: Vec<usize> = (0..requests.len()).filter(|&k| !summary(k)).collect();
    let compactions = requests.len() - tool_index.len();
    let client = |range: std::ops::Range<usize>| {
        let v: Vec<f64> = range
            .filter(|t| *t != 99 && *t != turns - 1)
            .filter_map(|t| tool_index.get(t).copied())
            .filter(|&k| k + 1 < requests.len() && !summary(k + 1))
            .map(|k| {
                requests[k + 1]
                    .received
                    .saturating_duration_since(ends[k])
                    .as_secs_f64()
                    * 1e3
            })
            .collect();
        let mut sorted = v.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        (
            v.iter().sum::<f64>() / v.len().max(1) as f64,
            percentile(&sorted, 0.99),
        )
    };
    if window.is_some() {
        println!(
            "window {} tokens (mock counts them): {compactions} summary requests",
            window.unwrap_or(0)
        );
    }
    let (m1, p1) = client(100..100 + tenth);
    let (m2, p2) = client(turns - tenth..turns);
    println!(
        "client time per turn (reply written → next request received): after request 100 \
         mean {m1:.2} ms p99 {p1:.2} ms; last {tenth}: mean {m2:.2} ms p99 {p2:.2} ms"
    );
    let (c1, w1, t1) = per_turn(&s, 101, 101 + tenth);
    let (c2, w2, t2) = per_turn(&s, turns - tenth, turns);
    println!(
        "per turn after request 100 (first {tenth}) : CPU {c1:.2} ms (TUI thread {t1:.2}), \
         wall {w1:.2} ms; last {tenth}: CPU {c2:.2} ms (TUI thread {t2:.2}), wall {w2:.2} ms"
    );
    for (label, lat) in [("request 100", &at100), ("last request", &at_end)] {
        println!(
            "key → screen at {label}: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} keys)",
            percentile(lat, 0.5),
            percentile(lat, 0.99),
            percentile(lat, 1.0),
            lat.len()
        );
    }
    for (label, range) in [
        ("after request 100", 101..101 + tenth),
        ("last tenth", turns - tenth + 1..turns + 1),
    ] {
        let mut t: Vec<f64> = frames
            .iter()
            .filter(|(turn, _)| range.contains(&(*turn as usize)))
            .map(|&(_, us)| us as f64 / 1e3)
            .collect();
        t.sort_by(|a, b| a.total_cmp(b));
        println!(
            "frame (the TUI's own draw + terminal write) {label}, turns {}–{}: p50 {:.2} ms, \
             p99 {:.2} ms, max {:.2} ms ({} frames)",
            range.start,
            range.end - 1,
            percentile(&t, 0.5),
            percentile(&t, 0.99),
            percentile(&t, 1.0),
            t.len()
        );
    }
    let mut points = vec![10, 100, 1000, 2000, turns];
    points.retain(|&n| n <= turns);
    points.dedup();
    for n in points {
        println!("RSS at request {n:>5}: {:.1} MB", rss(n));
    }
    println!(
        "RSS growth request 100 → {turns}: {:.1} MB; after the last answer: {:.1} MB",
        rss(turns) - rss(100),
        rss_idle as f64 / 1024.0
    );
}
