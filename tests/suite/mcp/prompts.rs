//! MCP prompts as commands and resources as mentions (issue 39), end to end: the real
//! binary, headless, against the mock model and the fixture server's prompts and resources
//! (tests/support/mcp_fixture_catalog.rs).

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::*;

/// The fixture as server `fx`, its requests logged to `dir/fx.log`; `extra` goes into its
/// `env` table.
fn config(dir: &Path, env: &str) -> PathBuf {
    let log = dir.join("fx.log");
    let text = format!(
        "[mcp.servers.fx]\ncommand = {:?}\nenv = {{ MCP_FIXTURE_LOG = {:?}{env} }}\n",
        mcp_fixture().display().to_string(),
        log.display().to_string(),
    );
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn answer(server: &MockServer) {
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
}

/// The blocks of the first request's last message (the prompt as sent).
fn sent_blocks(server: &MockServer) -> Vec<Value> {
    let requests = server.accepted();
    assert!(!requests.is_empty(), "no request reached the mock");
    let messages = requests[0].body["messages"].as_array().unwrap().clone();
    let last = messages.last().unwrap().clone();
    assert_eq!(last["role"], "user");
    last["content"].as_array().cloned().unwrap_or_default()
}

fn texts(blocks: &[Value]) -> Vec<String> {
    blocks
        .iter()
        .filter_map(|b| b["text"].as_str().map(String::from))
        .collect()
}

fn notices(run: &Run) -> Vec<String> {
    run.of_type("notice")
        .iter()
        .filter_map(|n| n["text"].as_str().map(String::from))
        .collect()
}

fn log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("fx.log")).unwrap_or_default()
}

/// A run that must not send anything: exit 1, no request, the error says `want`.
fn assert_not_sent(run: &Run, server: &MockServer, want: &str) {
    assert_eq!(
        run.code,
        Some(1),
        "stdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
    assert!(server.requests().is_empty(), "a request was sent");
    let result = run.result();
    assert_eq!(result["reason"], "not_sent", "{result}");
    let errors: Vec<String> = run
        .of_type("error")
        .iter()
        .filter_map(|e| e["message"].as_str().map(String::from))
        .collect();
    assert!(
        errors.iter().any(|e| e.contains(want)),
        "{errors:?} lacks {want:?}"
    );
}

#[test]
fn a_prompt_typed_as_a_command_sends_its_messages() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let server = MockServer::start();
    answer(&server);
    let prompt = "/mcp__fx__greet Ada style='with a bow'";
    let run = headless_with_config(&server, prompt, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let t = texts(&sent_blocks(&server));
    assert_eq!(t[0], prompt, "the words as typed come first: {t:?}");
    assert!(
        t[1].contains("/mcp__fx__greet") && t[1].ends_with("Say hello to Ada, with a bow."),
        "{t:?}"
    );
    let log = log(dir.path());
    assert!(log.contains("prompt greet {"), "{log}");
    assert!(
        log.contains(r#""name":"Ada""#) && log.contains(r#""style":"with a bow""#),
        "{log}"
    );
    // The mcp line lists the server's prompts and resources for front ends.
    let fx = run.of_type("mcp")[0].clone();
    let prompts: Vec<&str> = fx["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(prompts, ["greet", "review", "vanish"], "{fx}");
    assert_valid_history(run.result());
}

#[test]
fn a_prompt_with_a_resource_and_an_image_attaches_both() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let server = MockServer::start();
    answer(&server);
    let run = headless_with_config(&server, "/mcp__fx__review", &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let blocks = sent_blocks(&server);
    let t = texts(&blocks);
    assert!(t[1].ends_with("Review these notes."), "{t:?}");
    assert_eq!(
        t[2],
        "Resource fx:fixture://notes/readme (2 lines), attached by the user:\n\nThe fixture's notes.\nSecond line."
    );
    assert!(
        blocks
            .iter()
            .any(|b| b["type"] == "image" && b["source"]["media_type"] == "image/png"),
        "{blocks:?}"
    );
    assert_valid_history(run.result());
}

#[test]
fn a_missing_required_argument_is_named_and_nothing_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let server = MockServer::start();
    let run =
        headless_with_config(&server, "/mcp__fx__greet style=loud", &cfg, dir.path(), &[]).run();
    assert_not_sent(
        &run,
        &server,
        "/mcp__fx__greet: missing required argument name; usage: /mcp__fx__greet <name> [style]",
    );
    assert!(
        !log(dir.path()).contains("prompt greet"),
        "prompts/get was not called"
    );
}

#[test]
fn an_unknown_prompt_is_said_not_sent_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let server = MockServer::start();
    let run = headless_with_config(&server, "/mcp__fx__nope", &cfg, dir.path(), &[]).run();
    assert_not_sent(&run, &server, "MCP server fx has no prompt nope");
}

#[test]
fn a_server_that_dies_between_list_and_get_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let once = dir.path().join("once");
    let env = format!(", MCP_FIXTURE_ONCE = {:?}", once.display().to_string());
    let cfg = config(dir.path(), &env);
    let server = MockServer::start();
    let run = headless_with_config(&server, "/mcp__fx__vanish", &cfg, dir.path(), &[]).run();
    assert_not_sent(
        &run,
        &server,
        "/mcp__fx__vanish was not sent: MCP server fx is down",
    );
}

