//! MCP servers from config.toml, end to end: the real binary, headless, against the mock
//! model and the real fixture server (tests/support/mcp_fixture.rs, stdio and HTTP).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use support::*;

/// A config with the fixture as server `fx` (its calls logged to `log`) and `extra`.
fn config(dir: &Path, log: &Path, extra: &str) -> PathBuf {
    let text = format!(
        "[mcp.servers.fx]\ncommand = {:?}\nenv = {{ MCP_FIXTURE_LOG = {:?} }}\n{extra}",
        mcp_fixture().display().to_string(),
        log.display().to_string(),
    );
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn tooloop(server: &MockServer, config: &Path, workspace: &Path, extra: &[&str]) -> Tooloop {
    headless_with_config(server, "use the server", config, workspace, extra)
}

fn answer(server: &MockServer, text: &str) {
    server.enqueue(ReplyBuilder::new().text(text).usage(10, 5).build());
}

fn tool_end<'a>(run: &'a Run, name: &str) -> &'a Value {
    run.of_type("tool_end")
        .into_iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("no tool_end for {name}:\n{}", run.stdout))
}

fn t(line: &Value) -> u64 {
    line["t_ms"].as_u64().unwrap()
}

#[test]
fn tools_are_offered_from_request_one_and_a_read_only_one_starts_mid_stream() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fx.log");
    let cfg = config(
        dir.path(),
        &log,
        &format!(
            "[mcp.servers.broken]\ncommand = {:?}\nargs = [\"--fail-start\"]\n",
            mcp_fixture().display().to_string()
        ),
    );
    let server = MockServer::start();
    // The stream goes on for ~600 ms after the tool_use block: the read-only tool (300 ms)
    // must start (and end) before the stream does.
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "mcp__fx__slow_read", json!({"ms": 300}))
            .text("reading meanwhile")
            .chunk(3)
            .usage(10, 5)
            .delay_ms(100)
            .build(),
    );
    answer(&server, "done");
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);

    // One mcp line per server, before the first request.
    let mcp = run.of_type("mcp");
    assert_eq!(mcp.len(), 2, "{}", run.stdout);
    let fx = mcp.iter().find(|l| l["server"] == "fx").unwrap();
    assert_eq!(fx["state"], "ready");
    let tools: Vec<&str> = fx["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tools.contains(&"mcp__fx__slow_read") && tools.contains(&"mcp__fx__write_note"));
    let broken = mcp.iter().find(|l| l["server"] == "broken").unwrap();
    assert_eq!(broken["state"], "failed");
    assert!(
        broken["error"].as_str().is_some_and(|e| e.len() > 3),
        "{broken}"
    );
    assert!(
        run.stderr.contains("MCP server broken failed"),
        "{}",
        run.stderr
    );
    let first_request = run.of_type("request_start")[0];
    assert!(mcp.iter().all(|l| t(l) <= t(first_request)));

    // Request 1 offers the server's tools with their schemas, next to the built-ins.
    let requests = server.accepted();
    let offered = requests[0].body["tools"].as_array().unwrap();
    let slow = offered
        .iter()
        .find(|t| t["name"] == "mcp__fx__slow_read")
        .expect("mcp tool offered in request 1");
    assert_eq!(slow["input_schema"]["properties"]["ms"]["type"], "integer");
    assert!(offered.iter().any(|t| t["name"] == "read_file"));

    // Read-only: started while the model was still streaming, and its result went back.
    let start = run
        .of_type("tool_start")
        .into_iter()
        .find(|l| l["name"] == "mcp__fx__slow_read")
        .unwrap();
    let stream_end = run.of_type("stream_end")[0];
    assert!(t(start) < t(stream_end), "{}", run.stdout);
    let end = tool_end(&run, "mcp__fx__slow_read");
    assert_eq!(end["is_error"], false);
    assert_eq!(end["output"], "read after 300 ms");
    assert!(requests[1].body_text.contains("read after 300 ms"));
    assert_valid_history(run.result());
}

#[test]
fn an_unsafe_tool_asks_and_allow_tool_takes_a_server_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fx.log");
    let cfg = config(dir.path(), &log, "");
    let write = || {
        ReplyBuilder::new()
            .tool_use("toolu_w", "mcp__fx__write_note", json!({"text": "hello"}))
            .usage(10, 5)
            .build()
    };

    // Headless `ask` means deny: the server is never called.
    let server = MockServer::start();
    server.enqueue(write());
    answer(&server, "ok");
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let perm = run.of_type("permission")[0];
    assert_eq!(perm["decision"], "deny");
    assert_eq!(tool_end(&run, "mcp__fx__write_note")["is_error"], true);
    assert!(!dir.path().join("note.txt").exists());
    assert_valid_history(run.result());

    // `--allow-tool 'mcp__fx__*'` allows every tool of that server.
    let server = MockServer::start();
    server.enqueue(write());
    answer(&server, "ok");
    let run = tooloop(&server, &cfg, dir.path(), &["--allow-tool", "mcp__fx__*"]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.of_type("permission")[0]["decision"], "allow");
    assert_eq!(tool_end(&run, "mcp__fx__write_note")["is_error"], false);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("note.txt")).unwrap(),
        "hello",
        "a stdio server runs in the workspace"
    );
}

