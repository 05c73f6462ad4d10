//! Rewind and fork through the real binary against the validating mock: a three-prompt
//! session that writes, edits and creates files; `tooloop rewind` puts the workspace back
//! byte for byte (and modes), cuts the conversation, and the next prompt is accepted; a
//! file changed by hand is a conflict and left alone; a fork leaves its parent untouched.

use crate::support;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};
use support::session::{Sandbox, session_id};
use support::{MockServer, text_reply, tool_reply};
use tooloop::message::{Message, validate_history};

fn anthropic(
    sb: &Sandbox,
    server: &MockServer,
    prompt: &str,
    extra: &[&str],
) -> support::session::Run {
    let base = server.anthropic_base();
    let out = sb
        .cmd()
        .env("ANTHROPIC_API_KEY", "test-key")
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &base,
            "--approval",
            "yolo",
        ])
        .args(["--output-format", "json", "-p", prompt])
        .args(extra)
        .output()
        .expect("runs");
    let run = support::session::Run::from(out);
    assert_eq!(run.code, 0, "{prompt}: {}", run.stderr);
    run
}

fn rewind(sb: &Sandbox, args: &[&str]) -> (i32, Value, String) {
    let out = sb.cmd().arg("rewind").args(args).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let line = stdout
        .lines()
        .last()
        .unwrap_or_else(|| panic!("no output: {stderr}"));
    let json = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    (out.status.code().unwrap_or(-1), json, stderr)
}

/// Every regular file under `dir` with its bytes and mode.
fn snapshot(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (Vec<u8>, u32)>) {
        for e in std::fs::read_dir(dir).expect("ls").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let mode = std::fs::metadata(&p).expect("meta").permissions().mode() & 0o7777;
                let rel = p.strip_prefix(root).expect("inside").display().to_string();
                out.insert(rel, (std::fs::read(&p).expect("read"), mode));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn strings(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|s| s.as_str().expect("string").to_string())
        .collect();
    out.sort();
    out
}

/// Prompt 1 creates a.txt and edits notes.txt; prompt 2 edits a.txt, creates sub/new.txt,
/// rewrites the executable run.sh and runs a bash command; prompt 3 edits notes.txt again
/// and creates c.txt. Returns the session id and the workspace before prompt 2.
fn three_prompts(sb: &Sandbox, server: &MockServer) -> (String, BTreeMap<String, (Vec<u8>, u32)>) {
    let script = sb.workspace.join("run.sh");
    std::fs::write(&script, "#!/bin/sh\necho old\n").expect("write");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    server.enqueue(tool_reply(&[
        (
            "toolu_1",
            "write_file",
            json!({"path": "a.txt", "content": "one\n"}),
        ),
        (
            "toolu_2",
            "edit_file",
            json!({"path": "notes.txt", "old_string": "hello", "new_string": "hello world"}),
        ),
    ]));
    server.enqueue(text_reply("made a.txt"));
    anthropic(sb, server, "prompt one", &[]);
    let before_two = snapshot(&sb.workspace);

    server.enqueue(tool_reply(&[
        (
            "toolu_3",
            "edit_file",
            json!({"path": "a.txt", "old_string": "one", "new_string": "two"}),
        ),
        (
            "toolu_4",
            "write_file",
            json!({"path": "sub/new.txt", "content": "new\n"}),
        ),
        (
            "toolu_5",
            "write_file",
            json!({"path": "run.sh", "content": "#!/bin/sh\necho new\n"}),
        ),
        (
            "toolu_6",
            "bash",
            json!({"command": "echo side effect > bash.txt"}),
        ),
    ]));
    server.enqueue(text_reply("changed things"));
    anthropic(sb, server, "prompt two", &["--continue"]);

    server.enqueue(tool_reply(&[
        (
            "toolu_7",
            "edit_file",
            json!({"path": "notes.txt", "old_string": "world", "new_string": "there"}),
        ),
        (
            "toolu_8",
            "write_file",
            json!({"path": "c.txt", "content": "c\n"}),
        ),
    ]));
    server.enqueue(text_reply("more changes"));
    anthropic(sb, server, "prompt three", &["--continue"]);
    let files = sb.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    (session_id(&files[0]), before_two)
}

