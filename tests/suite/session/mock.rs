//! Sessions against the mock Anthropic server: the resumed REQUEST carries the earlier
//! messages (and the mock validates it like the API), a run killed while waiting for the
//! model resumes into a request the API accepts, and the key reaches no file.

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use serde_json::{Value, json};
use support::session::Sandbox;
use support::{MockServer, Reply, text_reply, tool_reply};

const KEY: &str = "sk-secret-test";

fn anthropic(
    sb: &Sandbox,
    server: &MockServer,
    prompt: &str,
    extra: &[&str],
) -> support::session::Run {
    let base = server.anthropic_base();
    let out = sb
        .cmd()
        .env("ANTHROPIC_API_KEY", KEY)
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &base,
            "--max-retries",
            "1",
        ])
        .args(["--output-format", "json", "-p", prompt])
        .args(extra)
        .output()
        .expect("runs");
    support::session::Run::from(out)
}

/// Each message as JSON, without the prompt-cache markers (wire detail, not history).
fn texts(messages: &Value) -> Vec<String> {
    messages
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            let mut m = m.clone();
            for b in m["content"].as_array_mut().into_iter().flatten() {
                if let Some(o) = b.as_object_mut() {
                    o.remove("cache_control");
                }
            }
            m.to_string()
        })
        .collect()
}

fn assert_no_key_anywhere(sb: &Sandbox) {
    for f in sb.all_files() {
        let text = String::from_utf8_lossy(&std::fs::read(&f).expect("read")).into_owned();
        assert!(!text.contains(KEY), "{} contains the key", f.display());
    }
}

#[test]
fn the_continued_request_carries_the_earlier_messages() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    server.enqueue(tool_reply(&[("toolu_1", "get_current_time", json!({}))]));
    server.enqueue(text_reply("It is noon."));
    let first = anthropic(&sb, &server, "what time is it", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let m1 = first.result()["messages"].clone();
    assert_eq!(m1.as_array().map(Vec::len), Some(4));

    server.enqueue(text_reply("You asked for the time."));
    let second = anthropic(&sb, &server, "what did I ask?", &["--continue"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let requests = server.accepted();
    assert_eq!(requests.len(), 3, "{requests:?}");
    let sent = &requests[2].body["messages"];
    let sent_texts = texts(sent);
    assert_eq!(sent_texts.len(), 5, "{sent:#}");
    assert_eq!(
        sent_texts[..4],
        texts(&m1)[..],
        "the request carries the first run's messages"
    );
    assert_eq!(sent[4]["content"][0]["text"], "what did I ask?");
    assert_eq!(
        requests[2].header("x-api-key"),
        Some(KEY),
        "the key went where it belongs"
    );
    assert_no_key_anywhere(&sb);
}

#[test]
fn killed_while_the_model_is_slow_then_continue_sends_a_valid_request() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    server.enqueue(tool_reply(&[
        ("toolu_1", "get_current_time", json!({})),
        ("toolu_2", "list_dir", json!({})),
    ]));
    server.enqueue(Reply::hang());
    let base = server.anthropic_base();
    let mut child = sb
        .cmd()
        .env("ANTHROPIC_API_KEY", KEY)
        .args(["--provider", "anthropic", "--base-url", &base])
        .args(["--output-format", "stream-json", "-p", "time and files"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    // The second request_start means the tool results are in history and the model hangs.
    let mut starts = 0;
    while starts < 2 {
        let line = lines.next().expect("more output").expect("line");
        let v: Value = serde_json::from_str(&line).expect("json");
        if v["type"] == "request_start" {
            starts += 1;
        }
    }
    // …and the mock has taken that request (the hang is consumed, not left for the resume).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while server.accepted().len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the second request never arrived"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(server.pending(), 0);
    child.kill().expect("kill -9");
    child.wait().expect("waits");

    server.enqueue(text_reply("Done."));
    let run = anthropic(&sb, &server, "go on", &["--continue"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = server.requests();
    let last = requests.last().expect("a request");
    assert_eq!(last.rejected, None, "the mock accepts the resumed history");
    let sent = last.body["messages"].as_array().expect("messages").clone();
    assert_eq!(sent.len(), 3, "{sent:?}");
    let tail = sent[2]["content"].as_array().expect("content");
    assert_eq!(tail[0]["type"], "tool_result");
    assert_eq!(tail[1]["type"], "tool_result");
    assert_eq!(
        tail[2]["text"], "go on",
        "the prompt merged into the results message"
    );
    assert_no_key_anywhere(&sb);
}

/// Issue 41, item 4: a prompt whose request failed (here a 404), then the run ended, then
/// `--continue`: the failed prompt is not sent behind the user's back. The next request
/// carries the earlier exchange and the new prompt alone, as in a live session.
#[test]
fn a_prompt_that_failed_is_not_sent_after_a_resume() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    server.enqueue(text_reply("Hello there."));
    let first = anthropic(&sb, &server, "hello", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    server.enqueue(Reply::error(404, "not_found_error", "Not Found"));
    let failed = anthropic(&sb, &server, "the prompt that failed", &["--continue"]);
    assert_ne!(failed.code, 0, "{}", failed.stderr);
    server.enqueue(text_reply("Sure."));
    let next = anthropic(&sb, &server, "the next prompt", &["--continue"]);
    assert_eq!(next.code, 0, "{}", next.stderr);
    let requests = server.accepted();
    let sent = &requests.last().expect("a request").body["messages"];
    let all = sent.to_string();
    assert!(!all.contains("the prompt that failed"), "{sent:#}");
    let sent = sent.as_array().expect("messages");
    assert_eq!(
        sent.len(),
        3,
        "hello, its answer, the next prompt: {sent:#?}"
    );
    assert_eq!(sent[2]["content"].as_array().map(Vec::len), Some(1));
    assert_eq!(sent[2]["content"][0]["text"], "the next prompt");
}