#[test]
fn a_server_that_crashes_mid_call_gives_an_error_and_is_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fx.log");
    let cfg = config(dir.path(), &log, "");
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_c", "mcp__fx__crash", json!({}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_r", "mcp__fx__slow_read", json!({"ms": 10}))
            .usage(10, 5)
            .build(),
    );
    answer(&server, "recovered");
    let run = tooloop(
        &server,
        &cfg,
        dir.path(),
        &["--allow-tool", "mcp__fx__crash"],
    )
    .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let crash = tool_end(&run, "mcp__fx__crash");
    assert_eq!(crash["is_error"], true);
    assert!(crash["output"].as_str().unwrap().contains("fx"), "{crash}");
    assert!(
        run.of_type("mcp")
            .iter()
            .any(|l| l["server"] == "fx" && l["state"] == "failed"),
        "the crash is reported: {}",
        run.stdout
    );
    assert_eq!(
        tool_end(&run, "mcp__fx__slow_read")["output"],
        "read after 10 ms"
    );
    let starts = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| *l == "start")
        .count();
    assert_eq!(starts, 2, "started once, restarted once");
    assert_valid_history(run.result());
}

#[test]
fn sigint_cancels_a_running_mcp_call_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fx.log");
    let cfg = config(dir.path(), &log, "");
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_s", "mcp__fx__slow_read", json!({"ms": 20000}))
            .usage(10, 5)
            .build(),
    );
    let spawned = tooloop(&server, &cfg, dir.path(), &[]).spawn();
    wait_for_file_text(&log, "call slow_read", Duration::from_secs(20));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(spawned.pid() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let run = spawned.wait();
    assert_eq!(run.code, Some(130), "stderr:\n{}", run.stderr);
    assert_eq!(run.result()["reason"], "aborted_tools");
    let end = tool_end(&run, "mcp__fx__slow_read");
    assert_eq!(end["is_error"], true);
    assert!(end["output"].as_str().unwrap().contains("interrupted"));
    // notifications/cancelled reached the server.
    wait_for_file_text(&log, "cancelled slow_read", Duration::from_secs(5));
    assert_valid_history(run.result());
}

#[test]
fn a_streamable_http_server_works_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("port");
    let mut http = std::process::Command::new(mcp_fixture())
        .arg("--http")
        .arg(&port_file)
        .current_dir(dir.path())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let port = loop {
        if let Ok(p) = std::fs::read_to_string(&port_file)
            && !p.is_empty()
        {
            break p;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "HTTP fixture did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!("[mcp.servers.web]\nurl = \"http://127.0.0.1:{port}/mcp\"\n"),
    )
    .unwrap();
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_h", "mcp__web__slow_read", json!({"ms": 20}))
            .usage(10, 5)
            .build(),
    );
    answer(&server, "done");
    let run = tooloop(&server, &cfg, dir.path(), &[]).run();
    let _ = http.kill();
    let _ = http.wait();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.of_type("mcp")[0]["state"], "ready");
    assert_eq!(
        tool_end(&run, "mcp__web__slow_read")["output"],
        "read after 20 ms"
    );
    assert_valid_history(run.result());
}

#[test]
fn mcp_list_prints_each_server_and_exits_1_when_one_failed() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fx.log");
    let good = config(dir.path(), &log, "tools_deny = [\"crash\"]\n");
    let good = good.display().to_string();
    let run = Tooloop::new(&["--config", &good, "mcp", "list"])
        .workspace(dir.path())
        .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert!(run.stdout.contains("fx: ready, 5 tools"), "{}", run.stdout);
    assert!(
        !run.stdout.contains("mcp__fx__crash"),
        "tools_deny: {}",
        run.stdout
    );
    assert!(
        run.stdout.contains("  mcp__fx__slow_read"),
        "{}",
        run.stdout
    );

    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        format!(
            "[mcp.servers.broken]\ncommand = {:?}\nargs = [\"--fail-start\"]\n",
            mcp_fixture().display().to_string()
        ),
    )
    .unwrap();
    let bad = bad.display().to_string();
    let run = Tooloop::new(&["--config", &bad, "mcp", "list"])
        .workspace(dir.path())
        .run();
    assert_eq!(run.code, Some(1), "stdout:\n{}", run.stdout);
    assert!(run.stdout.contains("broken: failed"), "{}", run.stdout);
    assert!(
        run.stderr.contains("MCP server broken failed"),
        "{}",
        run.stderr
    );
}
