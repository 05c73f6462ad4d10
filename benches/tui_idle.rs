//! Idle wake-ups and start-up of the real binary in a real terminal (tmux), on the demo model.
//!
//! `cargo bench --bench tui_idle` — starts `tooloop` in a 200×60 tmux pane, times start →
//! first frame (polling `capture-pane` for the status bar), then reads every thread's
//! context switches and CPU time from /proc for 10 s of idling, then the same with 8
//! background jobs printing (jobs.rs). Without tmux it is skipped, or fails under CI (or
//! `TOOLOOP_REQUIRE_ALL=1`). It fails when tooloop is gone while it is measured (a dead process
//! reads as 0 wake-ups), when no frame shows, or when the resumed history's last message never
//! does. `BENCH_SHORT=1`: one start, 2 s of idling, 1,000 resumed messages (CI's mode).
//! `TUI_IDLE_BIN=path` runs another build of the binary instead.

use std::collections::HashMap;
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "common/history.rs"]
mod common_history;
#[path = "common/proc.rs"]
mod proc;
use proc::rss_kib;
#[path = "tui_idle/jobs.rs"]
mod jobs;
#[path = "../tests/support/mod.rs"]
mod support;

/// CI's mode: every part once and short, its assertions all the same.
fn short() -> bool {
    std::env::var_os("BENCH_SHORT").is_some()
}

/// How long tooloop is left idle while its threads are counted.
fn idle() -> Duration {
    Duration::from_secs(if short() { 2 } else { 10 })
}

/// The pid is still a live tooloop: its wake-ups were read from a process that runs.
pub fn assert_alive(pid: u32, when: &str) {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    // A build under another name (TUI_IDLE_BIN) is still called tooloop-something.
    assert!(
        comm.starts_with("tooloop"),
        "tooloop (pid {pid}) is gone {when} ({comm:?} there): nothing measured means anything"
    );
}

fn tmux(socket: &str, args: &[&str]) -> String {
    let out = Command::new("tmux")
        .arg("-L")
        .arg(socket)
        .args(args)
        .output()
        .expect("tmux");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Per thread: (voluntary + involuntary context switches, CPU ns).
fn counters(pid: u32) -> HashMap<String, (u64, u64)> {
    let mut out = HashMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        let p = t.path();
        let mut switches = 0;
        if let Ok(s) = std::fs::read_to_string(p.join("status")) {
            for l in s.lines() {
                if l.starts_with("voluntary_ctxt_switches")
                    || l.starts_with("nonvoluntary_ctxt_switches")
                {
                    switches += l
                        .split_whitespace()
                        .nth(1)
                        .and_then(|v| v.parse::<u64>().ok())
                        .unwrap_or(0);
                }
            }
        }
        let cpu = std::fs::read_to_string(p.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0);
        out.insert(
            t.file_name().to_string_lossy().into_owned(),
            (switches, cpu),
        );
    }
    out
}

