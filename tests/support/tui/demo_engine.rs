//! A real engine on the instant demo model, for tests that drive the agent and the TUI
//! state together (resume, the sessions picker).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use tokio::sync::mpsc;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::engine::{self, Engine, FrontEnd, Overrides};
use tooloop::protocol::AgentEvent;
use tooloop::provider::demo::{DemoProvider, Pace};

/// No environment: no keys, no overrides from the machine running the tests.
pub struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

/// The demo provider in `workspace`, plus `extra` command-line arguments.
pub fn config(workspace: &Path, extra: &[&str]) -> Config {
    let ws = workspace.to_string_lossy().into_owned();
    let args = ["tooloop", "--provider", "demo", "--workspace", ws.as_str()];
    let cli = Cli::try_parse_from(args.iter().copied().chain(extra.iter().copied())).expect("cli");
    Config::resolve_with(&cli, &NoEnv, &FileConfig::default()).expect("config")
}

/// The engine with a demo model that answers at once and sessions kept in `dir`.
pub fn start(cfg: &Config, dir: &Path) -> Engine {
    let demo = DemoProvider::new(Pace {
        word: Duration::ZERO,
        json_chunk: Duration::ZERO,
        first_byte: Duration::ZERO,
    });
    start_on(cfg, dir, Arc::new(demo))
}

/// The engine on `provider` (a scripted one, say) with sessions kept in `dir`.
pub fn start_on(
    cfg: &Config,
    dir: &Path,
    provider: Arc<dyn tooloop::provider::Provider>,
) -> Engine {
    let overrides = Overrides {
        provider: Some(provider),
        sessions_dir: Some(dir.to_path_buf()),
        tools: None,
    };
    engine::start_with(cfg, FrontEnd::Interactive, overrides).expect("engine starts")
}

/// Events up to and including the first that `stop` accepts.
pub async fn until(
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    stop: impl Fn(&AgentEvent) -> bool,
) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    while let Some(e) = tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("the agent answers")
    {
        let last = stop(&e);
        out.push(e);
        if last {
            return out;
        }
    }
    panic!("the agent stopped early: {out:?}");
}
