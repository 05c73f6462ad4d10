//! The real TUI (tmux) against the mock Anthropic server, for what the offline demo model
//! cannot show: the approval box of file changes (a diff against what is on disk) and a
//! prompt whose request failed. Skipped (with a message) when tmux is not installed.

use crate::support;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;
use support::tmux::Tmux;
use support::*;

const DEADLINE: Duration = Duration::from_secs(30);
/// The approval box takes no answer for 400 ms after it opens.
const PAST_GUARD: Duration = Duration::from_millis(700);

pub(super) struct Screen {
    t: Tmux,
    _dir: tempfile::TempDir,
    workspace: PathBuf,
}

impl std::ops::Deref for Screen {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.t
    }
}

impl Screen {
    /// tooloop on the mock in a `w`×`h` pane, in a workspace holding `files`.
    pub(super) fn start(
        name: &str,
        w: u16,
        h: u16,
        server: &MockServer,
        files: &[(&str, &str)],
    ) -> Option<Screen> {
        if !support::tmux::available() {
            return None;
        }
        let dir = tempfile::tempdir().expect("dir");
        let home = dir.path().join("home");
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&workspace).expect("ws");
        for (path, text) in files {
            std::fs::write(workspace.join(path), text).expect("write");
        }
        let script = format!(
            "cd '{ws}' && '{bin}' --workspace '{ws}' --provider anthropic --base-url '{base}' \
             --model claude-mock --no-session; echo EXITED:\\$?; sleep 600",
            ws = workspace.display(),
            bin = env!("CARGO_BIN_EXE_tooloop"),
            base = server.anthropic_base(),
        );
        let command = format!(
            "env ANTHROPIC_API_KEY=sk-ant-tmux {} bash -c \"{script}\"",
            support::tmux::isolated_home(&home)
        );
        let t = Tmux::start(&format!("mock-{name}"), w, h, &command)
            .with_timing(DEADLINE, Duration::from_millis(100));
        Some(Screen {
            t,
            _dir: dir,
            workspace,
        })
    }
}

/// write_file over an existing file says it overwrites it and shows the diff against it;
/// edit_file shows its change with three lines of context, line numbers and indentation.
#[test]
fn file_changes_are_shown_as_diffs_against_the_file_at_80x24() {
    let server = MockServer::start();
    server.enqueue(tool_reply(&[(
        "toolu_w",
        "write_file",
        json!({"path": "notes.md", "content": "one\n二\nthree\nfour\n"}),
    )]));
    server.enqueue(tool_reply(&[(
        "toolu_e",
        "edit_file",
        json!({"path": "main.rs", "old_string": "step(5);", "new_string": "step(50);"}),
    )]));
    server.enqueue(text_reply("done"));
    let main: String = std::iter::once("fn main() {\n".to_string())
        .chain((1..=9).map(|i| format!("        step({i});\n")))
        .chain(std::iter::once("}\n".to_string()))
        .collect();
    let Some(s) = Screen::start(
        "diffs",
        80,
        24,
        &server,
        &[("notes.md", "one\ntwo\nthree\nfour\n"), ("main.rs", &main)],
    ) else {
        return;
    };
    s.wait_text("Ask something");
    s.send_line("tidy the notes");
    let asked = s.wait_text("allow write_file?");
    eprintln!("write_file over a file:\n{asked}");
    assert!(asked.contains("overwrites notes.md (4 lines)"), "{asked}");
    assert!(
        asked.contains("2 - two"),
        "the old line, numbered:\n{asked}"
    );
    assert!(asked.contains("2 + 二"), "the new line:\n{asked}");
    assert!(asked.contains("1   one"), "context:\n{asked}");
    std::thread::sleep(PAST_GUARD);
    s.keys(&["Enter"]);
    let asked = s.wait_text("allow edit_file?");
    eprintln!("edit_file:\n{asked}");
    // main.rs line 6 is `step(5);`: lines 3–5 and 7–9 are its context, with indentation.
    assert!(asked.contains("│6 -         step(5);"), "{asked}");
    assert!(asked.contains("│6 +         step(50);"), "{asked}");
    assert!(asked.contains("│3           step(2);"), "{asked}");
    assert!(asked.contains("│9           step(8);"), "{asked}");
    assert!(
        !asked.contains("step(1);") && !asked.contains("step(9);"),
        "{asked}"
    );
    std::thread::sleep(PAST_GUARD);
    s.keys(&["Enter"]);
    s.wait_for("the end", |x| {
        x.contains("done") && Tmux::status_line(x).contains("idle")
    });
    let notes = std::fs::read_to_string(s.workspace.join("notes.md")).expect("notes");
    assert_eq!(notes, "one\n二\nthree\nfour\n");
}

