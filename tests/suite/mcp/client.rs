//! MCP servers as tools, against the real fixture server (tests/support/mcp_fixture.rs, built
//! by `cargo test` as an example): stdio and streamable HTTP, safety from readOnlyHint,
//! errors, images, a crash mid-call with restarts, cancellation reaching the server, and
//! servers that fail to start.

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tooloop::mcp::McpManager;
use tooloop::mcp::config::{ServerConfig, Transport};
use tooloop::protocol::status::{ServerState, ServerStatus};
use tooloop::tools::{Effect, Tool, ToolContext, Workspace};

fn fixture() -> PathBuf {
    support::mcp_fixture()
}

fn stdio(name: &str, args: &[&str], log: Option<&PathBuf>) -> ServerConfig {
    let mut env = BTreeMap::new();
    if let Some(log) = log {
        env.insert("MCP_FIXTURE_LOG".to_string(), log.display().to_string());
    }
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio {
            command: fixture().display().to_string(),
            args: args.iter().map(|s| s.to_string()).collect(),
            env,
            cwd: None,
        },
        startup_timeout: Duration::from_secs(10),
        tool_timeout: Duration::from_secs(30),
        tools_allow: None,
        tools_deny: vec![],
        defer: Default::default(),
    }
}

struct Setup {
    manager: Arc<McpManager>,
    seen: Arc<Mutex<Vec<ServerStatus>>>,
    dir: tempfile::TempDir,
}

async fn start(configs: impl FnOnce(&std::path::Path) -> Vec<ServerConfig>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let manager = McpManager::start(
        configs(dir.path()),
        dir.path().to_path_buf(),
        Arc::new(|_: &str| None),
        Arc::new(move |s| sink.lock().unwrap().push(s)),
    );
    manager.wait_started().await;
    Setup { manager, seen, dir }
}

fn tool(setup: &Setup, name: &str) -> Arc<dyn Tool> {
    setup
        .manager
        .tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn ctx(setup: &Setup) -> ToolContext {
    ToolContext::for_workspace(Arc::new(Workspace::new(setup.dir.path(), false).unwrap()))
}

#[tokio::test]
async fn stdio_server_tools_join_with_their_safety_and_answer() {
    let s = start(|_| vec![stdio("fx", &[], None)]).await;
    let statuses = s.manager.statuses();
    assert_eq!(statuses[0].state, ServerState::Ready, "{statuses:?}");
    let names: Vec<String> = s
        .manager
        .tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "mcp__fx__crash",
            "mcp__fx__fail",
            "mcp__fx__grow",
            "mcp__fx__picture",
            "mcp__fx__slow_read",
            "mcp__fx__write_note"
        ]
    );
    assert_eq!(tool(&s, "mcp__fx__slow_read").effect(), Effect::ReadOnly);
    assert!(tool(&s, "mcp__fx__slow_read").is_concurrency_safe(&json!({})));
    assert_eq!(tool(&s, "mcp__fx__write_note").effect(), Effect::Exec);
    assert!(!tool(&s, "mcp__fx__write_note").is_concurrency_safe(&json!({})));

    let out = tool(&s, "mcp__fx__slow_read")
        .run(json!({"ms": 20}), ctx(&s))
        .await;
    assert_eq!(
        (out.content.as_str(), out.is_error),
        ("read after 20 ms", false)
    );
    let out = tool(&s, "mcp__fx__write_note")
        .run(json!({"text": "hi"}), ctx(&s))
        .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        std::fs::read_to_string(s.dir.path().join("note.txt")).unwrap(),
        "hi"
    );
    let out = tool(&s, "mcp__fx__fail").run(json!({}), ctx(&s)).await;
    assert_eq!(
        (out.content.as_str(), out.is_error),
        ("the tool failed on purpose", true)
    );
    let out = tool(&s, "mcp__fx__picture").run(json!({}), ctx(&s)).await;
    assert_eq!(out.content, "[image: image/png, 9 bytes]");
    // The states went starting → ready through the sink, as the front ends see them.
    let seen = s.seen.lock().unwrap().clone();
    assert_eq!(seen.last().unwrap().state, ServerState::Ready);
    assert_eq!(seen.last().unwrap().tools.len(), 6);
    s.manager.shutdown().await;
}