#[test]
fn a_resource_mention_attaches_its_text_like_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let server = MockServer::start();
    answer(&server);
    // A template's URI, with the sentence's full stop after it.
    let prompt = "explain @fx:fixture://notes/readme and @fx:fixture://notes/cats.";
    let run = headless_with_config(&server, prompt, &cfg, dir.path(), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let t = texts(&sent_blocks(&server));
    assert_eq!(t[0], prompt);
    assert_eq!(
        t[1],
        "Resource fx:fixture://notes/readme (2 lines), attached by the user:\n\nThe fixture's notes.\nSecond line."
    );
    assert_eq!(
        t[2],
        "Resource fx:fixture://notes/cats (1 line), attached by the user:\n\nNotes on cats."
    );
    let n = notices(&run);
    assert!(
        n.contains(&"attached fx:fixture://notes/readme (2 lines)".to_string()),
        "{n:?}"
    );
    assert_valid_history(run.result());
}

#[test]
fn an_image_resource_is_attached_as_an_image() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let server = MockServer::start();
    answer(&server);
    let run = headless_with_config(
        &server,
        "what is @fx:fixture://image/dot",
        &cfg,
        dir.path(),
        &[],
    )
    .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let blocks = sent_blocks(&server);
    assert!(
        texts(&blocks)
            .iter()
            .any(|t| t.starts_with("Resource fx:fixture://image/dot (image/png, 1 KB)")),
        "{blocks:?}"
    );
    assert!(blocks.iter().any(|b| b["type"] == "image"), "{blocks:?}");
}

#[test]
fn a_resource_that_does_not_exist_stops_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let server = MockServer::start();
    let run = headless_with_config(
        &server,
        "explain @fx:fixture://nowhere",
        &cfg,
        dir.path(),
        &[],
    )
    .run();
    assert_not_sent(
        &run,
        &server,
        "@fx:fixture://nowhere was not attached: MCP server fx answered with an error: resource fixture://nowhere not found",
    );
}

#[test]
fn a_resource_whose_server_dies_stops_the_prompt_in_text_mode_too() {
    let dir = tempfile::tempdir().unwrap();
    let once = dir.path().join("once");
    let env = format!(", MCP_FIXTURE_ONCE = {:?}", once.display().to_string());
    let cfg = config(dir.path(), &env);
    let server = MockServer::start();
    let base = server.anthropic_base();
    let cfg = cfg.display().to_string();
    let run = Tooloop::new(&[
        "-p",
        "explain @fx:fixture://vanish",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-mock",
        "--config",
        &cfg,
    ])
    .env("ANTHROPIC_API_KEY", "sk-ant-extensions-test")
    .workspace(dir.path())
    .run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    assert!(server.requests().is_empty());
    assert!(
        run.stderr
            .contains("tooloop: @fx:fixture://vanish was not attached: MCP server fx is down"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_prompt_of_a_server_that_failed_to_start_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "[mcp.servers.fx]\ncommand = {:?}\nargs = [\"--fail-start\"]\n",
            mcp_fixture().display().to_string()
        ),
    )
    .unwrap();
    let server = MockServer::start();
    let run = headless_with_config(&server, "/mcp__fx__greet Ada", &cfg, dir.path(), &[]).run();
    assert_not_sent(
        &run,
        &server,
        "/mcp__fx__greet was not sent: MCP server fx is not running: ",
    );
}
