//! Deferred MCP tool definitions and `tool_search` (issue 39), end to end: the real binary,
//! headless, against the mock model and the fixture server with 150 synthetic tools.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::*;

const SYNTHETIC: usize = 150;
const YOLO: &[&str] = &["--approval", "yolo"];

/// The fixture as server `fx` with `SYNTHETIC` extra tools; `mcp` goes into `[mcp]` and
/// `server` into its table.
fn config(dir: &Path, mcp: &str, server: &str) -> PathBuf {
    let text = format!(
        "[mcp]\n{mcp}\n[mcp.servers.fx]\ncommand = {:?}\nenv = {{ MCP_FIXTURE_SYNTHETIC = \"{SYNTHETIC}\" }}\n{server}\n",
        mcp_fixture().display().to_string(),
    );
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn tool_names(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn tool_end<'a>(run: &'a Run, name: &str) -> &'a Value {
    run.of_type("tool_end")
        .into_iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("no tool_end for {name}:\n{}", run.stdout))
}

#[test]
fn the_model_finds_a_deferred_tool_then_calls_it() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "", "");
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_1",
                "tool_search",
                json!({"query": "create jira item"}),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_2",
                "mcp__fx__jira_create_item",
                json!({"workspace": "OPS"}),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("created").usage(10, 5).build());
    let run = headless_with_config(&server, "file a ticket", &cfg, dir.path(), YOLO).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let requests = server.accepted();
    assert_eq!(requests.len(), 3);

    // Request 1: the built-ins and tool_search, none of the 155 MCP tools.
    let first = tool_names(&requests[0]);
    assert!(first.contains(&"tool_search".to_string()), "{first:?}");
    assert!(first.contains(&"read_file".to_string()));
    assert!(
        first.iter().all(|n| !n.starts_with("mcp__")),
        "no MCP definition in request 1: {first:?}"
    );

    // The search found the tool and said so.
    let search = tool_end(&run, "tool_search");
    assert_eq!(search["is_error"], false);
    let out = search["output"].as_str().unwrap();
    assert!(out.contains("mcp__fx__jira_create_item"), "{out}");

    // Request 2 offers what was found, appended after request 1's list (same order).
    let second = tool_names(&requests[1]);
    assert_eq!(
        &second[..first.len()],
        &first[..],
        "the list is never reordered"
    );
    assert!(second[first.len()..].contains(&"mcp__fx__jira_create_item".to_string()));
    assert!(second.len() <= first.len() + 5, "at most 5 by default");

    // The call ran on the server and its result went back in request 3.
    let call = tool_end(&run, "mcp__fx__jira_create_item");
    assert_eq!(call["is_error"], false, "{call}");
    assert!(
        requests[2]
            .body_text
            .contains("jira_create_item ran with {\\\"workspace\\\":\\\"OPS\\\"}"),
        "{}",
        requests[2].body_text
    );
    assert_eq!(tool_names(&requests[2]), second, "found tools stay");
    assert_valid_history(run.result());
}

#[test]
fn a_deferred_tool_named_exactly_runs_and_an_unknown_one_points_to_tool_search() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "defer = true", "");
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_1",
                "mcp__fx__slack_list_items",
                json!({"workspace": "eng"}),
            )
            .tool_use("toolu_2", "mcp__fx__no_such_thing", json!({}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
    let run = headless_with_config(&server, "go", &cfg, dir.path(), YOLO).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let requests = server.accepted();
    assert_eq!(requests.len(), 2, "never an HTTP 400");

    let ran = tool_end(&run, "mcp__fx__slack_list_items");
    assert_eq!(ran["is_error"], false, "{ran}");
    let unknown = tool_end(&run, "mcp__fx__no_such_thing");
    assert_eq!(unknown["is_error"], true);
    let text = unknown["output"].as_str().unwrap();
    assert!(
        text.contains("no such tool") && text.contains("tool_search"),
        "{text}"
    );
    assert!(
        !text.contains("mcp__fx__github_get_item"),
        "deferred tools are not listed one by one: {text}"
    );
    // The tool that ran is in the history now: its definition is offered from then on.
    let second = tool_names(&requests[1]);
    assert_eq!(second.last().unwrap(), "mcp__fx__slack_list_items");
    assert_valid_history(run.result());
}

#[test]
fn defer_false_and_a_server_that_opts_out_send_every_definition() {
    for (mcp, server_line) in [("defer = false", ""), ("defer = true", "defer = false")] {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(dir.path(), mcp, server_line);
        let server = MockServer::start();
        server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
        let run = headless_with_config(&server, "go", &cfg, dir.path(), &[]).run();
        assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
        let names = tool_names(&server.accepted()[0]);
        let mcp_tools = names.iter().filter(|n| n.starts_with("mcp__")).count();
        assert_eq!(mcp_tools, SYNTHETIC + 5, "{mcp} / {server_line}");
        assert!(!names.contains(&"tool_search".to_string()));
    }
}

#[test]
fn a_bad_defer_setting_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "defer = \"sometimes\"", "");
    let server = MockServer::start();
    let run = headless_with_config(&server, "go", &cfg, dir.path(), &[]).run();
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr.contains("auto:N"),
        "the error says what is accepted: {}",
        run.stderr
    );
    assert!(server.accepted().is_empty());
}

