//! Recordings made by an earlier tooloop still load and replay. The files under
//! tests/fixtures/recordings/ were written by `--record` runs of the binary as it was before
//! the event vocabulary became one serde type (subagents and their tools, a retry after a
//! refused request, thinking, todos, a shell with live output, a denied call, hooks, a
//! background job, plan mode): each still reads without a skipped line, every line
//! re-serializes to the JSON it was written as, and `tooloop replay -p` prints the very
//! stream-json lines the original run printed (saved beside it as NAME.stream.jsonl).
//!
//! `cargo test --test all suite::session::recording_compat::make_fixtures -- --ignored`
//! writes them again — only worth doing for a new format version, since the point is that
//! they are old.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::*;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recordings")
}

fn names() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(fixtures())
        .expect("fixtures dir")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".record").map(str::to_string)
        })
        .collect();
    out.sort();
    out
}

/// The stream-json lines without their times.
fn untimed(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|mut v| {
            if let Value::Object(m) = &mut v {
                m.remove("t_ms");
            }
            v
        })
        .collect()
}

#[test]
fn every_old_line_loads_and_writes_back_the_same() {
    let names = names();
    assert!(names.len() >= 3, "fixtures missing: {names:?}");
    let mut types = std::collections::BTreeSet::new();
    for name in &names {
        let path = fixtures().join(format!("{name}.record"));
        let rec = tooloop::recording::read(&path).expect("reads");
        assert_eq!(rec.skipped, 0, "{name}: lines skipped");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rec.entries.len(), lines.len(), "{name}");
        for (entry, old) in rec.entries.iter().zip(&lines) {
            types.insert(old["type"].as_str().unwrap_or("").to_string());
            if old["type"] == "subagent" {
                types.insert(format!(
                    "subagent/{}",
                    old["event"]["type"].as_str().unwrap()
                ));
            }
            // A subagent's raw wire event once carried `req_ms` inside, timed from the
            // parent's request (the one field no reader used): now the line carries it,
            // for the subagent's own events too.
            let mut old = old.clone();
            if let Some(inner) = old.get_mut("event").and_then(Value::as_object_mut)
                && inner.get("type") == Some(&json!("sse"))
            {
                inner.remove("req_ms");
            }
            let again = serde_json::to_value(entry).expect("serializes");
            assert_eq!(again, old, "{name}: a line changed shape");
        }
        // Replays see every recorded event (the header is not one).
        let events = tooloop::recording::timeline::timeline(&rec.entries);
        assert_eq!(events.len() + header_count(&lines), lines.len(), "{name}");
    }
    for needed in [
        "header",
        "prompt_start",
        "request",
        "request_failed",
        "retry",
        "sse",
        "text_delta",
        "thinking_delta",
        "tool_use_streaming",
        "tool_use",
        "permission",
        "tool_start",
        "tool_progress",
        "tool_end",
        "message",
        "usage",
        "context",
        "todos",
        "hook_start",
        "hook_end",
        "background",
        "plan_ready",
        "agent_start",
        "agent_end",
        "subagent/tool_use",
        "subagent/tool_end",
        "subagent/request",
        "done",
    ] {
        assert!(types.contains(needed), "no fixture has {needed}: {types:?}");
    }
}

fn header_count(lines: &[Value]) -> usize {
    lines.iter().filter(|l| l["type"] == "header").count()
}

#[test]
fn old_recordings_replay_the_lines_their_run_printed() {
    for name in names() {
        let path = fixtures().join(format!("{name}.record"));
        let p = path.to_string_lossy().into_owned();
        let run = Tooloop::new(&[
            "replay",
            &p,
            "-p",
            "--output-format",
            "stream-json",
            "--speed",
            "1000",
        ])
        .run();
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
        let printed = std::fs::read_to_string(fixtures().join(format!("{name}.stream.jsonl")))
            .expect("saved stream");
        let want = untimed(&printed);
        let got = untimed(&run.stdout);
        // The result line carries the history the agent held, which a replay rebuilds from
        // the recorded messages: compared apart, on what a replay knows. (A background job
        // ended by the run's end is printed after the result by a replay: order aside.)
        let (want_result, want): (Vec<Value>, Vec<Value>) =
            want.into_iter().partition(|l| l["type"] == "result");
        let (got_result, got): (Vec<Value>, Vec<Value>) =
            got.into_iter().partition(|l| l["type"] == "result");
        // Byte for byte, key order included (stream-json is a contract, CLI.md).
        let text = |v: &[Value]| v.iter().map(Value::to_string).collect::<Vec<_>>();
        assert_eq!(
            text(&got),
            text(&want),
            "{name}: replay printed other lines"
        );
        assert_eq!(got_result.len(), 1, "{name}: one result line");
        for key in ["reason", "turns", "usage", "text"] {
            assert_eq!(
                got_result[0][key], want_result[0][key],
                "{name}: result.{key}"
            );
        }
    }
}

