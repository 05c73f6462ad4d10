//! Crash consistency: kill -9 a real run mid-turn, tear the last line, leave a tool call
//! unanswered; --continue must load what is there and go on with a valid history.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{Value, json};
use support::session::Sandbox;
use tooloop::message::markers::INTERRUPTED_TOOL;
use tooloop::message::{ContentBlock, Message, Role};
use tooloop::session::load;

const PROMPT: &str = "list the files here, read notes.txt and find files matching *.txt";

/// Starts a stream-json run and kills it (SIGKILL) at the first stdout line `at` accepts.
fn kill_when(sb: &Sandbox, at: impl Fn(&Value) -> bool) {
    let mut child = sb
        .cmd()
        .args([
            "--provider",
            "demo",
            "--output-format",
            "stream-json",
            "-p",
            PROMPT,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns");
    let stdout = child.stdout.take().expect("stdout");
    let mut killed = false;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("line");
        let v: Value = serde_json::from_str(&line).expect("json line");
        assert_ne!(
            v["type"], "result",
            "the run finished before the kill point"
        );
        if at(&v) {
            child.kill().expect("kill -9");
            killed = true;
            break;
        }
    }
    let status = child.wait().expect("waits");
    assert!(killed, "never reached the kill point");
    assert_eq!(status.code(), None, "killed by a signal, not exited");
}

fn continue_after_crash(sb: &Sandbox) -> Vec<Message> {
    let run = sb.demo("what time is it", &["--continue"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let messages = run.messages();
    assert!(
        messages[0].text().contains(PROMPT),
        "the crashed prompt is still there: {messages:?}"
    );
    let file = &sb.session_files()[0];
    let reloaded = load::read(file).expect("the transcript loads after resume");
    assert!(reloaded.notices.is_empty(), "{:?}", reloaded.notices);
    assert_eq!(reloaded.messages, messages);
    messages
}

#[test]
fn kill_9_while_the_model_streams_then_continue() {
    let sb = Sandbox::new();
    kill_when(&sb, |v| v["type"] == "tool_use");
    assert_eq!(sb.session_files().len(), 1);
    let messages = continue_after_crash(&sb);
    // Only the prompt had reached history; the next prompt merges into that user message.
    assert_eq!(messages[0].role, Role::User);
    assert!(
        messages[0].text().contains("what time is it"),
        "{messages:?}"
    );
}

#[test]
fn kill_9_once_tools_were_asked_for_then_continue() {
    let sb = Sandbox::new();
    kill_when(&sb, |v| {
        v["type"] == "message" && v["message"]["role"] == "assistant"
    });
    let messages = continue_after_crash(&sb);
    assert!(messages.len() >= 3, "{messages:?}");
    assert_eq!(messages[1].role, Role::Assistant);
    assert!(messages[1].tool_uses().count() >= 2, "{messages:?}");
}

#[test]
fn a_torn_last_line_is_dropped_and_the_session_goes_on() {
    let sb = Sandbox::new();
    let first = sb.demo("what time is it", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let file = sb.session_files()[0].clone();
    let before = std::fs::read(&file).expect("read");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(br#"{"type":"message","index":4,"message":{"role":"us"#))
        .expect("tear");
    let second = sb.demo("read notes.txt", &["--continue"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stderr.contains("dropped a partial line"),
        "headless says so on stderr: {}",
        second.stderr
    );
    let m2 = second.messages();
    assert_eq!(m2[..first.messages().len()], first.messages()[..]);
    let after = std::fs::read(&file).expect("read");
    assert_eq!(
        after[..before.len()],
        before[..],
        "the good part is kept byte for byte"
    );
    let reloaded = load::read(&file).expect("loads");
    assert!(reloaded.notices.is_empty(), "the torn bytes are gone");
    assert_eq!(reloaded.messages, m2);
}

#[test]
fn an_unanswered_tool_use_is_answered_as_interrupted() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.sessions_dir()).expect("dir");
    let workspace = tooloop::session::canonical_workspace(&sb.workspace);
    let records = [
        json!({"type":"header","id":"0badc0de","created":"2026-12-01T06:00:00Z",
               "workspace": workspace, "tooloop_version":"0.1.0","format":1}),
        json!({"type":"prompt_start","time":"2026-12-01T06:00:00Z","prompt":"list","model":"m"}),
        json!({"type":"message","index":0,"message":{"role":"user","content":[{"type":"text","text":"list the files here"}]}}),
        json!({"type":"message","index":1,"message":{"role":"assistant","content":[
            {"type":"text","text":"looking"},
            {"type":"tool_use","id":"toolu_a","name":"list_dir","input":{}},
            {"type":"tool_use","id":"toolu_b","name":"read_file","input":{"path":"notes.txt"}}]}}),
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    let file = sb.sessions_dir().join("20261201T060000Z-0badc0de.jsonl");
    std::fs::write(&file, text).expect("write");

    let run = sb.demo("what time is it", &["--resume", "0bad"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("answered as interrupted"),
        "{}",
        run.stderr
    );
    let messages = run.messages();
    assert_eq!(
        messages[2].content[..2],
        [
            ContentBlock::tool_result("toolu_a", INTERRUPTED_TOOL, true),
            ContentBlock::tool_result("toolu_b", INTERRUPTED_TOOL, true),
        ]
    );
    assert!(
        messages[2].text().contains("what time is it"),
        "the prompt merged in"
    );
    assert_eq!(load::read(&file).expect("loads").messages, messages);
}

#[test]
fn a_session_open_in_another_run_cannot_be_resumed() {
    let sb = Sandbox::new();
    let first = sb.demo("what time is it", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let file = std::fs::File::open(&sb.session_files()[0]).expect("open");
    file.lock().expect("lock like a running tooloop does");
    let run = sb.demo("again", &["--continue"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("is open in another tooloop"),
        "{}",
        run.stderr
    );
    file.unlock().expect("unlock");
    let run = sb.demo("what time is it", &["--continue"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
