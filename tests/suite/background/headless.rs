//! Background jobs end to end (issue 26): the real binary, headless, against the mock model,
//! with real processes. A job started with `run_in_background` keeps printing across
//! turns, bash_output hands out each line once, kill_shell ends it and its child, a job
//! that ended between turns is announced once, and no job process outlives tooloop —
//! whether the run ends, or SIGINT, SIGTERM or SIGHUP ends it.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

/// A number no other test (or process) puts on a command line, to find processes by.
fn marker() -> u32 {
    3_000_000 + fastrand::u32(..1_000_000)
}

/// Pids of live processes whose command line contains `needle` (zombies are dead).
fn pgrep(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let live = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rfind(')').map(|i| s[i + 2..].starts_with(['Z', 'X'])))
            .is_some_and(|dead| !dead);
        if live && cmdline.contains(needle) && pid != std::process::id() {
            found.push(pid);
        }
    }
    found
}

fn wait_until(what: &str, within: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn headless(server: &MockServer, extra: &[&str]) -> Tooloop {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "work in the background",
        "--output-format",
        "stream-json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--allow-tool",
        "bash",
        "--sandbox",
        "off",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args).env("ANTHROPIC_API_KEY", "test-key")
}

fn call(id: &str, name: &str, input: Value) -> Reply {
    tool_reply(&[(id, name, input)])
}

/// The content of the one tool_result in a request's last message.
fn result_text(request: &Recorded) -> String {
    let results = tool_results(request);
    assert_eq!(results.len(), 1, "one result: {results:?}");
    results[0].1.as_str().unwrap_or_default().to_string()
}

/// The numbered `line N` lines of a bash_output result.
fn numbered(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|l| l.strip_prefix("line ")?.trim().parse().ok())
        .collect()
}

#[test]
fn a_printer_is_read_across_turns_without_loss_or_repeats_then_killed_with_its_child() {
    let m = marker();
    let server = MockServer::start();
    let command =
        format!("sleep {m} & i=0; while true; do i=$((i+1)); echo \"line $i\"; sleep 0.1; done");
    server.enqueue(call(
        "toolu_1",
        "bash",
        json!({"command": command, "run_in_background": true}),
    ));
    // Three more turns while it prints, each after a pause so there is something new.
    for i in 2..=4 {
        server.enqueue(
            call(
                &format!("toolu_{i}"),
                "bash_output",
                json!({"shell_id": "b1"}),
            )
            .head_delay(Duration::from_millis(450)),
        );
    }
    server.enqueue(call("toolu_5", "kill_shell", json!({"shell_id": "b1"})));
    server.enqueue(call("toolu_6", "bash_output", json!({"shell_id": "b1"})));
    server.enqueue(text_reply("done"));
    let run = headless(&server, &[]).run();
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_valid_history(run.result());
    let requests = server.accepted();
    assert_eq!(requests.len(), 7);

    let started = result_text(&requests[1]);
    assert!(
        started.starts_with("started in background as b1 (pid "),
        "{started}"
    );
    let mut seen = Vec::new();
    for r in &requests[2..5] {
        let text = result_text(r);
        let lines = numbered(&text);
        assert!(!lines.is_empty(), "new lines every turn: {text}");
        assert!(text.ends_with("[b1: running]"), "{text}");
        seen.extend(lines);
    }
    let killed = result_text(&requests[5]);
    assert!(killed.starts_with("b1 ("), "{killed}");
    assert!(killed.contains("killed"), "{killed}");
    let last = result_text(&requests[6]);
    assert!(last.ends_with("[b1: killed]"), "{last}");
    seen.extend(numbered(&last));
    // Every line once, in order, from the first.
    let want: Vec<u32> = (1..=seen.len() as u32).collect();
    assert_eq!(seen, want, "lines lost or repeated");
    assert!(seen.len() >= 10, "it printed for over a second: {seen:?}");
    assert!(
        pgrep(&format!("sleep {m}")).is_empty(),
        "the job's child survived"
    );

    let lines = run.of_type("background");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["state"], "started");
    assert_eq!(lines[0]["shell_id"], "b1");
    assert!(lines[0]["pid"].as_u64().is_some());
    assert_eq!(lines[1]["state"], "killed");
    let listed = &run.result()["background"];
    assert_eq!(listed[0]["shell_id"], "b1");
    assert_eq!(listed[0]["state"], "killed");
    assert_eq!(listed[0]["command"], command.as_str());
}