// ---- writing the fixtures (see the top of the file) ----

fn save(name: &str, run: &Run) {
    let rec = find(run.home.path(), ".record").pop().expect("a recording");
    let dir = fixtures();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&rec, dir.join(format!("{name}.record"))).unwrap();
    std::fs::write(dir.join(format!("{name}.stream.jsonl")), &run.stdout).unwrap();
}

fn find(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(find(&p, suffix));
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(p);
        }
    }
    out
}

fn headless(server: &MockServer, prompt: &str, extra: &[&str]) -> Tooloop {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        prompt,
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-mock",
        "--output-format",
        "stream-json",
        "--record",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args).env("ANTHROPIC_API_KEY", "sk-ant-fixture-key")
}

fn first_prompt(req: &Recorded) -> String {
    match &req.body["messages"][0]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

fn turn_of(req: &Recorded) -> usize {
    req.body["messages"].as_array().map_or(0, Vec::len)
}

#[test]
#[ignore = "writes tests/fixtures/recordings (run by hand for a new format version)"]
fn make_fixtures() {
    // Two subagents, each calling a tool of its own.
    let server = MockServer::start();
    server.respond_with(|req| {
        let prompt = first_prompt(req);
        if let Some(rest) = prompt.strip_prefix("child-") {
            let n = &rest[..1];
            let tool = if n == "1" {
                "list_dir"
            } else {
                "get_current_time"
            };
            return match turn_of(req) {
                1 => ReplyBuilder::new()
                    .tool_use(&format!("toolu_c{n}"), tool, json!({}))
                    .usage(20, 5)
                    .build(),
                _ => ReplyBuilder::new()
                    .text(&format!("report {n}"))
                    .usage(30, 5)
                    .build(),
            };
        }
        match turn_of(req) {
            1 => ReplyBuilder::new()
                .text("Asking two helpers.")
                .tool_use(
                    "toolu_1",
                    "task",
                    json!({"description": "look 1", "prompt": "child-1: list", "agent": "explore"}),
                )
                .tool_use(
                    "toolu_2",
                    "task",
                    json!({"description": "look 2", "prompt": "child-2: time", "agent": "explore"}),
                )
                .usage(50, 20)
                .build(),
            _ => ReplyBuilder::new()
                .text("both reported")
                .usage(80, 5)
                .build(),
        }
    });
    let run = headless(&server, "ask two helpers", &[]).run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    save("subagents", &run);

    // A refused request and its retry, thinking, todos, a shell call with live output and a
    // pre_tool_use hook, a denied write, a background job.
    let server = MockServer::start();
    server.enqueue(overloaded().header("retry-after-ms", "20"));
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Plan the work first.")
            .text("Working.")
            .tool_use(
                "toolu_t",
                "todo_write",
                json!({"todos": [{"content": "读代码", "status": "in_progress"},
                                 {"content": "ship", "status": "pending"}]}),
            )
            .tool_use(
                "toolu_b",
                "bash",
                json!({"command": "echo one; sleep 0.2; echo two"}),
            )
            .tool_use(
                "toolu_w",
                "write_file",
                json!({"path": "x.txt", "content": "x"}),
            )
            .tool_use(
                "toolu_bg",
                "bash",
                json!({"command": "sleep 0.3; echo bg", "run_in_background": true}),
            )
            .usage(100, 40)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("All done.").usage(160, 5).build());
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        "[[hooks.pre_tool_use]]\nmatcher = \"bash\"\ncommand = \"cat > /dev/null\"\n",
    )
    .unwrap();
    let cfg = cfg.display().to_string();
    let run = headless(
        &server,
        "do the work",
        &[
            "--allow-tool",
            "bash",
            "--thinking",
            "2048",
            "--config",
            &cfg,
        ],
    )
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    save("kitchen", &run);

    // Plan mode: the model hands a plan over.
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .text("Here is the plan.")
            .tool_use(
                "toolu_p",
                "exit_plan_mode",
                json!({"plan": "1. read\n2. change"}),
            )
            .usage(30, 10)
            .build(),
    );
    let run = headless(&server, "plan it", &["--approval", "plan"]).run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    save("plan", &run);
}
