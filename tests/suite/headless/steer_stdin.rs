//! `--input-format stream-json` (issue 40): a user message written to stdin while step 1
//! of a three-step turn runs joins the request after step 1 — tool results first, then the
//! words — and not the one before; it is echoed as a `user` line. Real binary, real HTTP
//! against the validating mock server.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{Value, json};
use support::session::Sandbox;
use support::{MockServer, ReplyBuilder, text_reply};

/// The user message under `--input-format stream-json`, in Claude Code's shape.
fn user_line(text: &str) -> String {
    json!({"type": "user", "message": {"role": "user", "content": text}}).to_string()
}

/// Step 1's command: it waits for a file [`steered_run`] writes once the messages are on
/// stdin, so they arrive while step 1 runs.
pub(super) const WAIT_FOR_GO: &str = "while [ ! -f go ]; do sleep 0.02; done; echo step1";

/// `-p PROMPT` headless with stream-json in and out, yolo, against `server` (whose first
/// reply runs [`WAIT_FOR_GO`] as `toolu_1`): when that call starts, `texts` are written to
/// stdin as user messages, then the step is let go. Exit 0; every output line.
pub(super) fn steered_run(
    sb: &Sandbox,
    server: &MockServer,
    prompt: &str,
    texts: &[&str],
) -> Vec<Value> {
    let mut child = sb
        .cmd()
        .env("ANTHROPIC_API_KEY", "test-key")
        .args(["--provider", "anthropic", "--base-url"])
        .arg(server.anthropic_base())
        .args(["--approval", "yolo", "--no-session"])
        .args(["--input-format", "stream-json"])
        .args(["--output-format", "stream-json"])
        .args(["-p", prompt])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    let mut written = false;
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(&line.expect("line")).expect("json line");
        if !written && v["type"] == "tool_start" && v["id"] == "toolu_1" {
            for text in texts {
                writeln!(stdin, "{}", user_line(text)).expect("write");
            }
            stdin.flush().expect("flush");
            // The reader forwards them at once; the step ends only when the file appears.
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::fs::write(sb.workspace.join("go"), "").expect("go");
            written = true;
        }
        lines.push(v);
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0), "{lines:#?}");
    lines
}

fn texts(message: &Value) -> Vec<String> {
    message["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_stdin_message_during_step_one_joins_the_request_after_it() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "bash", json!({"command": WAIT_FOR_GO}))
            .build(),
    );
    for i in 2..=3 {
        server.enqueue(
            ReplyBuilder::new()
                .tool_use(&format!("toolu_{i}"), "bash", json!({"command": "echo ok"}))
                .build(),
        );
    }
    server.enqueue(text_reply("all done"));
    let lines = steered_run(&sb, &server, "three steps please", &["use the other file"]);
    let requests = server.accepted();
    assert_eq!(
        requests.len(),
        4,
        "three steps and the answer: no extra request"
    );
    let last = |i: usize| {
        requests[i].body["messages"]
            .as_array()
            .expect("messages")
            .last()
            .cloned()
            .expect("last")
    };
    assert!(
        !requests[0].body_text.contains("use the other file"),
        "not in the request before step 1 ended"
    );
    let after_step_1 = last(1);
    assert_eq!(after_step_1["role"], "user");
    assert_eq!(after_step_1["content"][0]["type"], "tool_result");
    assert_eq!(texts(&after_step_1), vec!["use the other file"]);
    let echoed: Vec<&Value> = lines.iter().filter(|v| v["type"] == "user").collect();
    assert_eq!(echoed.len(), 1, "{lines:#?}");
    assert_eq!(echoed[0]["text"], "use the other file");
    // The echo comes after step 1's tool ended and before the second request.
    let pos = |pred: &dyn Fn(&Value) -> bool| lines.iter().position(pred).expect("line");
    let end1 = pos(&|v| v["type"] == "tool_end" && v["id"] == "toolu_1");
    let user = pos(&|v| v["type"] == "user");
    let second = lines
        .iter()
        .enumerate()
        .filter(|(_, v)| v["type"] == "request_start")
        .nth(1)
        .map(|(i, _)| i)
        .expect("second request");
    assert!(end1 < user && user < second, "{end1} {user} {second}");
    // BENCHMARKS.md: from the step's end to the request carrying the words (`-- --nocapture`).
    let t = |i: usize| lines[i]["t_ms"].as_u64().expect("t_ms");
    eprintln!(
        "steered text: written at step 1's tool_start, joined {} ms after step 1's tool_end, \
         on the wire (request_start) {} ms after it; {} requests",
        t(user) - t(end1),
        t(second) - t(end1),
        requests.len()
    );
    let result = lines.last().expect("result");
    assert_eq!(result["type"], "result");
    assert_eq!(result["turns"], 4);
    let messages: Vec<tooloop::message::Message> =
        serde_json::from_value(result["messages"].clone()).expect("messages");
    tooloop::message::validate_history(&messages).expect("valid history");
}

#[test]
fn bad_stdin_lines_are_named_and_skipped_and_eof_finishes_the_turn() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    server.enqueue(text_reply("fine"));
    let mut child = sb
        .cmd()
        .env("ANTHROPIC_API_KEY", "test-key")
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &server.anthropic_base(),
        ])
        .args(["--no-session", "--input-format", "stream-json", "-p", "hi"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(stdin, "{{not json").expect("write");
        writeln!(stdin, "{}", json!({"type": "assistant"})).expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "fine");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stdin line 1: not JSON"), "{err}");
    assert!(err.contains("stdin line 2: not a user message"), "{err}");
}
