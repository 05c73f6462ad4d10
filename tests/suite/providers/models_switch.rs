//! Switching models (`/model NAME` in the TUI is AgentCommand::SetModel) against the mock:
//! the next request uses the new model, a switch during a turn waits for the turn's end, the
//! transcript names the model of every prompt, and a model the API does not know ends the
//! prompt with a message naming it, without retries.

use crate::support;

use std::path::Path;
use std::sync::Arc;

use clap::Parser;
use tokio::sync::mpsc;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::provider::anthropic::AnthropicProvider;

use support::*;

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

fn config(workspace: &Path, server: &MockServer) -> Config {
    let ws = workspace.to_string_lossy().into_owned();
    let base = server.anthropic_base();
    let args = [
        "tooloop",
        "--provider",
        "anthropic",
        "--base-url",
        base.as_str(),
        "--model",
        "claude-sonnet-4-5",
        "--workspace",
        ws.as_str(),
    ];
    let cli = Cli::try_parse_from(args).expect("cli");
    Config::resolve_with(&cli, &NoEnv, &FileConfig::default()).expect("config")
}

/// Events up to and including the prompt's Done.
async fn until_done(rx: &mut mpsc::UnboundedReceiver<AgentEvent>) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    while let Some(e) = rx.recv().await {
        let done = matches!(e, AgentEvent::Done(_));
        seen.push(e);
        if done {
            return seen;
        }
    }
    panic!("the agent stopped before Done: {seen:?}");
}

#[tokio::test]
async fn a_switch_applies_to_the_next_request_and_the_transcript_names_it() {
    let server = MockServer::start();
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = config(tmp.path(), &server);
    let engine = tooloop::engine::start_with(
        &cfg,
        tooloop::engine::FrontEnd::Headless,
        tooloop::engine::Overrides {
            provider: Some(Arc::new(
                AnthropicProvider::new(&server.anthropic_base(), "test-key".into())
                    .expect("provider"),
            )),
            sessions_dir: Some(tmp.path().join("sessions")),
            tools: None,
        },
    )
    .expect("engine");
    let info = engine.session.clone().expect("sessions on");
    let mut rx = engine.events;
    let control = engine.control;
    let tx = control.commands().clone();

    server.enqueue(text_reply("one"));
    tx.send(AgentCommand::Submit { text: "a".into() })
        .expect("send");
    until_done(&mut rx).await;

    tx.send(AgentCommand::SetModel {
        model: "claude-haiku-4-5".into(),
    })
    .expect("send");
    server.enqueue(text_reply("two"));
    tx.send(AgentCommand::Submit { text: "b".into() })
        .expect("send");
    let events = until_done(&mut rx).await;
    assert!(
        events.contains(&AgentEvent::ModelChanged {
            model: "claude-haiku-4-5".into()
        }),
        "{events:?}"
    );

    // During a turn the switch waits for the turn to end: this turn keeps its model.
    let gate = Gate::new();
    server.enqueue(text_reply("three").head_gated(&gate));
    tx.send(AgentCommand::Submit { text: "c".into() })
        .expect("send");
    server.wait_for_requests_async(3).await;
    tx.send(AgentCommand::SetModel {
        model: "claude-opus-4-5".into(),
    })
    .expect("send");
    gate.open();
    let events = until_done(&mut rx).await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::ModelChanged { .. })),
        "{events:?}"
    );
    server.enqueue(text_reply("four"));
    tx.send(AgentCommand::Submit { text: "d".into() })
        .expect("send");
    let events = until_done(&mut rx).await;
    assert_eq!(
        events.first(),
        Some(&AgentEvent::ModelChanged {
            model: "claude-opus-4-5".into()
        }),
        "the switch is applied once the turn ended, before the next prompt"
    );
    drop(tx);
    control.stop(std::time::Duration::from_secs(5)).await;

    let models: Vec<String> = server
        .accepted()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        models,
        [
            "claude-sonnet-4-5",
            "claude-haiku-4-5",
            "claude-haiku-4-5",
            "claude-opus-4-5"
        ]
    );
    let transcript = std::fs::read_to_string(&info.path).expect("transcript");
    let recorded: Vec<String> = transcript
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "prompt_start")
        .map(|v| v["model"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(recorded, models);
}

#[test]
fn an_unknown_model_is_named_and_not_retried() {
    let server = MockServer::start();
    // What the Messages API answers for a model it does not know.
    server.enqueue(Reply::error(
        404,
        "not_found_error",
        "model: claude-nonexistent-9",
    ));
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-nonexistent-9",
        "--output-format",
        "json",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "model_error");
    let error = result["error"].as_str().unwrap_or("");
    assert!(
        error.contains("does not know the model \"claude-nonexistent-9\"")
            && error.contains("/model")
            && error.contains(&format!("{base}/v1/messages")),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1, "no retries");
    assert!(run.of_type("retry").is_empty());
}

/// Issue 41, item 6: a gateway answering 404 with an Anthropic-shaped JSON error
/// (`not_found_error`, "Not Found") is named with the model and the URL asked, and the two
/// things to check (`--base-url`, `/model`), like the no-JSON 404.
#[test]
fn a_json_404_from_a_gateway_names_the_model_and_the_url() {
    let server = MockServer::start();
    server.enqueue(Reply::error(404, "not_found_error", "Not Found"));
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-sonnet-4-5",
        "--output-format",
        "json",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let error = run.result()["error"].as_str().unwrap_or("").to_string();
    assert!(
        error.contains("\"claude-sonnet-4-5\"")
            && error.contains(&format!("{base}/v1/messages"))
            && error.contains("--base-url")
            && error.contains("/model"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1, "a 404 is not retried");
}

#[test]
fn tooloop_models_prints_the_table_with_the_configured_model_marked() {
    let run = Tooloop::new(&["--model", "claude-haiku-4-5", "models"]).run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].contains("WINDOW") && lines[0].contains("IN/OUT $/M"),
        "{}",
        run.stdout
    );
    let marked: Vec<&&str> = lines.iter().filter(|l| l.starts_with("* ")).collect();
    assert_eq!(marked.len(), 1, "{}", run.stdout);
    assert!(
        marked[0].starts_with("* claude-haiku-4-5 "),
        "{}",
        marked[0]
    );
    assert!(
        marked[0].contains("200k") && marked[0].contains(" 1/5 "),
        "{}",
        marked[0]
    );
    assert!(run.stdout.contains("gpt-4.1"), "{}", run.stdout);
}