#[test]
fn rewinding_to_prompt_two_restores_files_and_conversation() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    let (id, before_two) = three_prompts(&sb, &server);
    assert_ne!(snapshot(&sb.workspace), before_two);
    let transcript = sb.session_files().remove(0);
    let history_before = tooloop::session::load::read(&transcript).expect("loads");
    assert_eq!(history_before.prompts.len(), 3);
    let start_two = history_before.marks[1].start;

    let (code, out, stderr) = rewind(&sb, &["--session", &id, "--to", "2"]);
    assert_eq!(code, 0, "{out} {stderr}");
    assert_eq!(
        strings(&out["restored"]),
        vec!["a.txt", "notes.txt", "run.sh"]
    );
    assert_eq!(strings(&out["deleted"]), vec!["c.txt", "sub/new.txt"]);
    assert_eq!(strings(&out["conflicts"]), Vec::<String>::new());
    assert_eq!(out["conversation_truncated_to"], json!(start_two));
    assert!(
        stderr.contains("1 bash command ran after this point; its effects are not undone"),
        "{stderr}"
    );

    // Byte for byte and mode for mode, except what bash did (not undoable, and said so).
    let mut now = snapshot(&sb.workspace);
    assert!(now.remove("bash.txt").is_some(), "bash's file stays");
    assert_eq!(now, before_two);

    // The transcript: the cut messages are still in the file, the rewind is recorded, and
    // reading it back gives the cut history.
    let text = std::fs::read_to_string(&transcript).expect("read");
    assert!(text.contains("prompt three"), "audit trail kept");
    assert!(text.contains("\"type\":\"rewind\""), "{text}");
    let loaded = tooloop::session::load::read(&transcript).expect("loads");
    assert_eq!(loaded.messages.len(), start_two);
    assert_eq!(loaded.messages[..], history_before.messages[..start_two]);
    assert_eq!(loaded.prompts, vec!["prompt one".to_string()]);
    validate_history(&loaded.messages).expect("valid");

    // --continue goes on from the rewound point, and the validating mock takes it.
    server.enqueue(text_reply("fresh start"));
    let next = anthropic(&sb, &server, "prompt two again", &["--continue"]);
    let requests = server.requests();
    let last = requests.last().expect("a request");
    assert_eq!(last.rejected, None, "the mock accepts the rewound history");
    let sent: Vec<Message> =
        serde_json::from_value(last.body["messages"].clone()).expect("messages");
    assert_eq!(sent.len(), start_two + 1);
    assert_eq!(sent[..start_two], history_before.messages[..start_two]);
    assert_eq!(sent[start_two].text(), "prompt two again");
    assert_eq!(next.result()["reason"], "completed");

    // The list shows the new prompt as prompt 2; rewinding it again touches nothing.
    let (code, out, _) = rewind(&sb, &["--session", &id, "--to", "2", "--files"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["restored"], json!([]));
    assert_eq!(out["conversation_truncated_to"], Value::Null);
}

#[test]
fn a_file_changed_by_hand_is_a_conflict_and_left_alone() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    let (id, before_two) = three_prompts(&sb, &server);
    std::fs::write(sb.workspace.join("c.txt"), "the user's own words\n").expect("write");

    let (code, out, _) = rewind(&sb, &["--session", &id, "--to", "2", "--files"]);
    assert_eq!(code, 1, "conflicts exit 1: {out}");
    assert_eq!(strings(&out["conflicts"]), vec!["c.txt"]);
    assert_eq!(strings(&out["deleted"]), vec!["sub/new.txt"]);
    assert_eq!(out["conversation_truncated_to"], Value::Null);
    assert_eq!(
        std::fs::read_to_string(sb.workspace.join("c.txt")).expect("read"),
        "the user's own words\n"
    );
    let mut now = snapshot(&sb.workspace);
    now.remove("bash.txt");
    now.remove("c.txt");
    assert_eq!(now, before_two, "everything else is restored");
    // Files only: the conversation is whole.
    let loaded = tooloop::session::load::read(&sb.session_files()[0]).expect("loads");
    assert_eq!(loaded.prompts.len(), 3);

    // Confirmed, the conflict is overwritten (c.txt did not exist before prompt 2).
    let (code, out, _) = rewind(
        &sb,
        &[
            "--session",
            &id,
            "--to",
            "2",
            "--files",
            "--overwrite-conflicts",
        ],
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(strings(&out["deleted"]), vec!["c.txt"]);
    assert!(!sb.workspace.join("c.txt").exists());
}

#[test]
fn a_fork_leaves_its_parent_byte_identical() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    let (id, _) = three_prompts(&sb, &server);
    let parent = sb.session_files().remove(0);
    let parent_bytes = std::fs::read(&parent).expect("read");

    server.enqueue(text_reply("in the fork"));
    let run = anthropic(
        &sb,
        &server,
        "a new direction",
        &["--resume", &id, "--fork"],
    );
    assert_eq!(
        std::fs::read(&parent).expect("read"),
        parent_bytes,
        "parent untouched"
    );
    let files = sb.session_files();
    assert_eq!(files.len(), 2, "{files:?}");
    let child = files.into_iter().find(|f| *f != parent).expect("the fork");
    let child_id = session_id(&child);
    assert_ne!(child_id, id);
    let loaded = tooloop::session::load::read(&child).expect("loads");
    assert_eq!(loaded.header.forked_from.as_deref(), Some(id.as_str()));
    assert_eq!(loaded.prompts.len(), 4);
    let messages: Vec<Message> =
        serde_json::from_value(run.result()["messages"].clone()).expect("messages");
    assert_eq!(loaded.messages, messages);

    let list = sb.cmd().arg("sessions").output().expect("runs");
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(text.contains(&format!("(fork of {id})")), "{text}");

    // The fork has the parent's checkpoints: rewinding it puts files back, and the
    // parent's transcript still does not change.
    let (code, out, _) = rewind(&sb, &["--session", &child_id, "--to", "3"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(strings(&out["deleted"]), vec!["c.txt"]);
    assert_eq!(std::fs::read(&parent).expect("read"), parent_bytes);
}

#[test]
fn a_bad_prompt_number_is_an_error() {
    let sb = Sandbox::new();
    let server = MockServer::start();
    server.enqueue(text_reply("hi"));
    anthropic(&sb, &server, "only prompt", &[]);
    let id = session_id(&sb.session_files()[0]);
    for to in ["0", "2"] {
        let out = sb
            .cmd()
            .args(["rewind", "--session", &id, "--to", to])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("has 1 prompt; --to takes 1 to 1"), "{err}");
    }
}