#[test]
fn a_job_that_exits_between_turns_is_announced_once() {
    let server = MockServer::start();
    server.enqueue(call(
        "toolu_1",
        "bash",
        json!({"command": "sleep 0.3; echo first; echo second; exit 3", "run_in_background": true}),
    ));
    // While this reply is on its way the job exits.
    server.enqueue(
        call("toolu_2", "get_current_time", json!({})).head_delay(Duration::from_millis(900)),
    );
    server.enqueue(call("toolu_3", "get_current_time", json!({})));
    server.enqueue(text_reply("done"));
    let run = headless(&server, &[]).run();
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_valid_history(run.result());
    let requests = server.accepted();
    let notice = "background job b1 (sleep 0.3; echo first; echo second; exit 3) exited with \
                  code 3; last lines:\nfirst\nsecond";
    let carried: Vec<usize> = requests
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let last = r.body["messages"]
                .as_array()
                .and_then(|m| m.last())
                .cloned();
            last.is_some_and(|m| m.to_string().contains("exited with code 3"))
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(carried, vec![2], "the notice rides on request 3 only");
    let last = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let blocks = last["content"].as_array().unwrap();
    assert_eq!(blocks[0]["type"], "tool_result");
    assert_eq!(blocks[1]["type"], "text");
    assert_eq!(blocks[1]["text"], notice);
    let ended = run.of_type("background");
    assert_eq!(ended[1]["state"], "exited");
    assert_eq!(ended[1]["exit_code"], 3);
}

#[test]
fn bash_output_filters_and_unknown_ids_and_max_jobs_are_errors() {
    let server = MockServer::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[background]\nmax_jobs = 1\n").unwrap();
    server.enqueue(call(
        "toolu_1",
        "bash",
        json!({"command": "printf 'ok 1\\nerr 2\\nok 3\\n'; sleep 30", "run_in_background": true}),
    ));
    server.enqueue(call(
        "toolu_2",
        "bash",
        json!({"command": "sleep 30", "run_in_background": true}),
    ));
    server.enqueue(
        call(
            "toolu_3",
            "bash_output",
            json!({"shell_id": "b1", "filter": "^ok"}),
        )
        .head_delay(Duration::from_millis(300)),
    );
    server.enqueue(call("toolu_4", "bash_output", json!({"shell_id": "b7"})));
    server.enqueue(text_reply("done"));
    let config = config.display().to_string();
    let run = headless(&server, &["--config", &config]).run();
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let requests = server.accepted();
    let too_many = tool_results(&requests[2]);
    assert!(too_many[0].2, "a second job is refused");
    assert!(
        too_many[0]
            .1
            .as_str()
            .unwrap()
            .contains("1 background jobs are running"),
        "{too_many:?}"
    );
    let filtered = result_text(&requests[3]);
    assert_eq!(
        filtered,
        "ok 1\nok 3\n[filter: 2 of 3 new lines matched]\n[b1: running]"
    );
    let unknown = tool_results(&requests[4]);
    assert!(unknown[0].2);
    assert_eq!(
        unknown[0].1,
        "Error: no background job b7 (this session's jobs: b1)"
    );
    // The run's end ended the job.
    assert_eq!(run.result()["background"][0]["state"], "killed");
}

/// tooloop is stopped by `signal` while a job that ignores SIGTERM and has a child runs:
/// afterwards no process of the job is left.
fn no_job_survives(signal: i32, want_code: i32) {
    let m = marker();
    let server = MockServer::start();
    let command = format!("trap '' TERM; sleep {m} & while true; do echo tick; sleep 0.1; done");
    server.enqueue(call(
        "toolu_1",
        "bash",
        json!({"command": command, "run_in_background": true}),
    ));
    // The model never answers: tooloop waits mid-turn when the signal comes.
    server.enqueue(Reply::hang());
    let spawned = headless(&server, &[]).spawn();
    wait_until("the job's child", Duration::from_secs(20), || {
        !pgrep(&format!("sleep {m}")).is_empty()
    });
    server.wait_for_requests(2, Duration::from_secs(10));
    let pid = spawned.pid() as i32;
    // SAFETY: a signal to the child we spawned.
    unsafe { libc::kill(pid, signal) };
    let run = spawned.wait();
    assert_eq!(run.code, Some(want_code), "stderr: {}", run.stderr);
    assert!(
        pgrep(&format!("sleep {m}")).is_empty(),
        "a job process outlived tooloop"
    );
    assert!(pgrep(&format!("sleep {m} & while")).is_empty());
    let result = run.result();
    assert_eq!(result["background"][0]["state"], "killed");
    assert_valid_history(result);
}

