//! Which provider and model, where and with which key, and how hard to try: `--provider`,
//! `--model`, `--base-url`, the key's variable, retries, the idle timeout, prompt caching.

use std::time::Duration;

pub use super::provider_file::{ProviderFile, ProviderSection, RetrySection};
use super::{Env, SettingsError};
use crate::provider::ProviderKind;
use crate::provider::retry::RetryPolicy;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct ProviderFlags {
    /// anthropic | openai | deepseek | mistral | demo (default: by which API key is set,
    /// else demo).
    #[arg(long, value_enum)]
    pub provider: Option<ProviderKind>,

    /// Model id sent to the provider.
    #[arg(long)]
    pub model: Option<String>,

    /// Provider base URL; a path prefix is kept.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Model to switch to after repeated overloaded errors.
    #[arg(long, value_name = "NAME")]
    pub fallback_model: Option<String>,

    /// The model while in plan mode, until the plan is approved (`[models] plan`).
    #[arg(long, value_name = "NAME")]
    pub plan_model: Option<String>,

    /// The model of the `explore` agent and compaction summaries (`[models] small`).
    #[arg(long, value_name = "NAME")]
    pub small_model: Option<String>,

    /// Most attempts per request (retries before and after the first byte).
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,

    /// Seconds without a byte before a stream counts as dead.
    #[arg(long, value_name = "SECS")]
    pub idle_timeout: Option<u64>,

    /// Send no cache_control breakpoints (Anthropic prompt caching off).
    #[arg(long)]
    pub no_prompt_cache: bool,
}

// Debug is written by hand below so that the key can never reach a log line.
#[derive(Clone)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    pub model: String,
    pub base_url: String,
    /// Never logged, never written anywhere.
    pub api_key: Option<String>,
    pub fallback_model: Option<String>,
    pub retry: RetryPolicy,
    pub idle_timeout: Duration,
    /// Anthropic prompt-caching breakpoints.
    pub prompt_cache: bool,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("kind", &self.kind)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

impl ProviderConfig {
    /// What the provider registry builds this provider from.
    pub fn provider_settings(&self) -> crate::provider::ProviderSettings {
        crate::provider::ProviderSettings {
            base_url: self.base_url.clone(),
            api_key: self.api_key.clone(),
            head_timeout: self.idle_timeout,
            prompt_cache: self.prompt_cache,
        }
    }
}

/// Flags beat the environment, which beats the file, which beats the provider's defaults
/// (every provider's come from the registry; nothing here names one).
pub fn resolve(
    flags: &ProviderFlags,
    env: &dyn Env,
    file: &ProviderFile,
) -> Result<ProviderConfig, SettingsError> {
    let key_of = |kind: ProviderKind| {
        let var = file
            .section(kind)
            .api_key_env
            .clone()
            .or_else(|| kind.defaults().api_key_env.map(String::from))?;
        env.var(&var)
    };
    let kind = match (flags.provider, env.var("TOOLOOP_PROVIDER")) {
        (Some(p), _) => p,
        (None, Some(name)) => ProviderKind::from_name(&name)
            .ok_or_else(|| SettingsError::UnknownProvider(name.to_ascii_lowercase()))?,
        (None, None) => match file.provider {
            Some(p) => p,
            // The first provider (in registration order) whose key is set, else the
            // offline one.
            None => ProviderKind::ALL
                .iter()
                .copied()
                .find(|&k| !k.defaults().offline && key_of(k).is_some())
                .or_else(|| {
                    ProviderKind::ALL
                        .iter()
                        .copied()
                        .find(|k| k.defaults().offline)
                })
                .unwrap_or(ProviderKind::ALL[0]),
        },
    };
    let defaults = kind.defaults();
    let section = file.section(kind);
    let pick =
        |flag: &Option<String>, var: Option<&str>, from_file: &Option<String>, default: &str| {
            flag.clone()
                .or_else(|| var.and_then(|v| env.var(v)))
                .or_else(|| from_file.clone())
                .unwrap_or_else(|| default.to_string())
        };
    let (model, base_url, api_key) = if defaults.offline {
        // An offline model has no name to configure; a file written for a real
        // provider must not make it look like one.
        (
            flags.model.clone().unwrap_or_else(|| defaults.model.into()),
            defaults.base_url.to_string(),
            None,
        )
    } else {
        let model_file = file.model.clone().or_else(|| section.model.clone());
        (
            pick(
                &flags.model,
                Some("TOOLOOP_MODEL"),
                &model_file,
                defaults.model,
            ),
            pick(
                &flags.base_url,
                defaults.base_url_env,
                &section.base_url,
                defaults.base_url,
            ),
            key_of(kind),
        )
    };
    let mut retry = RetryPolicy::default();
    if let Some(n) = flags.max_retries.or(file.retry.max_attempts) {
        retry.max_attempts = n.max(1);
    }
    if let Some(secs) = file.retry.max_delay_secs {
        retry.max_delay = Duration::from_secs(secs);
    }
    Ok(ProviderConfig {
        kind,
        model,
        base_url,
        api_key,
        fallback_model: flags
            .fallback_model
            .clone()
            .or_else(|| file.fallback_model.clone()),
        retry,
        idle_timeout: Duration::from_secs(
            flags
                .idle_timeout
                .or(file.idle_timeout_secs)
                .unwrap_or(90)
                .max(1),
        ),
        prompt_cache: !flags.no_prompt_cache && file.prompt_cache.unwrap_or(true),
    })
}

/// Every registered provider's name, comma-separated.
pub(super) fn names() -> String {
    ProviderKind::ALL
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}
