//! Each part's settings, one section a file: its command-line flags (a clap group the
//! command line flattens), its keys in `config.toml` (a view of the file the file reader
//! fills), what they resolve to, and the layering (flag > env > file > default).
//! `config::Config` is the sections side by side; resolving is one call per section.
//!
//! The sections sit below the command line (which flattens their flags) and the config
//! file (which holds their views), so they name neither.

pub mod agents;
pub mod context;
pub mod prompt;
pub mod provider;
mod provider_file;
pub mod request;
pub mod sandbox;
pub mod session;
pub mod tools;
pub mod tui;

/// The environment as tooloop reads it, so tests can pass their own.
pub trait Env {
    fn var(&self, key: &str) -> Option<String>;
}

/// The process's own environment (an empty value counts as unset).
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, key: &str) -> Option<String> {
        std::env::var(key).ok().filter(|v| !v.is_empty())
    }
}

/// A section whose flags or keys do not make sense (a usage error: exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("TOOLOOP_PROVIDER={name:?}: expected one of {names}", name = .0, names = provider::names())]
    UnknownProvider(String),
    /// Flags that exclude each other.
    #[error("{0}")]
    Conflict(&'static str),
    #[error("--max-budget-usd {0}: expected a number of USD ≥ 0")]
    Budget(f64),
    #[error("config: {0}")]
    Record(#[from] crate::recording::RecordError),
    #[error("thinking_budget = {0}: the budget must be at least {min} tokens (the API's minimum), or 0 for off", min = crate::provider::MIN_THINKING_BUDGET)]
    ThinkingBudget(u32),
}
