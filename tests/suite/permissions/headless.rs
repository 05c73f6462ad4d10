//! One headless run per approval mode through the real binary against the mock Anthropic
//! server: the `permission` lines, the tool results the model gets back, and the disk.

use crate::support;

use serde_json::{Value, json};
use support::*;

/// The model asks to write a file and to run a command, then finishes.
fn script(server: &MockServer) {
    server.enqueue(tool_reply(&[
        (
            "toolu_w",
            "write_file",
            json!({"path": "hello.txt", "content": "hi\n"}),
        ),
        ("toolu_b", "bash", json!({"command": "echo ran > bash.txt"})),
    ]));
    server.enqueue(text_reply("done"));
}

fn run(mode: &str, extra: &[&str]) -> (Run, MockServer) {
    let server = MockServer::start();
    script(&server);
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "write hello.txt and run a command",
        "--output-format",
        "stream-json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--approval",
        mode,
        "--no-session",
    ];
    args.extend_from_slice(extra);
    let run = Tooloop::new(&args)
        .env("ANTHROPIC_API_KEY", "test-key")
        .run();
    (run, server)
}

/// (name, decision) of every `permission` line.
fn permissions(run: &Run) -> Vec<(String, String)> {
    run.of_type("permission")
        .into_iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap_or("").to_string(),
                l["decision"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Checks the run and returns the tool results the model got back, by tool_use id.
fn finished(run: &Run, server: &MockServer) -> Vec<(String, Value, bool)> {
    assert_eq!(
        run.code,
        Some(0),
        "stderr: {}\nstdout: {}",
        run.stderr,
        run.stdout
    );
    assert_eq!(run.result()["reason"], "completed");
    assert_valid_history(run.result());
    let requests = server.accepted();
    assert_eq!(requests.len(), 2, "one request per turn");
    tool_results(&requests[1])
}

fn pair(name: &str, decision: &str) -> (String, String) {
    (name.to_string(), decision.to_string())
}

fn result_of<'a>(results: &'a [(String, Value, bool)], id: &str) -> (&'a Value, bool) {
    let (_, content, is_error) = results
        .iter()
        .find(|(i, _, _)| i == id)
        .unwrap_or_else(|| panic!("no result for {id}: {results:?}"));
    (content, *is_error)
}

#[test]
fn headless_ask_denies_every_change() {
    let (run, server) = run("ask", &[]);
    let results = finished(&run, &server);
    assert_eq!(
        permissions(&run),
        [pair("write_file", "deny"), pair("bash", "deny")]
    );
    assert!(!run.workspace.join("hello.txt").exists());
    assert!(!run.workspace.join("bash.txt").exists());
    let (content, is_error) = result_of(&results, "toolu_b");
    assert!(
        is_error && content.to_string().contains("headless"),
        "{content}"
    );
}

#[test]
fn headless_auto_edit_writes_files_but_denies_bash() {
    // Without a sandbox; with one, auto-edit runs bash too (tests/suite/sandbox/headless.rs).
    let (run, server) = run("auto-edit", &["--sandbox", "off"]);
    let results = finished(&run, &server);
    assert_eq!(
        permissions(&run),
        [pair("write_file", "allow"), pair("bash", "deny")]
    );
    assert_eq!(
        std::fs::read_to_string(run.workspace.join("hello.txt")).expect("hello.txt"),
        "hi\n"
    );
    assert!(!run.workspace.join("bash.txt").exists());
    assert!(!result_of(&results, "toolu_w").1);
    assert!(result_of(&results, "toolu_b").1);
}

#[test]
fn headless_yolo_runs_everything() {
    let (run, server) = run("yolo", &[]);
    let results = finished(&run, &server);
    assert_eq!(
        permissions(&run),
        [pair("write_file", "allow"), pair("bash", "allow")]
    );
    assert!(run.workspace.join("hello.txt").exists());
    assert_eq!(
        std::fs::read_to_string(run.workspace.join("bash.txt")).expect("bash.txt"),
        "ran\n"
    );
    let (content, is_error) = result_of(&results, "toolu_b");
    assert!(
        !is_error && content.to_string().contains("exit code 0"),
        "{content}"
    );
}

#[test]
fn headless_read_only_refuses_every_change() {
    let (run, server) = run("read-only", &[]);
    let results = finished(&run, &server);
    assert_eq!(
        permissions(&run),
        [pair("write_file", "deny"), pair("bash", "deny")]
    );
    assert!(!run.workspace.join("hello.txt").exists());
    assert!(!run.workspace.join("bash.txt").exists());
    let (content, is_error) = result_of(&results, "toolu_w");
    assert!(
        is_error && content.to_string().contains("read-only"),
        "{content}"
    );
}

#[test]
fn headless_allow_tool_pre_approves_one_tool() {
    let (run, server) = run("ask", &["--allow-tool", "bash"]);
    finished(&run, &server);
    assert_eq!(
        permissions(&run),
        [pair("write_file", "deny"), pair("bash", "allow")]
    );
    assert!(!run.workspace.join("hello.txt").exists());
    assert!(run.workspace.join("bash.txt").exists());
}
