//! Subagents in the real binary against the validating mock Anthropic server: three `task`
//! calls side by side (their first requests before the parent's stream ends, results in
//! order, the parent's context growing by their final texts only), stream-json's agent
//! lines, an agent file with a restricted tool list, and SIGINT with children running shell
//! commands (valid histories, no process left).

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{MockServer, Recorded, Reply, ReplyBuilder, Tooloop, assert_valid_history};

/// The web page each child fetches: must reach the child, never the parent.
const FETCHED: &str = "PRIVATE-FETCHED-PAGE";

fn prompt_of(req: &Recorded) -> String {
    let first = &req.body["messages"][0]["content"];
    match first {
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

/// The parent's first reply: `task` blocks complete at the given ms, the stream ends at
/// `end_ms`. Each block's events go out together at its time.
fn parent_reply(tasks: &[(u64, Value)], end_ms: u64) -> Reply {
    let mut b = ReplyBuilder::new();
    for (i, (_, input)) in tasks.iter().enumerate() {
        b = b.tool_use(&format!("toolu_{}", i + 1), "task", input.clone());
    }
    let mut events = b.events();
    let mut prev = 0;
    let mut block = 0;
    for e in events.iter_mut() {
        let s = String::from_utf8_lossy(&e.bytes).to_string();
        let at = if s.starts_with("event: content_block_start") {
            let at = tasks[block].0;
            block += 1;
            Some(at)
        } else if s.starts_with("event: message_delta") {
            Some(end_ms)
        } else {
            None
        };
        if let Some(at) = at {
            *e = e.clone().after(Duration::from_millis(at - prev));
            prev = at;
        }
    }
    Reply::sse(events)
}

fn task_input(n: usize, agent: &str) -> Value {
    json!({"description": format!("look {n}"), "prompt": format!("child-{n}: look around"),
           "agent": agent})
}

fn run_headless(
    server: &MockServer,
    args: &[&str],
    workspace: Option<&std::path::Path>,
) -> support::Run {
    let base = server.anthropic_base();
    let mut all = vec![
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
        "--no-session",
    ];
    all.extend_from_slice(args);
    let mut t = Tooloop::new(&all).env("ANTHROPIC_API_KEY", "test-key");
    if let Some(w) = workspace {
        t = t.workspace(w);
    }
    t.run()
}

#[test]
fn three_children_side_by_side_over_http() {
    let server = MockServer::start();
    // The children's pages: any GET ending in /slow, answered after 1 s.
    server.add_route(support::Route {
        suffix: "/slow",
        validate: |_| Ok(()),
    });
    let url = server.url();
    server.respond_with(move |req| {
        if req.path.ends_with("/slow") {
            return Reply::status(200, FETCHED).head_delay(Duration::from_secs(1));
        }
        let prompt = prompt_of(req);
        if let Some(rest) = prompt.strip_prefix("child-") {
            let n = &rest[..1];
            return match turn_of(req) {
                1 => ReplyBuilder::new()
                    .tool_use(
                        "toolu_c",
                        "web_fetch",
                        json!({"url": format!("{url}/{n}/slow")}),
                    )
                    .build(),
                _ => ReplyBuilder::new()
                    .text(&format!("report {n}: src/lib.rs:{n}"))
                    .build(),
            };
        }
        match turn_of(req) {
            1 => parent_reply(
                &[
                    (200, task_input(1, "explore")),
                    (500, task_input(2, "explore")),
                    (800, task_input(3, "explore")),
                ],
                1200,
            ),
            _ => ReplyBuilder::new().text("all three reported").build(),
        }
    });
    let run = run_headless(&server, &["-p", "explore three things"], None);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let result = run.result();
    assert_valid_history(result);
    let refused: Vec<(String, String)> = server
        .requests()
        .iter()
        .filter_map(|r| r.rejected.clone().map(|e| (r.path.clone(), e)))
        .collect();
    assert!(refused.is_empty(), "the mock refused: {refused:?}");

    // Requests: the children's first ones arrive while the parent's reply still streams.
    let messages: Vec<Recorded> = server
        .accepted()
        .into_iter()
        .filter(|r| r.path.ends_with("/v1/messages"))
        .collect();
    assert_eq!(messages.len(), 8);
    let parent_first = &messages[0];
    let child_first: Vec<&Recorded> = messages
        .iter()
        .filter(|r| prompt_of(r).starts_with("child-") && turn_of(r) == 1)
        .collect();
    assert_eq!(child_first.len(), 3);
    for c in &child_first {
        let after = c.received.duration_since(parent_first.received);
        assert!(
            after < Duration::from_millis(1150),
            "a child's first request came {after:?} after the parent's, after its stream ended"
        );
    }

    // Wall time against the physical limit (the last block at 800 ms + its child's 1 s
    // fetch; the children's own streams are immediate): printed for BENCHMARKS.md, not
    // asserted (a loaded machine stretches it).
    let follow = messages
        .iter()
        .find(|r| !prompt_of(r).starts_with("child-") && turn_of(r) == 3)
        .map(|r| r.received.duration_since(parent_first.received))
        .expect("follow-up");
    eprintln!(
        "subagents over HTTP (debug build): follow-up after {:.1} ms, limit 1800 ms, ratio {:.4}",
        follow.as_secs_f64() * 1e3,
        follow.as_secs_f64() * 1e3 / 1800.0
    );
    // The parent's second request: three tool_results in order, the children's reports.
    let parent_second = messages
        .iter()
        .find(|r| !prompt_of(r).starts_with("child-") && turn_of(r) == 3)
        .expect("the parent's follow-up");
    let results = parent_second.body["messages"][2]["content"]
        .as_array()
        .expect("results")
        .clone();
    let ids: Vec<&str> = results
        .iter()
        .filter_map(|b| b["tool_use_id"].as_str())
        .collect();
    assert_eq!(ids, ["toolu_1", "toolu_2", "toolu_3"]);
    for (i, r) in results.iter().enumerate() {
        let text = r["content"].as_str().expect("text");
        let n = i + 1;
        assert!(
            text.starts_with(&format!(
                "report {n}: src/lib.rs:{n}\n(agent explore · 2 turns · 1 tools · "
            )),
            "{text}"
        );
        assert_ne!(r["is_error"], true);
    }
    // The children's fetched pages stayed with them.
    assert!(!parent_second.body_text.contains(FETCHED));
    let child_second: Vec<&Recorded> = messages
        .iter()
        .filter(|r| prompt_of(r).starts_with("child-") && turn_of(r) == 3)
        .collect();
    assert!(child_second.iter().all(|r| r.body_text.contains(FETCHED)));
    // Measured without the cache breakpoints, which move to the newest messages.
    let plain = |v: &Value| strip_cache_control(v.clone());
    let first = plain(&parent_first.body["messages"]);
    let second = plain(&parent_second.body["messages"]);
    assert_eq!(first[0], second[0]);
    let growth = second.to_string().len() - first.to_string().len();
    let added = second[1].to_string().len() + second[2].to_string().len();
    assert_eq!(growth, added + 2, "the reply and the results, nothing else");
    // The children are offered no task tool (depth 1); the parent is.
    let tools = |r: &Recorded| -> Vec<String> {
        r.body["tools"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(tools(parent_first).contains(&"task".to_string()));
    for c in &child_first {
        let t = tools(c);
        assert!(!t.contains(&"task".to_string()), "{t:?}");
        assert!(
            !t.contains(&"bash".to_string()),
            "explore is read-only: {t:?}"
        );
        assert!(t.contains(&"web_fetch".to_string()));
    }

    // stream-json: agent_start / agent_end, child lines tagged, result.agents.
    let starts = run.of_type("agent_start");
    assert_eq!(starts.len(), 3);
    let mut started: Vec<(String, String)> = starts
        .iter()
        .map(|s| {
            assert_eq!(s["agent"], "explore");
            (
                s["agent_id"].as_str().unwrap().into(),
                s["parent_tool_use_id"].as_str().unwrap().into(),
            )
        })
        .collect();
    started.sort();
    assert_eq!(
        started,
        vec![
            ("a1".into(), "toolu_1".into()),
            ("a2".into(), "toolu_2".into()),
            ("a3".into(), "toolu_3".into())
        ]
    );
    let child_tools: Vec<&Value> = run
        .lines
        .iter()
        .filter(|l| l["type"] == "tool_end" && l["name"] == "web_fetch")
        .collect();
    assert_eq!(child_tools.len(), 3);
    for l in &child_tools {
        assert!(
            l["agent_id"].as_str().is_some_and(|a| a.starts_with('a')),
            "{l}"
        );
        assert!(
            l["parent_tool_use_id"]
                .as_str()
                .is_some_and(|a| a.starts_with("toolu_"))
        );
    }
    let ends = run.of_type("agent_end");
    assert_eq!(ends.len(), 3);
    for e in &ends {
        assert_eq!(e["reason"], "completed");
        assert_eq!(e["turns"], 2);
        assert!(e["duration_ms"].as_u64().unwrap() >= 1000);
        assert!(e["usage"]["input_tokens"].as_u64().is_some());
    }
    let agents = result["agents"].as_array().expect("result.agents");
    assert_eq!(agents.len(), 3);
    // Usage adds up: 2 parent requests and 6 child requests of 10 input tokens each.
    assert_eq!(result["usage"]["input_tokens"], 80);
    // The parent's own lines carry no agent_id.
    assert!(
        run.of_type("turn_start")
            .iter()
            .filter(|l| l["agent_id"].is_null())
            .count()
            == 2
    );
}

#[test]
fn an_agent_file_with_a_tool_list_gets_only_those_tools() {
    let server = MockServer::start();
    let ws = tempfile::tempdir().expect("workspace");
    let dir = ws.path().join(".tooloop/agents");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews a diff for bugs. Use after editing code.\n\
         tools: read_file, grep   # only these\nmax_turns: 20\n---\nYou review diffs.\n",
    )
    .expect("agent file");
    std::fs::write(
        dir.join("broken.md"),
        "---\nname: broken\ncolour: red\n---\nx\n",
    )
    .expect("bad file");
    server.respond_with(|req| {
        if prompt_of(req).starts_with("child-") {
            return ReplyBuilder::new().text("looks fine").build();
        }
        match turn_of(req) {
            1 => ReplyBuilder::new()
                .tool_use("toolu_1", "task", task_input(1, "reviewer"))
                .build(),
            _ => ReplyBuilder::new().text("reviewed").build(),
        }
    });
    let run = run_headless(&server, &["-p", "review"], Some(ws.path()));
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let reqs = server.accepted();
    let child = reqs
        .iter()
        .find(|r| prompt_of(r).starts_with("child-"))
        .expect("child request");
    let names: Vec<&str> = child.body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["grep", "read_file"]);
    let system = child.body["system"].to_string();
    assert!(system.contains("You review diffs."), "{system}");
    // The parent's task tool lists every agent with its description.
    let parent_task = reqs[0].body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "task")
        .expect("task tool")
        .clone();
    let description = parent_task["description"].as_str().expect("description");
    for line in [
        "- reviewer: Reviews a diff for bugs. Use after editing code.",
        "- general: ",
        "- explore: ",
    ] {
        assert!(description.contains(line), "{description}");
    }
    // The broken file is a notice naming its line, and the run goes on.
    let notices: Vec<String> = run
        .of_type("notice")
        .iter()
        .filter_map(|n| n["text"].as_str().map(String::from))
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("broken.md:3: unknown key `colour`")),
        "{notices:?}"
    );
    assert_eq!(run.result()["agents"][0]["agent"], "reviewer");
}