#[tokio::test]
async fn a_crash_mid_call_is_an_error_naming_the_server_then_it_restarts_at_most_3_times() {
    let s = start(|_| vec![stdio("fx", &[], None)]).await;
    let crash = tool(&s, "mcp__fx__crash");
    let read = tool(&s, "mcp__fx__slow_read");
    let out = crash.run(json!({}), ctx(&s)).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("MCP server fx crashed"),
        "{}",
        out.content
    );
    assert_eq!(s.manager.statuses()[0].state, ServerState::Failed);
    // The next call restarts it.
    let out = read.run(json!({"ms": 1}), ctx(&s)).await;
    assert_eq!(out.content, "read after 1 ms");
    assert_eq!(s.manager.statuses()[0].state, ServerState::Ready);
    // Two more crash-and-restart rounds use up the budget of 3 restarts.
    for _ in 0..2 {
        assert!(crash.run(json!({}), ctx(&s)).await.is_error);
        assert!(!read.run(json!({"ms": 1}), ctx(&s)).await.is_error);
    }
    assert!(crash.run(json!({}), ctx(&s)).await.is_error);
    let out = read.run(json!({"ms": 1}), ctx(&s)).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("not restarted again"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn cancelling_a_call_tells_the_server() {
    let log = tempfile::NamedTempFile::new().unwrap().path().to_path_buf();
    let log2 = log.clone();
    let s = start(move |_| vec![stdio("fx", &[], Some(&log2))]).await;
    let c = ctx(&s);
    let token = c.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel();
    });
    let started = std::time::Instant::now();
    let out = tool(&s, "mcp__fx__slow_read")
        .run(json!({"ms": 20_000}), c)
        .await;
    assert!(out.is_error);
    assert!(started.elapsed() < Duration::from_secs(5));
    // notifications/cancelled reaches the server, which stops the work.
    let mut text = String::new();
    for _ in 0..100 {
        text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("cancelled slow_read") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(text.contains("cancelled slow_read"), "server log:\n{text}");
}

#[tokio::test]
async fn servers_that_fail_to_start_are_reported_and_the_rest_work() {
    let s = start(|_| {
        let mut missing = stdio("missing", &[], None);
        missing.transport = Transport::Stdio {
            command: "/nonexistent/mcp-server".into(),
            args: vec![],
            env: BTreeMap::new(),
            cwd: None,
        };
        let mut slow = stdio("slow", &[], None);
        slow.transport = Transport::Stdio {
            command: "sleep".into(),
            args: vec!["30".into()],
            env: BTreeMap::new(),
            cwd: None,
        };
        slow.startup_timeout = Duration::from_millis(500);
        vec![
            missing,
            stdio("refuses", &["--fail-start"], None),
            slow,
            stdio("good", &[], None),
        ]
    })
    .await;
    let by_name = |n: &str| {
        s.manager
            .statuses()
            .into_iter()
            .find(|st| st.server == n)
            .unwrap()
    };
    assert_eq!(by_name("good").state, ServerState::Ready);
    for bad in ["missing", "refuses", "slow"] {
        let st = by_name(bad);
        assert_eq!(st.state, ServerState::Failed, "{st:?}");
        assert!(st.error.is_some());
    }
    assert!(
        by_name("missing")
            .error
            .unwrap()
            .contains("/nonexistent/mcp-server")
    );
    assert!(
        by_name("slow")
            .error
            .unwrap()
            .contains("did not start within")
    );
    assert_eq!(s.manager.tools().len(), 6, "only the good server's tools");
}

#[tokio::test]
async fn streamable_http_server() {
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("port");
    let mut child = tokio::process::Command::new(fixture())
        .arg("--http")
        .arg(&port_file)
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut port = String::new();
    for _ in 0..200 {
        port = std::fs::read_to_string(&port_file).unwrap_or_default();
        if !port.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(!port.is_empty(), "the HTTP fixture did not start");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let s = start(move |_| {
        vec![ServerConfig {
            name: "web".into(),
            transport: Transport::Http {
                url,
                headers: BTreeMap::from([("X-Test".to_string(), "${NOT_SET}yes".to_string())]),
            },
            startup_timeout: Duration::from_secs(10),
            tool_timeout: Duration::from_secs(30),
            tools_allow: Some(vec!["slow_read".into(), "fail".into()]),
            tools_deny: vec!["fail".into()],
            defer: Default::default(),
        }]
    })
    .await;
    let statuses = s.manager.statuses();
    assert_eq!(statuses[0].state, ServerState::Ready, "{statuses:?}");
    assert_eq!(statuses[0].tools, ["mcp__web__slow_read"]);
    let out = tool(&s, "mcp__web__slow_read")
        .run(json!({"ms": 5}), ctx(&s))
        .await;
    assert_eq!(out.content, "read after 5 ms");
    s.manager.shutdown().await;
    let _ = child.kill().await;
}
