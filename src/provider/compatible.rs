//! OpenAI-compatible providers with their own name, endpoint and key, and the rules that set
//! them apart from OpenAI (the registry lists them; the wire code is `openai`'s).

use super::settings::{ProviderDefaults, ReasoningEcho};
use super::{ProviderSettings, SetupError, openai::OpenAiProvider};

/// DeepSeek: `deepseek-reasoner` streams `reasoning_content`; in thinking mode a reply
/// that called tools must go back with it ("the reasoning_content must be fully passed back
/// to the API in all subsequent requests", api-docs.deepseek.com, Thinking Mode).
pub const DEEPSEEK: ProviderDefaults = ProviderDefaults {
    model: "deepseek-reasoner",
    base_url: "https://api.deepseek.com",
    api_key_env: Some("DEEPSEEK_API_KEY"),
    base_url_env: Some("DEEPSEEK_BASE_URL"),
    offline: false,
    thinking: false,
    reasoning_effort: true,
    reasoning_echo: ReasoningEcho::ToolTurns("reasoning_content"),
    server_tools: false,
};

/// Mistral: its reasoning models stream content as a list of thinking and text parts
/// (decoded by `openai::stream`); nothing needs to go back.
pub const MISTRAL: ProviderDefaults = ProviderDefaults {
    model: "magistral-medium-latest",
    base_url: "https://api.mistral.ai/v1",
    api_key_env: Some("MISTRAL_API_KEY"),
    base_url_env: Some("MISTRAL_BASE_URL"),
    offline: false,
    thinking: false,
    reasoning_effort: false,
    reasoning_echo: ReasoningEcho::Never,
    server_tools: false,
};

/// The OpenAI-compatible provider named `name`, following `defaults`' rules.
pub fn build(
    name: &'static str,
    defaults: ProviderDefaults,
    s: &ProviderSettings,
) -> Result<OpenAiProvider, SetupError> {
    Ok(OpenAiProvider::from_settings(s)?
        .named(name, defaults.api_key_env.unwrap_or("OPENAI_API_KEY"))
        .with_reasoning_echo(defaults.reasoning_echo))
}
