//! What every provider is built from and what it falls back on: the settings the engine
//! hands a constructor, each provider's defaults (its registration line names them), and why
//! building one can fail. Below the providers and the registry, so both read it.

use std::time::Duration;

/// What a provider is built from; nothing here knows the command line or the config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderSettings {
    /// The API's base URL (a path prefix is kept); unused by the demo.
    pub base_url: String,
    /// Only ever placed in a request header; never printed.
    pub api_key: Option<String>,
    /// Longest wait for the response head.
    pub head_timeout: Duration,
    /// Anthropic prompt-caching breakpoints (`--no-prompt-cache` turns them off).
    pub prompt_cache: bool,
}

/// What a provider uses when the flags, the environment and the config file say nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProviderDefaults {
    pub model: &'static str,
    /// Empty for a provider without an endpoint (the offline demo).
    pub base_url: &'static str,
    /// The variable that holds the API key (config `api_key_env` names another one). A
    /// provider whose key is set is picked when nothing names a provider, in registration
    /// order. None: the provider needs no key.
    pub api_key_env: Option<&'static str>,
    /// The variable that overrides the base URL (below `--base-url`, above the file).
    pub base_url_env: Option<&'static str>,
    /// An in-process model: the environment and the config file (written for a real
    /// provider) do not name its model or URL, only `--model` does; it is the fallback when
    /// no provider's key is set.
    pub offline: bool,
    /// What it sends of [`super::Reasoning`]: the thinking budget, the reasoning effort.
    pub thinking: bool,
    pub reasoning_effort: bool,
    /// Which assistant messages must carry their reasoning back to this provider, and in
    /// which field (DeepSeek's thinking mode refuses a tool-call turn without it).
    pub reasoning_echo: ReasoningEcho,
    /// It runs Anthropic's server-side tools (`--web-search`).
    pub server_tools: bool,
}

/// Where an OpenAI-compatible provider wants the reasoning of earlier replies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReasoningEcho {
    /// Not sent back (OpenAI, Mistral, local servers: they neither need nor expect it).
    #[default]
    Never,
    /// Sent back in this field on every assistant message of an exchange that called
    /// tools (the replies between two prompts of the user, once one of them called a
    /// tool), as DeepSeek's thinking mode requires; other replies go without it.
    ToolTurns(&'static str),
}

/// Why a provider could not be built. Never retried: the settings must change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("the {provider} provider needs an API key: set {env}")]
    MissingKey {
        provider: &'static str,
        env: &'static str,
    },
    #[error("{env} contains characters that cannot be sent in an HTTP header")]
    KeyNotAHeader { env: &'static str },
    /// `reason` says what is wrong with the URL.
    #[error("invalid {provider} base URL {url:?}: {reason}")]
    BaseUrl {
        provider: &'static str,
        url: String,
        reason: String,
    },
}
