//! `notifications/tools/list_changed` mid-session (issue 39): the fixture's `grow` adds a
//! tool and notifies; the next request offers it, and the model can call it.

use crate::support;

use serde_json::json;
use support::*;

fn names(r: &Recorded) -> Vec<String> {
    r.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

/// A config.toml in `dir` connecting the fixture server as `fx`.
fn fixture_config(dir: &std::path::Path) -> std::path::PathBuf {
    let cfg = dir.join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "[mcp.servers.fx]\ncommand = {:?}\n",
            mcp_fixture().display().to_string()
        ),
    )
    .unwrap();
    cfg
}

#[test]
fn a_server_that_changes_its_tools_is_listed_again_before_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fixture_config(dir.path());
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "mcp__fx__grow", json!({}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_2", "mcp__fx__grown", json!({}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let run = headless_with_config(&server, "grow", &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let requests = server.accepted();
    assert_eq!(requests.len(), 3);
    assert!(!names(&requests[0]).contains(&"mcp__fx__grown".to_string()));
    assert!(
        names(&requests[1]).contains(&"mcp__fx__grown".to_string()),
        "{:?}",
        names(&requests[1])
    );
    let grown = run
        .of_type("tool_end")
        .into_iter()
        .find(|l| l["name"] == "mcp__fx__grown")
        .unwrap_or_else(|| panic!("{}", run.stdout))
        .clone();
    assert_eq!(grown["is_error"], false, "{grown}");
    assert_eq!(grown["output"], "grown ran");
    let notices: Vec<String> = run
        .of_type("notice")
        .iter()
        .filter_map(|n| n["text"].as_str().map(String::from))
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("MCP server fx changed its tools: 7 now")),
        "{notices:?}"
    );
    assert_valid_history(run.result());
}

/// `prompts/list_changed` and `resources/list_changed`: the server is listed again at once
/// and the front ends get its new prompts and resources (the TUI's `/` menu and `@`
/// completion follow the same `mcp` event).
#[test]
fn a_server_that_changes_its_prompts_and_resources_is_listed_again() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = fixture_config(dir.path());
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "mcp__fx__grow", json!({}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let run = headless_with_config(&server, "grow", &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let lines = run.of_type("mcp");
    let has = |line: &serde_json::Value, key: &str, field: &str, want: &str| {
        line[key]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| e[field] == want)
    };
    assert!(!has(lines[0], "prompts", "name", "later"), "{}", lines[0]);
    let last = lines.last().unwrap();
    assert!(
        lines.len() >= 2,
        "no mcp line after the change:\n{}",
        run.stdout
    );
    assert!(has(last, "prompts", "name", "later"), "{last}");
    assert!(
        has(last, "resources", "uri", "fixture://notes/later"),
        "{last}"
    );
    assert!(
        has(last, "resources", "uri", "fixture://notes/{topic}"),
        "{last}"
    );
}
