//! What the compaction tests share: the engine over the mock in a small window, waiting for
#![allow(dead_code)]
//! events, and reading request bodies.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use serde_json::Value;
use tokio::sync::mpsc;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::protocol::AgentEvent;
use tooloop::provider::anthropic::AnthropicProvider;

use crate::support::MockServer;

pub const MODEL: &str = "claude-mock";
pub const WINDOW: u64 = 12_000;

pub struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

/// The engine over `server` in `workspace`, yolo, `WINDOW` tokens, with `extra_toml`.
pub fn engine(workspace: &Path, server: &MockServer, extra_toml: &str) -> tooloop::engine::Engine {
    let provider =
        AnthropicProvider::new(&server.anthropic_base(), "test-key".into()).expect("provider");
    engine_with(workspace, Arc::new(provider), WINDOW, extra_toml)
}

pub fn engine_with(
    workspace: &Path,
    provider: Arc<dyn tooloop::provider::Provider>,
    window: u64,
    extra_toml: &str,
) -> tooloop::engine::Engine {
    engine_in_mode(
        workspace,
        provider,
        window,
        extra_toml,
        "yolo",
        tooloop::engine::FrontEnd::Headless,
    )
}

/// [`engine_with`] in another approval mode and for another front end (`Interactive`: an
/// `ask` waits for an [`AgentCommand::PermissionReply`]).
pub fn engine_in_mode(
    workspace: &Path,
    provider: Arc<dyn tooloop::provider::Provider>,
    window: u64,
    extra_toml: &str,
    approval: &str,
    front: tooloop::engine::FrontEnd,
) -> tooloop::engine::Engine {
    let ws = workspace.to_string_lossy().into_owned();
    let base = "http://127.0.0.1:9";
    let cli = Cli::try_parse_from([
        "tooloop",
        "--provider",
        "anthropic",
        "--base-url",
        base,
        "--model",
        MODEL,
        "--workspace",
        ws.as_str(),
        "--approval",
        approval,
        "--max-tokens",
        "2048",
        "--max-turns",
        "100",
        "--sandbox",
        "off",
        "--no-session",
    ])
    .expect("cli");
    let toml = format!(
        "[models.\"{MODEL}\"]\ncontext_window = {window}\nmax_output_tokens = 2048\n{extra_toml}"
    );
    let file = FileConfig::parse(&toml, Path::new("config.toml")).expect("config.toml");
    let cfg = Config::resolve_with(&cli, &NoEnv, &file).expect("config");
    tooloop::engine::start_with(
        &cfg,
        front,
        tooloop::engine::Overrides {
            provider: Some(provider),
            sessions_dir: None,
            tools: None,
        },
    )
    .expect("engine")
}

pub async fn until(
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    stop: impl Fn(&AgentEvent) -> bool,
) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    loop {
        let e = tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no event for 60 s after {seen:?}"))
            .unwrap_or_else(|| panic!("the agent stopped early: {seen:?}"));
        let done = stop(&e);
        seen.push(e);
        if done {
            return seen;
        }
    }
}

pub fn done(e: &AgentEvent) -> bool {
    matches!(e, AgentEvent::Done(_))
}

pub fn is_summary_request(body: &Value) -> bool {
    body.get("tools").is_none()
}

/// The text of every block of every message of a request body.
pub fn texts(body: &Value) -> String {
    let mut out = String::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        for b in m["content"].as_array().into_iter().flatten() {
            for key in ["text", "content"] {
                if let Some(t) = b[key].as_str() {
                    out.push_str(t);
                    out.push('\n');
                }
            }
        }
    }
    out
}

pub fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path();
    std::fs::create_dir(p.join("src")).expect("src");
    std::fs::write(p.join("src/lib.rs"), "pub fn a() {}\n").expect("lib");
    std::fs::write(p.join("README.md"), "# old\n").expect("readme");
    std::fs::write(p.join("old.txt"), "x\n").expect("old");
    // Under micro-compaction's 2,000 bytes per result: only summaries make room.
    let big: String = (0..30)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    std::fs::write(p.join("big.txt"), big).expect("big");
    tmp
}