#[test]
fn sigint_ends_every_job() {
    no_job_survives(libc::SIGINT, 130);
}

#[test]
fn sigterm_ends_every_job() {
    no_job_survives(libc::SIGTERM, 143);
}

#[test]
fn sighup_ends_every_job() {
    no_job_survives(libc::SIGHUP, 129);
}

#[test]
fn a_sandboxed_job_cannot_write_outside_the_workspace() {
    if support::env::landlock().is_none() {
        return;
    }
    let server = MockServer::start();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let command = format!(
        "echo inside > inside.txt && echo out > {}; echo status $?",
        target.display()
    );
    server.enqueue(call(
        "toolu_1",
        "bash",
        json!({"command": command, "run_in_background": true}),
    ));
    server.enqueue(
        call("toolu_2", "bash_output", json!({"shell_id": "b1"}))
            .head_delay(Duration::from_millis(500)),
    );
    server.enqueue(text_reply("done"));
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "go",
        "--output-format",
        "stream-json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--sandbox",
        "workspace-write",
        "--approval",
        "auto-edit",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .run();
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let requests = server.accepted();
    let out = result_text(&requests[2]);
    assert!(out.contains("status 1"), "{out}");
    assert!(
        out.contains("Permission denied") || out.contains("Operation not permitted"),
        "{out}"
    );
    assert!(out.ends_with("[b1: exited with code 0]"), "{out}");
    assert!(!target.exists(), "the sandbox let the job write outside");
    assert!(run.workspace.join("inside.txt").exists());
}

#[test]
fn a_resumed_session_lists_its_jobs_as_ended_never_running() {
    let server = MockServer::start();
    let home = tempfile::tempdir().unwrap();
    let workspace = home.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    server.enqueue(call(
        "toolu_1",
        "bash",
        json!({"command": "sleep 60", "run_in_background": true}),
    ));
    server.enqueue(text_reply("started"));
    let env = |t: Tooloop| {
        let h = home.path();
        t.env("HOME", &h.display().to_string())
            .env("XDG_DATA_HOME", &h.join("data").display().to_string())
            .env("XDG_STATE_HOME", &h.join("state").display().to_string())
            .workspace(&workspace)
    };
    let first = env(headless(&server, &[])).run();
    assert_eq!(first.code, Some(0), "stderr: {}", first.stderr);
    assert_eq!(first.result()["background"][0]["state"], "killed");
    // The next run of the same session: b1 is listed as it ended, and the next id is b2.
    server.enqueue(call("toolu_2", "bash_output", json!({"shell_id": "b1"})));
    server.enqueue(call(
        "toolu_3",
        "bash",
        json!({"command": "true", "run_in_background": true}),
    ));
    server.enqueue(text_reply("again"));
    let second = env(headless(&server, &["--continue"])).run();
    assert_eq!(second.code, Some(0), "stderr: {}", second.stderr);
    let requests = server.accepted();
    let earlier = tool_results(&requests[3]);
    assert!(earlier[0].2);
    assert!(
        earlier[0]
            .1
            .as_str()
            .unwrap()
            .contains("belonged to an earlier run"),
        "{earlier:?}"
    );
    assert!(result_text(&requests[4]).starts_with("started in background as b2"));
    let listed = second.result()["background"].as_array().unwrap().clone();
    assert_eq!(listed[0]["shell_id"], "b1");
    assert_eq!(listed[0]["state"], "killed");
    assert_eq!(listed[1]["shell_id"], "b2");
    assert!(listed.iter().all(|j| j["state"] != "running"));
}
