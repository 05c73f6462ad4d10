//! Thinking after an interruption: SIGINT during tools and a stream cut right after the
//! thinking block. The next request must be one the API accepts (the mock checks the
//! thinking rules with the API's wording).

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use serde_json::{Value, json};
use support::anthropic_thinking::sign;
use support::session::Sandbox;
use support::*;

fn spawn_turn(
    sb: &Sandbox,
    server: &MockServer,
    prompt: &str,
    extra: &[&str],
) -> std::process::Child {
    sb.cmd()
        .env("ANTHROPIC_API_KEY", "test-key")
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &server.anthropic_base(),
        ])
        .args(["--approval", "yolo", "--thinking", "2048"])
        .args(["--output-format", "stream-json", "-p", prompt])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn")
}

fn lines_until_exit(
    child: &mut std::process::Child,
    mut on_line: impl FnMut(&Value),
) -> (Vec<Value>, Option<i32>) {
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let v: Value = serde_json::from_str(&line.expect("line")).expect("json line");
        on_line(&v);
        lines.push(v);
    }
    (lines, child.wait().expect("wait").code())
}

#[test]
fn continuing_after_an_abort_during_tools_passes_the_thinking_back() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("A slow command first.")
            .tool_use(
                "toolu_slow",
                "bash",
                json!({"command": "echo started; sleep 29.5"}),
            )
            .build(),
    );
    let mut child = spawn_turn(&sb, &server, "run it", &[]);
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let (mut sent, mut stream_ended, mut running) = (false, false, false);
    let (lines, code) = lines_until_exit(&mut child, |v| {
        stream_ended |= v["type"] == "stream_end";
        running |= v["type"] == "tool_progress";
        // Abort during the tools phase: the stream is over, the shell still runs.
        if !sent && stream_ended && running {
            nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT");
            sent = true;
        }
    });
    assert!(sent, "{lines:?}");
    assert_eq!(code, Some(130));
    let result = lines.last().expect("result");
    assert_eq!(result["reason"], "aborted_tools");
    assert_valid_history(result);

    // The next prompt joins the tool_result message, so this request continues the tool
    // loop: with thinking on, its assistant turn must start with the thinking block.
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("The user stopped it.")
            .text("Stopped; what next?")
            .build(),
    );
    let mut child = spawn_turn(&sb, &server, "never mind", &["--continue"]);
    let (lines, code) = lines_until_exit(&mut child, |_| {});
    assert_eq!(code, Some(0), "{lines:?}");
    for r in server.requests() {
        assert!(r.rejected.is_none(), "rejected: {:?}", r.rejected);
    }
    let sent = &server.accepted()[1].body["messages"];
    assert_eq!(
        sent[1]["content"][0],
        json!({"type": "thinking", "thinking": "A slow command first.",
               "signature": sign("A slow command first.")})
    );
    assert_valid_history(lines.last().expect("result"));
}

#[test]
fn a_stream_cut_right_after_the_thinking_block_is_retried_with_an_accepted_request() {
    let server = MockServer::start();
    let first = ReplyBuilder::new()
        .signed_thinking("Thinking hard.")
        .text("The answer is")
        .delay_ms(2);
    // 0 message_start, 1 ping, 2 thinking start, 3-4 deltas, 5 signature, 6 stop: the
    // connection drops with the thinking block complete and nothing after it.
    server.enqueue(first.drop_after(7));
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Again.")
            .text("The answer is 42.")
            .build(),
    );
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "answer",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
        "--thinking",
        "2048",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .run();
    for r in server.requests() {
        assert!(r.rejected.is_none(), "rejected: {:?}", r.rejected);
    }
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_valid_history(result);
}
