//! Deferred MCP tool definitions and `tool_search` (issue 39), end to end: the real binary,
//! headless, against the mock model and the fixture server with 150 synthetic tools.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::openai as oa;
use support::*;

const SYNTHETIC: usize = 150;
/// The fixture's own tools (slow_read, write_note, fail, crash, grow, picture).
const OWN_TOOLS: usize = 6;
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

/// The model searches (request 1), calls what it found (request 2) and reads the result
/// (request 3): the scripted replies of both provider tests.
fn search_then_call(server: &MockServer) {
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
}

/// Anthropic: every deferred definition is in `tools` with `defer_loading: true` (after the
/// always-loaded ones, the same list in every request), and the search's tool_result is one
/// `tool_reference` block per tool found; the mock validates both like the API.
#[test]
fn the_model_finds_a_deferred_tool_then_calls_it() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "", "");
    let server = MockServer::start();
    search_then_call(&server);
    let run = headless_with_config(&server, "file a ticket", &cfg, dir.path(), YOLO).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let requests = server.accepted();
    assert_eq!(requests.len(), 3);

    // Request 1: built-ins and tool_search loaded; all 155 MCP tools deferred, at the end.
    let tools = requests[0].body["tools"].as_array().unwrap();
    let loaded: Vec<&str> = tools
        .iter()
        .filter(|t| t.get("defer_loading").is_none())
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(loaded.contains(&"tool_search") && loaded.contains(&"read_file"));
    assert!(loaded.iter().all(|n| !n.starts_with("mcp__")), "{loaded:?}");
    let deferred = &tools[loaded.len()..];
    assert_eq!(deferred.len(), SYNTHETIC + OWN_TOOLS);
    assert!(deferred.iter().all(|t| t["defer_loading"] == true));
    let beta = requests[0].header("anthropic-beta").unwrap_or("");
    assert!(beta.contains("advanced-tool-use-2025-11-20"), "{beta}");

    // The search answered with a reference to what it found (not with its text).
    let search = tool_end(&run, "tool_search");
    assert_eq!(search["is_error"], false);
    let result = tool_results(&requests[1])
        .into_iter()
        .find(|(id, _, _)| id == "toolu_1")
        .expect("the search's tool_result");
    let refs = result.1.as_array().expect("content blocks");
    assert!(
        refs.iter().all(|b| b["type"] == "tool_reference"),
        "{refs:?}"
    );
    assert!(
        refs.iter()
            .any(|b| b["tool_name"] == "mcp__fx__jira_create_item"),
        "{refs:?}"
    );
    assert!(refs.len() <= 5, "at most 5 by default");

    // `tools` never changes: the cached prefix stays byte-identical.
    for r in &requests[1..] {
        assert_eq!(r.body["tools"], requests[0].body["tools"]);
    }
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
    assert_valid_history(run.result());
}

/// OpenAI-compatible: no such mechanism, so what was found joins `tools` at the end.
#[test]
fn on_openai_found_tools_are_appended_to_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "", "");
    let server = MockServer::start();
    server.enqueue(oa::calls_reply(&[(
        "call_1",
        "tool_search",
        json!({"query": "create jira item"}),
    )]));
    server.enqueue(oa::calls_reply(&[(
        "call_2",
        "mcp__fx__jira_create_item",
        json!({"workspace": "OPS"}),
    )]));
    server.enqueue(oa::text_reply("created"));
    let base = oa::base(&server);
    let cfg_path = cfg.display().to_string();
    let mut args = vec![
        "-p",
        "file a ticket",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--model",
        "mock-model",
        "--output-format",
        "stream-json",
        "--config",
        &cfg_path,
    ];
    args.extend_from_slice(YOLO);
    let run = Tooloop::new(&args)
        .workspace(dir.path())
        .timeout(std::time::Duration::from_secs(60))
        .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let requests = server.accepted();
    assert_eq!(requests.len(), 3);
    let names = |r: &Recorded| -> Vec<String> {
        r.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str().map(String::from))
            .collect()
    };
    let first = names(&requests[0]);
    assert!(first.contains(&"tool_search".to_string()), "{first:?}");
    assert!(first.iter().all(|n| !n.starts_with("mcp__")), "{first:?}");
    assert!(!requests[0].body_text.contains("defer_loading"));
    let second = names(&requests[1]);
    assert_eq!(&second[..first.len()], &first[..], "never reordered");
    assert!(second[first.len()..].contains(&"mcp__fx__jira_create_item".to_string()));
    assert!(second.len() <= first.len() + 5, "at most 5 by default");
    let call = tool_end(&run, "mcp__fx__jira_create_item");
    assert_eq!(call["is_error"], false, "{call}");
    assert_eq!(names(&requests[2]), second, "found tools stay");
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
    // The list never changes (Anthropic keeps every definition, deferred, in `tools`).
    assert_eq!(requests[1].body["tools"], requests[0].body["tools"]);
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
        assert_eq!(mcp_tools, SYNTHETIC + OWN_TOOLS, "{mcp} / {server_line}");
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
    /// Requests 2-10 that read back everything the request before them sent (the cached
    /// prefix was not changed under them).
    read_whole_previous: usize,
}

