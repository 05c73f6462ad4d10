//! The provider section's keys in `config.toml`. The file spells out one table per
//! provider (`[anthropic]`, `[openai]`): the one place that names providers, so the rest of
//! the config reads every provider's defaults from the registry and names none
//! (tests/architecture.rs checks it).

use serde::Deserialize;

use crate::provider::ProviderKind;

/// The section's keys in `config.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct ProviderFile {
    pub provider: Option<ProviderKind>,
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    pub idle_timeout_secs: Option<u64>,
    /// Anthropic cache_control breakpoints (default true).
    pub prompt_cache: Option<bool>,
    #[serde(default)]
    pub anthropic: ProviderSection,
    #[serde(default)]
    pub openai: ProviderSection,
    #[serde(default)]
    pub retry: RetrySection,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProviderSection {
    pub base_url: Option<String>,
    /// The NAME of the variable that holds the key; the key itself never goes in a file.
    pub api_key_env: Option<String>,
    pub model: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RetrySection {
    pub max_attempts: Option<u32>,
    pub max_delay_secs: Option<u64>,
}

impl ProviderFile {
    /// The `[NAME]` section of the provider `kind` (empty when the file has none). The file
    /// format spells out one table per provider; this is the only place that maps them.
    pub fn section(&self, kind: ProviderKind) -> &ProviderSection {
        static EMPTY: ProviderSection = ProviderSection {
            base_url: None,
            api_key_env: None,
            model: None,
        };
        match kind {
            ProviderKind::Anthropic => &self.anthropic,
            ProviderKind::Openai => &self.openai,
            _ => &EMPTY,
        }
    }
}
