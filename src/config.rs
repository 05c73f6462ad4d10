//! One Config value from flags, the environment and defaults (flag > env > file > default).

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::{Cli, ProviderKind, ToolExec};
use crate::permission::ApprovalMode;
use crate::provider::retry::RetryPolicy;

pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";
pub const DEFAULT_ANTHROPIC_BASE: &str = "https://api.anthropic.com";
pub const DEFAULT_OPENAI_BASE: &str = "https://api.openai.com/v1";
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are tooloop, a coding agent in the user's terminal. \
Use the tools to look at the workspace before you answer questions about it. Call several \
independent tools in one reply when you can; they run in parallel. Be concise.";

#[derive(Clone, Debug)]
pub struct Config {
    pub provider: ProviderKind,
    pub model: String,
    pub base_url: String,
    /// Never logged, never written anywhere.
    pub api_key: Option<String>,
    pub approval: ApprovalMode,
    pub allowed_tools: Vec<String>,
    pub max_turns: u32,
    pub tool_exec: ToolExec,
    pub workspace: PathBuf,
    pub allow_outside_workspace: bool,
    pub system: String,
    pub max_tokens: u32,
    pub sibling_abort: bool,
    pub disable_parallel_tool_use: bool,
    pub fallback_model: Option<String>,
    pub retry: RetryPolicy,
    pub idle_timeout: Duration,
    pub max_output_bytes: usize,
    pub tool_timeout: Duration,
    pub trace: Option<PathBuf>,
    pub mouse: bool,
}

/// The environment as tooloop reads it, so tests can pass their own.
pub trait Env {
    fn var(&self, key: &str) -> Option<String>;
}

pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, key: &str) -> Option<String> {
        std::env::var(key).ok().filter(|v| !v.is_empty())
    }
}

impl Config {
    /// Flags beat the environment, which beats defaults.
    pub fn resolve(cli: &Cli, env: &dyn Env) -> Result<Config, String> {
        let anthropic_key = env.var("ANTHROPIC_API_KEY");
        let openai_key = env.var("OPENAI_API_KEY");
        let provider = cli.provider.unwrap_or(if anthropic_key.is_some() {
            ProviderKind::Anthropic
        } else if openai_key.is_some() {
            ProviderKind::Openai
        } else {
            ProviderKind::Demo
        });
        let (model, base_url, api_key) = match provider {
            ProviderKind::Anthropic => (
                DEFAULT_ANTHROPIC_MODEL,
                cli.base_url
                    .clone()
                    .or_else(|| env.var("ANTHROPIC_BASE_URL"))
                    .unwrap_or_else(|| DEFAULT_ANTHROPIC_BASE.into()),
                anthropic_key,
            ),
            ProviderKind::Openai => (
                DEFAULT_OPENAI_MODEL,
                cli.base_url
                    .clone()
                    .or_else(|| env.var("OPENAI_BASE_URL"))
                    .unwrap_or_else(|| DEFAULT_OPENAI_BASE.into()),
                openai_key,
            ),
            ProviderKind::Demo => ("tooloop-demo", String::new(), None),
        };
        let workspace = match &cli.workspace {
            Some(w) => w.clone(),
            None => std::env::current_dir().map_err(|e| format!("current directory: {e}"))?,
        };
        if !workspace.is_dir() {
            return Err(format!(
                "workspace {} is not a directory",
                workspace.display()
            ));
        }
        let mut retry = RetryPolicy::default();
        if let Some(n) = cli.max_retries {
            retry.max_attempts = n.max(1);
        }
        Ok(Config {
            provider,
            model: cli.model.clone().unwrap_or_else(|| model.to_string()),
            base_url,
            api_key,
            approval: cli.approval.unwrap_or_default(),
            allowed_tools: cli.allow_tool.clone(),
            max_turns: cli.max_turns.unwrap_or(50).max(1),
            tool_exec: cli.tool_exec.unwrap_or_default(),
            workspace,
            allow_outside_workspace: cli.allow_outside_workspace,
            system: cli
                .system
                .clone()
                .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.to_string()),
            max_tokens: cli.max_tokens.unwrap_or(8192).max(1),
            sibling_abort: !cli.no_sibling_abort,
            disable_parallel_tool_use: cli.no_parallel_tool_use,
            fallback_model: cli.fallback_model.clone(),
            retry,
            idle_timeout: Duration::from_secs(cli.idle_timeout.unwrap_or(90).max(1)),
            max_output_bytes: crate::tools::DEFAULT_MAX_OUTPUT_BYTES,
            tool_timeout: crate::tools::DEFAULT_TOOL_TIMEOUT,
            trace: cli.trace.clone(),
            mouse: cli.mouse,
        })
    }
}
