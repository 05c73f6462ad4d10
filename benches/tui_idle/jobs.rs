//! Idle cost with background jobs printing (issue 26): the model (the mock server) starts 8
//! jobs that each print a line every 100 ms; then nobody types. The jobs' output reaches
//! the TUI as at most two events a second per job and the timers move once a second, so the
//! frames stay bounded however much the jobs print (no redraw per line).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use super::support::{MockServer, text_reply, tool_reply};
use super::{assert_alive, counters, idle, tmux};

pub fn run(dir: &std::path::Path) {
    let server = MockServer::start();
    let calls: Vec<(String, serde_json::Value)> = (1..=8)
        .map(|i| {
            (
                format!("toolu_{i}"),
                json!({"command": format!("while true; do echo job {i} line $RANDOM; sleep 0.1; done"),
                       "run_in_background": true}),
            )
        })
        .collect();
    let refs: Vec<(&str, &str, serde_json::Value)> = calls
        .iter()
        .map(|(id, input)| (id.as_str(), "bash", input.clone()))
        .collect();
    server.enqueue(tool_reply(&refs));
    server.enqueue(text_reply("eight jobs started"));
    let home = dir.join("jobs-home");
    std::fs::create_dir_all(&home).expect("home");
    let frames = dir.join("frames.txt");
    let bin =
        std::env::var("TUI_IDLE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_tooloop").into());
    let h = home.display();
    let cmd = format!(
        "cd '{h}' && exec env ANTHROPIC_API_KEY=sk-ant-bench TOOLOOP_FRAME_TIMES='{f}' \
         HOME='{h}' XDG_STATE_HOME='{h}/state' XDG_CONFIG_HOME='{h}/config' \
         XDG_DATA_HOME='{h}/data' XDG_CACHE_HOME='{h}/cache' '{bin}' --provider anthropic \
         --base-url '{base}' --model claude-mock --approval yolo --sandbox off --no-session",
        f = frames.display(),
        base = server.anthropic_base(),
    );
    let socket = format!("tooloop-bench-jobs-{}", std::process::id());
    let ok = Command::new("tmux")
        .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
        .args(["-x", "200", "-y", "60", &cmd])
        .env_remove("TMUX")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "tmux new-session failed");
    let started = Instant::now();
    let wait_for = |needle: &str| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !tmux(&socket, &["capture-pane", "-p"]).contains(needle) {
            assert!(Instant::now() < deadline, "{needle} never showed");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_for("idle");
    tmux(&socket, &["send-keys", "-t", "0", "-l", "start eight jobs"]);
    tmux(&socket, &["send-keys", "-t", "0", "Enter"]);
    wait_for("bg 8");
    let pid: u32 = tmux(&socket, &["display-message", "-p", "#{pane_pid}"])
        .trim()
        .parse()
        .expect("pane pid");
    std::thread::sleep(Duration::from_secs(2));
    assert_alive(pid, "before idling with jobs");
    let before = counters(pid);
    std::thread::sleep(idle());
    let after = counters(pid);
    assert_alive(pid, "after idling with jobs");
    assert!(!after.is_empty(), "no thread of tooloop could be read");
    let (mut switches, mut cpu) = (0, 0);
    for (tid, (s1, c1)) in &after {
        let (s0, c0) = before.get(tid).copied().unwrap_or((0, 0));
        switches += s1.saturating_sub(s0);
        cpu += c1.saturating_sub(c0);
    }
    let lines: usize = tmux(&socket, &["capture-pane", "-p"])
        .lines()
        .filter(|l| l.contains("· job "))
        .count();
    tmux(&socket, &["send-keys", "-t", "0", "-l", "/exit"]);
    tmux(&socket, &["send-keys", "-t", "0", "Enter"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !frames.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let run = started.elapsed();
    let drawn = std::fs::read_to_string(&frames)
        .map(|s| s.lines().count())
        .unwrap_or(0);
    println!(
        "8 jobs printing 10 lines/s each, nobody typing, {} s: {} context switches ({:.1}/s) \
         over {} threads (pipe reads included), {:.1} ms CPU; {} frames drawn over the whole \
         {:.1} s run ({:.1}/s); {lines} live rows showed output",
        idle().as_secs(),
        switches,
        switches as f64 / idle().as_secs_f64(),
        after.len(),
        cpu as f64 / 1e6,
        drawn,
        run.as_secs_f64(),
        drawn as f64 / run.as_secs_f64(),
    );
    tmux(&socket, &["kill-server"]);
    assert!(lines > 0, "no job's output reached the screen");
    assert!(
        drawn > 0,
        "no frame times were written ({})",
        frames.display()
    );
}
