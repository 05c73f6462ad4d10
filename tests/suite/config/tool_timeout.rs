//! `[tools] timeout_secs` is read back through its effect: the engine gives it to the
//! executor as the limit for every tool that sets none of its own.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use clap::Parser;
use serde_json::{Value, json};
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::engine::{self, FrontEnd, Overrides};
use tooloop::message::{ContentBlock, validate_history};
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::provider::scripted::{ReplyBuilder, ScriptedProvider};
use tooloop::tools::{Effect, Tool, ToolContext, ToolOutput, ToolRegistry};

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

/// Takes 5 s of (virtual) time and names no timeout of its own.
struct Slow;

#[async_trait]
impl Tool for Slow {
    fn name(&self) -> &'static str {
        "slow"
    }
    fn description(&self) -> &'static str {
        "takes five seconds"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    async fn run(&self, _input: Value, ctx: ToolContext) -> ToolOutput {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(5)) => ToolOutput::ok("slept"),
            _ = ctx.cancel.cancelled() => ToolOutput::error("stopped"),
        }
    }
}

fn config(workspace: &Path, file_text: &str) -> Config {
    let ws = workspace.to_string_lossy().into_owned();
    let cli = Cli::try_parse_from([
        "tooloop",
        "--provider",
        "demo",
        "--no-session",
        "--workspace",
        ws.as_str(),
    ])
    .expect("cli");
    let file = FileConfig::parse(file_text, Path::new("config.toml")).expect("file");
    Config::resolve_with(&cli, &NoEnv, &file).expect("config")
}

/// Runs one prompt whose reply calls `slow` and returns its tool_result block.
async fn slow_tool_result(file_text: &str) -> ContentBlock {
    let dir = tempfile::tempdir().expect("tmp");
    let cfg = config(dir.path(), file_text);
    let provider = ScriptedProvider::new(vec![
        ReplyBuilder::new()
            .tool(0, 10, "t1", "slow", json!({}))
            .end(20, "tool_use"),
        ReplyBuilder::new().text(0, "done").end(10, "end_turn"),
    ]);
    let mut tools = ToolRegistry::new();
    tools.register(Arc::new(Slow));
    let overrides = Overrides {
        provider: Some(Arc::new(provider)),
        sessions_dir: None,
        tools: Some(tools),
    };
    let mut engine = engine::start_with(&cfg, FrontEnd::Headless, overrides).expect("engine");
    engine
        .control
        .send(AgentCommand::Submit { text: "go".into() });
    while let Some(e) = engine.events.recv().await {
        if matches!(e, AgentEvent::Done(_)) {
            break;
        }
    }
    let agent = engine
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops");
    validate_history(&agent.history).expect("valid history");
    agent.history[2].content[0].clone()
}

#[tokio::test(start_paused = true)]
async fn timeout_secs_stops_a_tool_that_sets_no_limit_of_its_own() {
    match slow_tool_result("[tools]\ntimeout_secs = 1\n").await {
        ContentBlock::ToolResult {
            content, is_error, ..
        } => {
            assert!(is_error, "{content}");
            assert!(content.contains("timed out after 1 s"), "{content}");
        }
        other => panic!("not a tool result: {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn without_the_key_the_default_limit_lets_it_finish() {
    match slow_tool_result("").await {
        ContentBlock::ToolResult {
            content, is_error, ..
        } => {
            assert!(!is_error, "{content}");
            assert_eq!(content, "slept");
        }
        other => panic!("not a tool result: {other:?}"),
    }
}
