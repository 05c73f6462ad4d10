//! The context window and what keeps it in bounds: the model table, compaction, budgets
//! (DESIGN.md §10).

use clap::ValueEnum;
use serde::Deserialize;

use super::SettingsError;
use crate::agent::context::ContextSettings;

/// `--auto-compact on|off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

#[derive(clap::Args, Debug, Clone, Default)]
pub struct ContextFlags {
    /// Compact the conversation before a request when the context passes the threshold.
    #[arg(long, value_enum, value_name = "on|off")]
    pub auto_compact: Option<OnOff>,

    /// Stop before a request would take the session's cost past X USD (budget_exceeded).
    #[arg(long, value_name = "X")]
    pub max_budget_usd: Option<f64>,

    /// Stop before a request would take the session past N tokens (budget_exceeded).
    #[arg(long, value_name = "N")]
    pub max_budget_tokens: Option<u64>,
}

/// The section's keys in `config.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct ContextFile {
    /// Compaction when the context passes the threshold (default true).
    pub auto_compact: Option<bool>,
    /// Tokens kept free below the window besides the output reserve.
    pub auto_compact_buffer_tokens: Option<u64>,
    /// `[models] main/plan/small` (src/agent/model_routes.rs) and `[models."NAME"]`:
    /// window, output limit and prices (see src/models.rs).
    #[serde(default)]
    pub models: crate::agent::model_routes::ModelsSection,
}

pub fn resolve(flags: &ContextFlags, file: &ContextFile) -> Result<ContextSettings, SettingsError> {
    if let Some(x) = flags.max_budget_usd
        && !(x.is_finite() && x >= 0.0)
    {
        return Err(SettingsError::Budget(x));
    }
    Ok(ContextSettings {
        models: std::sync::Arc::new(
            crate::models::ModelTable::builtin().with_overrides(&file.models.table),
        ),
        auto_compact: match flags.auto_compact {
            Some(v) => v == OnOff::On,
            None => file.auto_compact.unwrap_or(true),
        },
        buffer_tokens: file.auto_compact_buffer_tokens,
        max_budget_usd: flags.max_budget_usd,
        max_budget_tokens: flags.max_budget_tokens,
    })
}
