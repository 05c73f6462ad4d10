//! MCP servers that misbehave (issue 39's bad input), end to end: the real binary, headless,
//! the fixture server and the Anthropic mock (which refuses what the API refuses). Each case
//! is a clear notice or tool error, and the session goes on.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::*;

const YOLO: &[&str] = &["--approval", "yolo"];

/// `[mcp]` with `mcp` and one `[mcp.servers.NAME]` per (name, env) pair, all the fixture.
fn config(dir: &Path, mcp: &str, servers: &[(&str, &str)]) -> PathBuf {
    let mut text = format!("[mcp]\n{mcp}\n");
    for (name, env) in servers {
        text.push_str(&format!(
            "[mcp.servers.{name}]\ncommand = {:?}\nenv = {{ {env} }}\n",
            mcp_fixture().display().to_string()
        ));
    }
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn notices(run: &Run) -> Vec<String> {
    run.of_type("notice")
        .iter()
        .filter_map(|n| n["text"].as_str().map(String::from))
        .collect()
}

fn tool_names(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

fn tool_end<'a>(run: &'a Run, name: &str) -> &'a Value {
    run.of_type("tool_end")
        .into_iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("no tool_end for {name}:\n{}", run.stdout))
}

#[test]
fn a_server_without_tools_and_a_non_object_schema_leave_the_rest_working() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "defer = false",
        &[
            ("empty", "MCP_FIXTURE_NO_TOOLS = \"1\""),
            ("fx", "MCP_FIXTURE_SCALAR = \"1\""),
        ],
    );
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "mcp__fx__slow_read", json!({"ms": 1}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
    let run = headless_with_config(&server, "go", &cfg, dir.path(), YOLO).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    // The API would refuse every request with `{"type": "string"}` in tools: left out.
    let requests = server.accepted();
    assert_eq!(requests.len(), 2, "no request refused");
    let names = tool_names(&requests[0]);
    assert!(
        names.contains(&"mcp__fx__slow_read".to_string()),
        "{names:?}"
    );
    assert!(!names.contains(&"mcp__fx__scalar".to_string()), "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with("mcp__empty__")));
    let notices = notices(&run);
    assert!(
        notices
            .iter()
            .any(|n| n.contains("mcp__fx__scalar") && n.contains("not an object")),
        "{notices:?}"
    );
    let ran = tool_end(&run, "mcp__fx__slow_read");
    assert_eq!(ran["is_error"], false, "{ran}");
    assert_valid_history(run.result());
}

#[test]
fn tool_names_that_collide_across_servers_keep_the_first_and_say_so() {
    // Both qualified names are cut to the API's 64 characters: mcp__ + the same 59.
    let long = "s".repeat(59);
    let (a, b) = (format!("{long}a"), format!("{long}b"));
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "defer = false",
        &[(a.as_str(), ""), (b.as_str(), "")],
    );
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
    let run = headless_with_config(&server, "go", &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let requests = server.accepted();
    assert_eq!(
        requests.len(),
        1,
        "no request refused (names must be unique)"
    );
    let mcp: Vec<_> = tool_names(&requests[0])
        .into_iter()
        .filter(|n| n.starts_with("mcp__"))
        .collect();
    assert_eq!(mcp.len(), 1, "one tool of the two: {mcp:?}");
    let notices = notices(&run);
    assert!(
        notices
            .iter()
            .any(|n| n.contains("left out") && n.contains("already registered")),
        "{notices:?}"
    );
    assert_valid_history(run.result());
}

#[test]
fn a_server_that_dies_between_search_and_call_is_a_tool_error() {
    let dir = tempfile::tempdir().unwrap();
    let once = dir.path().join("started-once");
    let env = format!(
        "MCP_FIXTURE_SYNTHETIC = \"150\", MCP_FIXTURE_ONCE = {:?}",
        once.display().to_string()
    );
    let cfg = config(dir.path(), "", &[("fx", env.as_str())]);
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_1",
                "tool_search",
                json!({"query": "jira create item"}),
            )
            .usage(10, 5)
            .build(),
    );
    // The server goes away (its process exits) after the search found the tool...
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_2", "mcp__fx__crash", json!({}))
            .usage(10, 5)
            .build(),
    );
    // ... and cannot come back (MCP_FIXTURE_ONCE) when the found tool is called.
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_3",
                "mcp__fx__jira_create_item",
                json!({"workspace": "OPS"}),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("sorry").usage(10, 5).build());
    let run = headless_with_config(&server, "file it", &cfg, dir.path(), YOLO).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(server.accepted().len(), 4, "the session went on");
    let search = tool_end(&run, "tool_search");
    assert_eq!(search["is_error"], false, "{search}");
    let call = tool_end(&run, "mcp__fx__jira_create_item");
    assert_eq!(call["is_error"], true, "{call}");
    let text = call["output"].as_str().unwrap_or("");
    assert!(
        text.contains("MCP server fx") && text.contains("restarted"),
        "names the server and what happened: {text}"
    );
    assert_valid_history(run.result());
}