/// The user messages' texts of a request body, in order.
fn user_texts(body: &serde_json::Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            serde_json::Value::String(s) => s.clone(),
            blocks => blocks
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("|"),
        })
        .collect()
}

/// A prompt whose request failed (401, 404) is not sent again with the next one: it comes
/// back into the input, a new prompt takes its place, and Enter on it sends it once.
#[test]
fn a_failed_prompt_comes_back_to_the_input_and_is_not_sent_twice_at_80x24() {
    let server = MockServer::start();
    server.enqueue(Reply::error(404, "not_found_error", "model: claude-nope"));
    server.enqueue(Reply::error(
        401,
        "authentication_error",
        "invalid x-api-key",
    ));
    server.enqueue(text_reply("你好, first answer"));
    server.enqueue(text_reply("second answer"));
    let Some(s) = Screen::start("failed", 80, 24, &server, &[]) else {
        return;
    };
    s.wait_text("Ask something");
    s.send_line("hello 404");
    let screen = s.wait_for("the failure", |x| {
        x.contains("not sent") && Tmux::status_line(x).contains("idle")
    });
    eprintln!("after the 404:\n{screen}");
    // The failed text waits in the input; a different prompt replaces it.
    assert!(
        screen.lines().any(|l| l.trim() == "hello 404"),
        "the prompt is back in the input:\n{screen}"
    );
    s.keys(&["C-u"]);
    s.send_line("hello 401");
    s.wait_for("the second failure", |x| {
        x.matches("not sent").count() >= 1
            && x.lines().any(|l| l.trim() == "hello 401")
            && Tmux::status_line(x).contains("idle")
    });
    // Enter on the restored text sends it once.
    s.keys(&["Enter"]);
    s.wait_text("first answer");
    s.send_line("hi 你好");
    s.wait_for("the last answer", |x| {
        x.contains("second answer") && Tmux::status_line(x).contains("idle")
    });
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "{requests:?}");
    let sent: Vec<Vec<String>> = requests.iter().map(|r| user_texts(&r.body)).collect();
    assert_eq!(sent[0], vec!["hello 404"]);
    assert_eq!(
        sent[1],
        vec!["hello 401"],
        "the 404'd prompt is not sent again"
    );
    assert_eq!(sent[2], vec!["hello 401"], "resent once, by choice");
    assert_eq!(sent[3], vec!["hello 401", "hi 你好"]);
}

/// A stream that stalls mid-answer says so in the status after a few seconds and keeps
/// counting; Ctrl+C stops it and the next prompt is answered (issue #41 item 9).
#[test]
fn a_stalled_stream_says_how_long_it_has_been_silent_at_80x24() {
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("半句 then nothing").stall_after(4));
    server.enqueue(text_reply("after the stall"));
    let Some(s) = Screen::start("stall", 80, 24, &server, &[]) else {
        return;
    };
    s.wait_text("Ask something");
    s.send_line("hello");
    let first = s.wait_for("the stall", |x| {
        Tmux::status_line(x).contains("no data for")
    });
    eprintln!("stalled:\n{first}");
    let seconds = |x: &str| -> u64 {
        let line = Tmux::status_line(x);
        let after = &line[line.find("no data for ").expect("count") + 12..];
        after[..after.find('s').expect("s")]
            .parse()
            .expect("a number")
    };
    assert!(
        Tmux::status_line(&first).contains("Ctrl+C to stop"),
        "{first}"
    );
    let before = seconds(&first);
    let later = s.wait_for("the count to move", |x| {
        Tmux::status_line(x).contains("no data for") && seconds(x) > before
    });
    assert!(seconds(&later) > before);
    s.keys(&["C-c"]);
    s.wait_for("the abort", |x| Tmux::status_line(x).contains("idle"));
    s.send_line("again");
    s.wait_text("after the stall");
}
