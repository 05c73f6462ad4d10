//! What each request asks of the model: turns, output tokens, thinking, reasoning effort,
//! parallel tool use. What a provider ignores is said as a note, once, when the run starts.

use serde::Deserialize;

use super::SettingsError;
use crate::provider::{ProviderKind, ReasoningEffort};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct RequestFlags {
    /// Loop iterations before stopping with reason max_turns.
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,

    /// Anthropic extended thinking with a budget of N tokens (at least 1024), or off.
    #[arg(long, value_name = "N|off", value_parser = parse_thinking)]
    pub thinking: Option<ThinkingArg>,

    /// OpenAI-compatible reasoning effort: low | medium | high.
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub reasoning_effort: Option<ReasoningEffort>,

    /// Max output tokens per request.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,

    /// Ask the model for at most one tool call per reply.
    #[arg(long)]
    pub no_parallel_tool_use: bool,
}

/// `--thinking N|off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThinkingArg {
    Off,
    Budget(u32),
}

fn parse_thinking(s: &str) -> Result<ThinkingArg, String> {
    if s.eq_ignore_ascii_case("off") {
        return Ok(ThinkingArg::Off);
    }
    let n: u32 = s
        .parse()
        .map_err(|_| format!("expected a number of tokens or \"off\", got {s:?}"))?;
    if n < crate::provider::MIN_THINKING_BUDGET {
        return Err(format!(
            "the thinking budget must be at least {} tokens (the API's minimum)",
            crate::provider::MIN_THINKING_BUDGET
        ));
    }
    Ok(ThinkingArg::Budget(n))
}

/// The section's keys at the top of `config.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct RequestFile {
    pub max_turns: Option<u32>,
    pub max_tokens: Option<u32>,
    /// Extended thinking budget in tokens (Anthropic); 0 = off.
    pub thinking_budget: Option<u32>,
    pub reasoning_effort: Option<ReasoningEffort>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RequestSettings {
    pub max_turns: u32,
    pub max_tokens: u32,
    /// Extended thinking budget; None = off.
    pub thinking_budget: Option<u32>,
    /// OpenAI-compatible reasoning_effort; None = not sent.
    pub reasoning_effort: Option<ReasoningEffort>,
    pub disable_parallel_tool_use: bool,
}

/// Resolves the section for `provider`; what it will not send goes to `notes`.
pub fn resolve(
    flags: &RequestFlags,
    file: &RequestFile,
    provider: ProviderKind,
    notes: &mut Vec<String>,
) -> Result<RequestSettings, SettingsError> {
    let defaults = provider.defaults();
    let mut max_tokens = flags.max_tokens.or(file.max_tokens).unwrap_or(8192).max(1);
    let thinking_budget = thinking_budget(flags, file)?;
    let reasoning_effort = flags.reasoning_effort.or(file.reasoning_effort);
    if let Some(budget) = thinking_budget {
        if !defaults.thinking {
            notes.push(format!(
                "--thinking is not sent by the {provider} provider{}",
                if defaults.reasoning_effort {
                    " (use --reasoning-effort)"
                } else {
                    ""
                }
            ));
        } else if max_tokens <= budget {
            // Thinking counts against max_tokens, and the API refuses a limit that is
            // not above the budget: keep the asked-for room for the answer on top.
            let raised = budget.saturating_add(max_tokens);
            notes.push(format!(
                "max_tokens {max_tokens} is not above the thinking budget {budget}; \
                 sending max_tokens {raised} ({budget} for thinking + {max_tokens} for \
                 the answer)"
            ));
            max_tokens = raised;
        }
    }
    if reasoning_effort.is_some() && !defaults.reasoning_effort {
        notes.push(format!(
            "--reasoning-effort is not sent by the {provider} provider{}",
            if defaults.thinking {
                " (use --thinking N)"
            } else {
                ""
            }
        ));
    }
    Ok(RequestSettings {
        max_turns: flags.max_turns.or(file.max_turns).unwrap_or(50).max(1),
        max_tokens,
        thinking_budget,
        reasoning_effort,
        disable_parallel_tool_use: flags.no_parallel_tool_use,
    })
}

/// `--thinking` beats `thinking_budget` in the file; 0 in the file means off.
fn thinking_budget(flags: &RequestFlags, file: &RequestFile) -> Result<Option<u32>, SettingsError> {
    match (flags.thinking, file.thinking_budget) {
        (Some(ThinkingArg::Off), _) | (None, None | Some(0)) => Ok(None),
        (Some(ThinkingArg::Budget(n)), _) => Ok(Some(n)),
        (None, Some(n)) if n < crate::provider::MIN_THINKING_BUDGET => {
            Err(SettingsError::ThinkingBudget(n))
        }
        (None, Some(n)) => Ok(Some(n)),
    }
}
