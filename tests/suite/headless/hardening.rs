//! Headless output that can't be turned against a terminal, and SIGINT that always ends in
//! a result line: the real binary against the mock Anthropic server.

use crate::support;

use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use support::*;

/// A reply that tries to set the clipboard (OSC 52), clear the screen, ring the bell, and
/// sneak in an 8-bit CSI and a right-to-left override.
const HOSTILE: &str = "before\u{1b}]52;c;aGFja2Vk\u{7} clear\u{1b}[2J bell\u{7} csi\u{9b}31m \
                       rlo\u{202e}txt.exe\tafter";

fn headless(server: &MockServer, format: &str, extra: &[&str]) -> Tooloop {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "hello",
        "--output-format",
        format,
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--no-session",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args).env("ANTHROPIC_API_KEY", "test-key")
}

#[test]
fn text_output_carries_no_escape_sequence_or_bell() {
    let server = MockServer::start();
    server.enqueue(text_reply(HOSTILE));
    let run = headless(&server, "text", &[]).run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for bad in ["\u{1b}", "\u{7}", "\u{9b}", "\u{1b}]52", "\u{1b}[2J"] {
        assert!(!run.stdout.contains(bad), "{bad:?} in {:?}", run.stdout);
    }
    // The words survive, and so do tab and newline.
    assert!(run.stdout.contains("before"), "{:?}", run.stdout);
    assert!(run.stdout.contains("\tafter\n"), "{:?}", run.stdout);
}

#[test]
fn stream_json_escapes_c1_and_bidi_overrides() {
    let server = MockServer::start();
    server.enqueue(text_reply(HOSTILE));
    let run = headless(&server, "stream-json", &[]).run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
        assert!(!run.stdout.contains(bad), "{bad:?} raw in stream-json");
    }
    assert!(run.stdout.contains("\\u009b"), "{}", run.stdout);
    assert!(run.stdout.contains("\\u202e"), "{}", run.stdout);
    // Escaped, not altered: a JSON parser gets the model's text back exactly.
    assert_eq!(run.result()["text"], HOSTILE);
    let json = headless(&server_with(HOSTILE), "json", &[]).run();
    assert!(!json.stdout.contains('\u{202e}') && json.stdout.contains("\\u202e"));
    assert_eq!(json.result()["text"], HOSTILE);
}

fn server_with(text: &str) -> MockServer {
    let server = MockServer::start();
    server.enqueue(text_reply(text));
    server
}

fn sigint(pid: u32) {
    kill(Pid::from_raw(pid as i32), Signal::SIGINT).expect("SIGINT");
}

/// Asserts an interrupted run: exit 130, a result line, a valid history.
fn assert_aborted(run: &Run, when: &str) -> Value {
    assert_eq!(
        run.code,
        Some(130),
        "SIGINT {when}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        run.code,
        run.stdout,
        run.stderr
    );
    let result = run.result().clone();
    assert_eq!(run.lines.last(), Some(&result), "result is the last line");
    assert_valid_history(&result);
    result
}

/// Waits until the process catches SIGINT (bit 2 of SigCgt in /proc/PID/status) and says
/// how long after spawn that was.
///
/// Before that instant no program can do anything: between exec and its first instruction
/// the dynamic loader runs (here ~2–4 ms for the 180 MB debug binary, relocating 112k
/// pointers), and a SIGINT then takes the default action. tooloop installs its handler
/// from `.init_array`, before `main` and before any Rust runtime setup, so this wait covers
/// only the loader; every delay below is counted from the first instant tooloop could act.
fn wait_until_catching_sigint(pid: u32, spawned: Instant) -> Duration {
    let path = format!("/proc/{pid}/status");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = std::fs::read_to_string(&path).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
            .is_some_and(|mask| mask & (1 << (libc_sigint() - 1)) != 0);
        if caught {
            return spawned.elapsed();
        }
        assert!(Instant::now() < deadline, "tooloop never caught SIGINT");
        std::thread::yield_now();
    }
}

