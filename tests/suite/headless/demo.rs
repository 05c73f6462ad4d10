//! The offline demo model end to end through the real binary in headless mode.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::Value;
use tooloop::message::{Message, validate_history};

struct Run {
    lines: Vec<Value>,
    code: i32,
}

fn tooloop(dir: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tooloop"));
    for key in [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
        "TOOLOOP_LOG",
    ] {
        cmd.env_remove(key);
    }
    let home = dir.join("home");
    cmd.env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        // -p reads piped stdin as context: never the test runner's stdin.
        .stdin(std::process::Stdio::null())
        .current_dir(dir);
    cmd
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("notes.txt"),
        "first line of notes\nsecond\n",
    )
    .expect("write");
    std::fs::create_dir(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), "// TODO: something\n").expect("write");
    dir
}

fn run(dir: &std::path::Path, args: &[&str]) -> Run {
    let out = tooloop(dir).args(args).output().expect("run tooloop");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    Run {
        lines,
        code: out.status.code().unwrap_or(-1),
    }
}

fn of_type<'a>(lines: &'a [Value], t: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == t).collect()
}

fn history(result: &Value) -> Vec<Message> {
    serde_json::from_value(result["messages"].clone()).expect("messages parse")
}

#[test]
fn demo_runs_several_tools_in_one_reply_and_answers_from_their_results() {
    let dir = workspace();
    let r = run(
        dir.path(),
        &[
            "-p",
            "list files, read notes.txt and tell me the time",
            "--output-format",
            "stream-json",
        ],
    );
    assert_eq!(r.code, 0);
    for l in &r.lines {
        assert!(l["t_ms"].is_u64(), "every line has t_ms: {l}");
    }
    let uses = of_type(&r.lines, "tool_use");
    let names: Vec<&str> = uses.iter().filter_map(|u| u["name"].as_str()).collect();
    assert_eq!(names, vec!["list_dir", "read_file", "get_current_time"]);
    // Streaming execution: the first tool started before the model's stream ended.
    let first_start = of_type(&r.lines, "tool_start")[0]["t_ms"]
        .as_u64()
        .expect("t");
    let stream_end = of_type(&r.lines, "stream_end")[0]["t_ms"]
        .as_u64()
        .expect("t");
    assert!(first_start < stream_end, "{first_start} < {stream_end}");
    let result = r.lines.last().expect("lines");
    assert_eq!(result["type"], "result");
    assert_eq!(result["reason"], "completed");
    assert_eq!(result["turns"], 2);
    let h = history(result);
    validate_history(&h).expect("valid history");
    assert_eq!(h.len(), 4);
    let text = result["text"].as_str().expect("text");
    assert!(text.contains("offline demo model"), "{text}");
    assert!(text.contains("notes.txt"), "{text}");
}

#[test]
fn demo_without_a_match_explains_itself_and_json_output_prints_only_the_result() {
    let dir = workspace();
    let r = run(
        dir.path(),
        &["-p", "hello there", "--output-format", "json"],
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.lines.len(), 1);
    let text = r.lines[0]["text"].as_str().expect("text");
    assert!(
        text.contains("offline demo model") && text.contains("ANTHROPIC_API_KEY"),
        "{text}"
    );

    let out = tooloop(dir.path())
        .args(["-p", "hello"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("offline demo model"));
}

#[test]
fn sigint_aborts_the_turn_and_still_prints_the_result() {
    let dir = workspace();
    let mut child = tooloop(dir.path())
        .args([
            "-p",
            "list files and tell me the time",
            "--output-format",
            "stream-json",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = Vec::new();
    let mut reader = BufReader::new(stdout);
    let mut buf = String::new();
    let mut sent = false;
    while reader.read_line(&mut buf).expect("read") > 0 {
        let v: Value = serde_json::from_str(buf.trim()).expect("json line");
        if !sent && v["type"] == "text_delta" {
            let pid = nix::unistd::Pid::from_raw(child.id() as i32);
            nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("kill");
            sent = true;
        }
        lines.push(v);
        buf.clear();
    }
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(130));
    let result = lines.last().expect("lines");
    assert_eq!(result["type"], "result");
    assert_eq!(result["reason"], "aborted_streaming");
    let h = history(result);
    validate_history(&h).expect("valid");
    assert!(
        serde_json::to_string(&h)
            .expect("ser")
            .contains("[interrupted by user]")
    );
}

#[test]
fn bad_usage_exits_2() {
    let dir = workspace();
    let out = tooloop(dir.path())
        .args(["-p", "  "])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = tooloop(dir.path())
        .args(["-p", "x", "--workspace", "/nonexistent/dir"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
}