/// Starts tooloop in a fresh 200×60 tmux server; returns (start → first frame, pane pid).
/// The start time is written by the pane's shell just before it execs tooloop, so tmux's own
/// start-up is not counted; the first frame is the status bar showing up in capture-pane.
fn start(socket: &str, dir: &std::path::Path, args: &str, ready: &str) -> (Option<Duration>, u32) {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let stamp = dir.join("exec_ns");
    let _ = std::fs::remove_file(&stamp);
    // `TUI_IDLE_BIN=path` measures another build (a before/after in one run).
    let bin =
        std::env::var("TUI_IDLE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_tooloop").into());
    let h = home.display();
    let cmd = format!(
        "cd '{ws}' && date +%s%N > '{stamp}' && exec env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY \
         HOME='{h}' XDG_STATE_HOME='{h}/state' XDG_CONFIG_HOME='{h}/config' \
         XDG_DATA_HOME='{h}/data' XDG_CACHE_HOME='{h}/cache' '{bin}' --provider demo {args}",
        ws = dir.display(),
        stamp = stamp.display()
    );
    let ok = Command::new("tmux")
        .args([
            "-L",
            socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "200",
            "-y",
            "60",
            &cmd,
        ])
        .env_remove("TMUX")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "tmux new-session failed");
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut first = None;
    while Instant::now() < deadline {
        let screen = tmux(socket, &["capture-pane", "-p"]);
        if screen.contains(ready) {
            let seen = now_ns();
            let exec = std::fs::read_to_string(&stamp)
                .ok()
                .and_then(|s| s.trim().parse::<u128>().ok());
            first = exec.map(|e| Duration::from_nanos(seen.saturating_sub(e) as u64));
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let pid = tmux(socket, &["display-message", "-p", "#{pane_pid}"])
        .trim()
        .parse()
        .expect("pane pid");
    (first, pid)
}

fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn main() {
    if !Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(
            !support::env::strict(),
            "tmux is not installed: under CI the bench fails instead of skipping"
        );
        println!("SKIPPED: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let mut firsts = Vec::new();
    let starts = if short() { 1 } else { 5 };
    for i in 0..starts {
        let socket = format!("tooloop-bench-start-{}-{i}", std::process::id());
        let (first, _) = start(&socket, dir.path(), "--no-session", "demo");
        firsts.extend(first);
        tmux(&socket, &["kill-server"]);
    }
    firsts.sort();
    assert_eq!(
        firsts.len(),
        starts,
        "start → first frame: a start showed no frame within 20 s"
    );
    {
        let ms: Vec<String> = firsts
            .iter()
            .map(|d| format!("{:.1}", d.as_secs_f64() * 1e3))
            .collect();
        println!(
            "start → first frame: median {:.1} ms of {} starts [{}] (goal ≤ 50 ms; exec → status bar in capture-pane, polled every ~1 ms)",
            firsts[firsts.len() / 2].as_secs_f64() * 1e3,
            firsts.len(),
            ms.join(", ")
        );
    }

    let socket = format!("tooloop-bench-idle-{}", std::process::id());
    let (_, pid) = start(&socket, dir.path(), "--no-session", "demo");
    // Let start-up work (syntect warm-up on a blocking thread) finish before measuring idle.
    std::thread::sleep(Duration::from_secs(2));
    assert_alive(pid, "before idling");
    let before = counters(pid);
    std::thread::sleep(idle());
    let after = counters(pid);
    assert_alive(pid, "after idling");
    assert!(!after.is_empty(), "no thread of tooloop could be read");
    assert!(
        tmux(&socket, &["capture-pane", "-p"]).contains("demo"),
        "the idle screen lost its status bar"
    );
    // Threads that exist at both ends; one that ended (tokio's blocking pool lets an idle
    // thread go after 10 s) is reported apart.
    let (mut switches, mut cpu) = (0, 0);
    for (tid, (s1, c1)) in &after {
        let (s0, c0) = before.get(tid).copied().unwrap_or((0, 0));
        switches += s1.saturating_sub(s0);
        cpu += c1.saturating_sub(c0);
    }
    let gone = before.keys().filter(|t| !after.contains_key(*t)).count();
    println!(
        "idle {} s: {} context switches ({:.1}/s) over {} threads, {:.2} ms CPU; {gone} thread(s) ended; RSS {:.1} MB",
        idle().as_secs(),
        switches,
        switches as f64 / idle().as_secs_f64(),
        after.len(),
        cpu as f64 / 1e6,
        rss_kib(pid) as f64 / 1024.0
    );
    tmux(&socket, &["kill-server"]);

    jobs::run(dir.path());

    // RSS with 10,000 messages: a transcript written where sessions live, then resumed.
    let sessions = dir.path().join("home/data/tooloop/sessions");
    std::fs::create_dir_all(&sessions).expect("sessions dir");
    use std::os::unix::fs::PermissionsExt;
    for d in [dir.path().join("home/data/tooloop"), sessions.clone()] {
        let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700));
    }
    let n = if short() { 1_000 } else { 10_000 };
    let messages = common_history::history(n);
    let mut file =
        serde_json::json!({"type": "header", "id": "benchrss1", "created": "2026-12-01T00:00:00Z",
        "workspace": dir.path().display().to_string(), "tooloop_version": "bench", "format": 1})
        .to_string();
    file.push('\n');
    for (index, message) in messages.iter().enumerate() {
        let rec = serde_json::json!({"type": "message", "index": index, "message": message});
        file.push_str(&rec.to_string());
        file.push('\n');
    }
    std::fs::write(sessions.join("20261201T000000Z-benchrss1.jsonl"), &file).expect("transcript");
    let socket = format!("tooloop-bench-rss-{}", std::process::id());
    let last = format!("Done with step {}", n / 4 - 1);
    let (shown, pid) = start(&socket, dir.path(), "--resume benchrss1", &last);
    std::thread::sleep(Duration::from_secs(1));
    let Some(t) = shown else {
        let screen = tmux(&socket, &["capture-pane", "-p"]);
        tmux(&socket, &["kill-server"]);
        panic!("resumed {n} messages: the last message never showed up; screen:\n{screen}");
    };
    assert_alive(pid, "after the resume");
    println!(
        "resumed {n} messages ({:.1} MB transcript): first frame after {:.0} ms, RSS {:.1} MB (goal ≤ 80 MB)",
        file.len() as f64 / 1e6,
        t.as_secs_f64() * 1e3,
        rss_kib(pid) as f64 / 1024.0
    );
    tmux(&socket, &["kill-server"]);
}