fn libc_sigint() -> u32 {
    Signal::SIGINT as u32
}

#[test]
fn sigint_right_after_start_still_prints_a_result() {
    for delay_ms in [0u64, 5, 10, 20, 50] {
        let server = MockServer::start();
        // The model never answers: whenever the signal lands, the turn is cut short.
        server.enqueue(Reply::hang());
        let started = Instant::now();
        let spawned = headless(&server, "stream-json", &[])
            .timeout(Duration::from_secs(20))
            .spawn();
        let ready = wait_until_catching_sigint(spawned.pid(), started);
        eprintln!("SIGINT caught {ready:?} after spawn; sending it {delay_ms} ms later");
        std::thread::sleep(Duration::from_millis(delay_ms));
        sigint(spawned.pid());
        let run = spawned.wait();
        let result = assert_aborted(&run, &format!("at {delay_ms} ms"));
        assert_eq!(result["reason"], "aborted_streaming", "at {delay_ms} ms");
        // Nothing of a turn: no assistant text came.
        assert_eq!(result["text"], "", "at {delay_ms} ms");
    }
}

#[test]
fn sigint_during_a_retry_backoff_ends_the_wait() {
    let server = MockServer::start();
    server.enqueue(rate_limited(30_000));
    server.enqueue(text_reply("too late"));
    let spawned = headless(&server, "stream-json", &["--max-retries", "5"])
        .timeout(Duration::from_secs(20))
        .spawn();
    server.wait_for_requests(1, Duration::from_secs(10));
    // Now tooloop sleeps before attempt 2.
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    sigint(spawned.pid());
    let run = spawned.wait();
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "the backoff was not cut short"
    );
    let result = assert_aborted(&run, "during a retry backoff");
    assert!(
        result["reason"]
            .as_str()
            .unwrap_or("")
            .starts_with("aborted")
    );
    assert_eq!(server.requests().len(), 1, "no attempt after the abort");
    assert!(run.of_type("retry").len() == 1, "{}", run.stdout);
}

#[test]
fn sigint_while_continue_loads_a_session() {
    // A session big enough that loading it takes a while (~540 KB, and under the context
    // window, so no compaction or blocking_limit gets in the way).
    let server = MockServer::start();
    server.enqueue(text_reply("first answer"));
    let home = tempfile::tempdir().unwrap();
    let workspace = home.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let big = "lorem ipsum dolor sit amet ".repeat(20_000);
    let base = server.anthropic_base();
    let with_home = |t: Tooloop| {
        t.env("ANTHROPIC_API_KEY", "test-key")
            .env("XDG_DATA_HOME", &home.path().join("data").to_string_lossy())
            .workspace(&workspace)
            .timeout(Duration::from_secs(30))
    };
    let first = with_home(Tooloop::new(&[
        "-p",
        "-",
        "--output-format",
        "json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
    ]))
    .stdin(&big)
    .run();
    assert_eq!(first.code, Some(0), "{}", first.stderr);

    for delay_ms in [5u64, 20, 50] {
        server.enqueue(Reply::hang());
        let started = Instant::now();
        let spawned = with_home(Tooloop::new(&[
            "-p",
            "go on",
            "--continue",
            "--output-format",
            "stream-json",
            "--provider",
            "anthropic",
            "--base-url",
            &base,
        ]))
        .spawn();
        wait_until_catching_sigint(spawned.pid(), started);
        std::thread::sleep(Duration::from_millis(delay_ms));
        sigint(spawned.pid());
        let run = spawned.wait();
        let result = assert_aborted(&run, &format!("{delay_ms} ms into --continue"));
        assert_eq!(result["reason"], "aborted_streaming");
        // The loaded conversation is there, followed by the new prompt.
        let history = result["messages"].to_string();
        assert!(history.contains("first answer"), "session not loaded");
        assert!(history.contains("go on"));
    }
}