/// What one scripted 10-request session cost on the mock (prompt caching on, Anthropic's
/// rules): the figures issue 39 asks for.
struct Figures {
    first_input: u64,
    cache_share_2_to_10: f64,
    first_request_ms: u64,
    tools_in_first: usize,
    /// Requests 2-10: (uncached input, cache writes, cache reads).
    later: (u64, u64, u64),
}

/// Ten requests: with deferral the model searches, then calls what it found; without, it
/// calls the tool at once; then eight more calls of it and an answer.
fn session(defer: &str) -> Figures {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), defer, "");
    let server = MockServer::start();
    server.enable_prompt_cache();
    let deferred = defer != "defer = false";
    if deferred {
        server.enqueue(
            ReplyBuilder::new()
                .tool_use(
                    "toolu_s",
                    "tool_search",
                    json!({"query": "sentry search items"}),
                )
                .usage(10, 5)
                .build(),
        );
    }
    let calls = if deferred { 8 } else { 9 };
    for i in 0..calls {
        server.enqueue(
            ReplyBuilder::new()
                .tool_use(
                    &format!("toolu_{i}"),
                    "mcp__fx__sentry_search_items",
                    json!({"workspace": format!("team-{i}")}),
                )
                .usage(10, 5)
                .build(),
        );
    }
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let args = ["--approval", "yolo", "--max-turns", "20"];
    let run = headless_with_config(&server, "what broke overnight?", &cfg, dir.path(), &args).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let requests = server.accepted();
    assert_eq!(requests.len(), 10);
    let counts: Vec<_> = requests.iter().map(|r| r.accounted.unwrap()).collect();
    let read: u64 = counts[1..].iter().map(|c| c.cache_read).sum();
    let total: u64 = counts[1..].iter().map(|c| c.total()).sum();
    let first_request = run.of_type("request_start")[0]["t_ms"].as_u64().unwrap();
    assert_valid_history(run.result());
    Figures {
        first_input: counts[0].total(),
        cache_share_2_to_10: read as f64 / total as f64,
        first_request_ms: first_request,
        tools_in_first: tool_names(&requests[0]).len(),
        later: counts[1..].iter().fold((0, 0, 0), |a, c| {
            (a.0 + c.input, a.1 + c.cache_write, a.2 + c.cache_read)
        }),
    }
}

/// BENCHMARKS.md's deferral figures, side by side in one run (`--nocapture` prints them).
#[test]
fn deferral_cuts_the_first_request_and_keeps_the_cache() {
    let off = session("defer = false");
    let on = session("");
    for (label, f) in [("without deferral", &off), ("with deferral", &on)] {
        println!(
            "{label}: {} tools, first request {} input tokens, cache-read share of requests \
             2-10 {:.1} % (input {} / cache write {} / cache read {}), first request at {} ms",
            f.tools_in_first,
            f.first_input,
            f.cache_share_2_to_10 * 100.0,
            f.later.0,
            f.later.1,
            f.later.2,
            f.first_request_ms
        );
    }
    let saved = 1.0 - on.first_input as f64 / off.first_input as f64;
    println!("first request: {:.1} % fewer input tokens", saved * 100.0);
    assert!(
        saved >= 0.8,
        "goal: at least 80 % fewer ({:.1} %)",
        saved * 100.0
    );
}