/// Ten requests: with deferral the model searches, then calls what it found; without, it
/// calls the tool at once; then eight more calls of it and an answer.
fn session(defer: &str, other_servers: &str) -> Figures {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), defer, other_servers);
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
        // The definitions the model sees: deferred ones are in `tools` but not in the prompt.
        tools_in_first: requests[0].body["tools"].as_array().map_or(0, |a| {
            a.iter().filter(|t| t["defer_loading"] != true).count()
        }),
        later: counts[1..].iter().fold((0, 0, 0), |a, c| {
            (a.0 + c.input, a.1 + c.cache_write, a.2 + c.cache_read)
        }),
        read_whole_previous: counts
            .windows(2)
            .filter(|w| w[1].cache_read >= w[0].total())
            .count(),
    }
}

/// Prints one run's figures side by side (`--nocapture`) and says how much deferral saved
/// on the first request.
fn report(off: &Figures, on: &Figures) -> f64 {
    for (label, f) in [("without deferral", off), ("with deferral", on)] {
        println!(
            "{label}: {} tools, first request {} input tokens, cache-read share of requests \
             2-10 {:.1} % (input {} / cache write {} / cache read {}), {} of requests 2-10 \
             read the whole previous prompt, first request at {} ms",
            f.tools_in_first,
            f.first_input,
            f.cache_share_2_to_10 * 100.0,
            f.later.0,
            f.later.1,
            f.later.2,
            f.read_whole_previous,
            f.first_request_ms
        );
    }
    let saved = 1.0 - on.first_input as f64 / off.first_input as f64;
    println!("first request: {:.1} % fewer input tokens", saved * 100.0);
    saved
}

/// BENCHMARKS.md's deferral figures, side by side in one run (`--nocapture` prints them).
#[test]
fn deferral_cuts_the_first_request_and_keeps_the_cache() {
    let off = session("defer = false", "");
    let on = session("", "");
    let saved = report(&off, &on);
    assert!(
        saved >= 0.8,
        "goal: at least 80 % fewer ({:.1} %)",
        saved * 100.0
    );
    // tool_reference keeps `tools` (the start of the cached prefix) unchanged: every request
    // reads back all the one before it sent, as without deferral; only new messages (and
    // the definitions a search loads, once) are written. (With found definitions appended
    // to `tools`, the request after the search re-wrote the system prompt and messages.)
    assert_eq!(off.read_whole_previous, 9);
    assert_eq!(on.read_whole_previous, 9, "the cached prefix never changes");
    // The share itself is lower for a 10x smaller prompt (the same new messages weigh more);
    // BENCHMARKS.md has both figures. It must not fall back to the append path's 88 %.
    assert!(on.cache_share_2_to_10 > 0.9, "{}", on.cache_share_2_to_10);
}

/// `@modelcontextprotocol/server-everything` (the MCP reference server, tests/mcp_everything)
/// as a second server's table, started with `node`; None (a visible skip, a failure under
/// CI) when it is not installed.
fn everything_server() -> Option<String> {
    let index = support::env::mcp_everything()?
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    Some(format!(
        "[mcp.servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        index.display().to_string()
    ))
}

/// The same figures with server-everything connected beside the fixture's 150 tools, as
/// issue 39 asks (its 13 tools are deferred too). Skipped, and said, without it.
#[test]
fn deferral_with_server_everything_beside_the_synthetic_tools() {
    let Some(everything) = everything_server() else {
        return;
    };
    let off = session("defer = false", &everything);
    let on = session("", &everything);
    let saved = report(&off, &on);
    assert!(
        saved >= 0.8,
        "goal: at least 80 % fewer ({:.1} %)",
        saved * 100.0
    );
    assert!(on.cache_share_2_to_10 > 0.9, "{}", on.cache_share_2_to_10);
}