/// Live (non-zombie) processes running `sleep 47.25`.
fn sleeps_running() -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.flatten()
        .filter(|e| {
            let p = e.path();
            let cmd = std::fs::read(p.join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(p.join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            !zombie && cmd == b"sleep\x0047.25\x00"
        })
        .count()
}

/// SIGINT at several moments while children run shell commands: exit 130, every history
/// valid (the parent's and each child's, rebuilt from its message lines), every task an
/// is_error result, and no `sleep` left behind.
#[test]
fn sigint_with_children_running_leaves_valid_histories_and_no_processes() {
    for delay_ms in [0u64, 150, 400, 900, 1500] {
        let server = MockServer::start();
        server.respond_with(|req| {
            if prompt_of(req).starts_with("child-") {
                return match turn_of(req) {
                    1 => ReplyBuilder::new()
                        .text("running it")
                        .tool_use(
                            "toolu_c",
                            "bash",
                            json!({"command": "echo go; sleep 47.25"}),
                        )
                        .build(),
                    _ => ReplyBuilder::new().text("done").build(),
                };
            }
            match turn_of(req) {
                1 => parent_reply(
                    &[
                        (50, task_input(1, "general")),
                        (150, task_input(2, "general")),
                        (250, task_input(3, "general")),
                    ],
                    600,
                ),
                _ => ReplyBuilder::new().text("all done").build(),
            }
        });
        let base = server.anthropic_base();
        let home = tempfile::tempdir().expect("home");
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tooloop"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("c"))
            .env("XDG_DATA_HOME", home.path().join("d"))
            .env("XDG_STATE_HOME", home.path().join("s"))
            .env("ANTHROPIC_API_KEY", "test-key")
            .current_dir(home.path())
            .args([
                "--provider",
                "anthropic",
                "--base-url",
                &base,
                "--approval",
                "yolo",
                "--sandbox",
                "off",
                "--no-session",
                "--output-format",
                "stream-json",
                "-p",
                "run three",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        let stdout = child.stdout.take().expect("stdout");
        let mut lines: Vec<Value> = Vec::new();
        let mut first_start: Option<Instant> = None;
        let mut sent = false;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            match rx.recv_timeout(Duration::from_millis(5)) {
                Ok(line) => {
                    let v: Value = serde_json::from_str(&line).expect("json line");
                    // The clock starts when the first child starts.
                    if v["type"] == "agent_start" && first_start.is_none() {
                        first_start = Some(Instant::now());
                    }
                    lines.push(v);
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(_) => {}
            }
            let due = first_start.is_some_and(|t| t.elapsed() >= Duration::from_millis(delay_ms));
            if due && !sent {
                nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT");
                sent = true;
            }
            assert!(Instant::now() < deadline, "no exit: {lines:?}");
        }
        let code = child.wait().expect("wait").code();
        assert!(sent, "at {delay_ms}: never interrupted: {lines:?}");
        assert_eq!(code, Some(130), "at {delay_ms}: {lines:?}");
        let result = lines.last().expect("result");
        assert!(
            result["reason"].as_str().unwrap().starts_with("aborted"),
            "{result}"
        );
        assert_valid_history(result);
        // Each child's history, rebuilt from its message lines, is valid too.
        let mut children: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
        for l in lines
            .iter()
            .filter(|l| l["type"] == "message" && l["agent_id"].is_string())
        {
            let h = children
                .entry(l["agent_id"].as_str().unwrap().into())
                .or_default();
            // A message line with the index of one already seen replaces it (a user
            // message extended by the interruption marker).
            let i = l["index"].as_u64().expect("index") as usize;
            h.truncate(i);
            h.push(l["message"].clone());
        }
        for (id, h) in &children {
            let msgs: Vec<tooloop::message::Message> =
                serde_json::from_value(Value::Array(h.clone())).expect("messages");
            tooloop::message::validate_history(&msgs)
                .unwrap_or_else(|e| panic!("at {delay_ms}: {id}: {e}"));
        }
        // Every task the parent asked for is answered with an error.
        let msgs = result["messages"].as_array().expect("messages");
        if msgs.len() > 2 {
            for b in msgs[2]["content"].as_array().expect("content") {
                if b["type"] == "tool_result" {
                    assert_eq!(b["is_error"], true, "at {delay_ms}: {b}");
                }
            }
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        while sleeps_running() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(sleeps_running(), 0, "at {delay_ms}: orphan processes");
    }
}

fn strip_cache_control(mut v: Value) -> Value {
    match &mut v {
        Value::Object(map) => {
            map.remove("cache_control");
            for x in map.values_mut() {
                *x = strip_cache_control(x.take());
            }
        }
        Value::Array(a) => {
            for x in a.iter_mut() {
                *x = strip_cache_control(x.take());
            }
        }
        _ => {}
    }
    v
}

/// The transcript keeps each child's history beside the parent's: it loads back, every
/// child's history is valid, and `tooloop export` shows it under its task call.
#[test]
fn transcripts_keep_each_childs_history_and_export_shows_it() {
    let server = MockServer::start();
    server.respond_with(|req| {
        if prompt_of(req).starts_with("child-") {
            return match turn_of(req) {
                1 => ReplyBuilder::new()
                    .tool_use("toolu_c", "get_current_time", json!({}))
                    .build(),
                _ => ReplyBuilder::new().text("CHILD-FINAL-REPORT").build(),
            };
        }
        match turn_of(req) {
            1 => ReplyBuilder::new()
                .tool_use("toolu_1", "task", task_input(1, "explore"))
                .tool_use("toolu_2", "task", task_input(2, "general"))
                .build(),
            _ => ReplyBuilder::new().text("parent done").build(),
        }
    });
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
        "-p",
        "two jobs",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .run();
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let sessions = run.home.path().join(".local/share/tooloop/sessions");
    let transcript = walk(&sessions)
        .into_iter()
        .find(|p| {
            p.extension().is_some_and(|e| e == "jsonl") && !p.to_string_lossy().contains("record")
        })
        .expect("a transcript");
    let loaded = tooloop::session::load::read(&transcript).expect("loads");
    assert_eq!(loaded.agents.len(), 2);
    for child in &loaded.agents {
        tooloop::message::validate_history(&child.messages).expect("valid child history");
        assert_eq!(child.messages.len(), 4, "prompt, call, result, answer");
        assert!(child.messages[3].text().contains("CHILD-FINAL-REPORT"));
    }
    let mut calls: Vec<&str> = loaded
        .agents
        .iter()
        .map(|a| a.parent_tool_use_id.as_str())
        .collect();
    calls.sort();
    assert_eq!(calls, ["toolu_1", "toolu_2"]);
    tooloop::message::validate_history(&loaded.messages).expect("valid parent history");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tooloop"))
        .env("HOME", run.home.path())
        .env("XDG_CONFIG_HOME", run.home.path().join(".config"))
        .env("XDG_DATA_HOME", run.home.path().join(".local/share"))
        .env("XDG_STATE_HOME", run.home.path().join(".local/state"))
        .args(["export", &transcript.to_string_lossy(), "--format", "md"])
        .output()
        .expect("export");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{md}");
    assert_eq!(
        md.matches("its conversation (4 messages)").count(),
        2,
        "{md}"
    );
    assert!(md.contains("child-1: look around"));
    assert!(md.contains("🔧 get_current_time"));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}
