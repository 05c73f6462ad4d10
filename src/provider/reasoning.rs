//! How much a model may think before it answers, and how each API is asked for it:
//! Anthropic extended thinking (`thinking: {"type": "enabled", "budget_tokens": N}`, with
//! `max_tokens` kept above the budget and the interleaved-thinking beta header), and the
//! OpenAI-compatible `reasoning_effort`.
//!
//! The reply side (thinking blocks with their signatures, redacted_thinking) is decoded by
//! the stream decoders and kept byte for byte in history; nothing here touches it.

use serde::{Deserialize, Serialize};

/// The Anthropic API's smallest thinking budget.
pub const MIN_THINKING_BUDGET: u32 = 1024;

/// Lets Claude 4 models think between tool calls (interleaved thinking), so the thinking
/// that follows a tool result streams and shows in order.
pub const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";

/// What a request asks for; each provider sends the part it knows. Off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reasoning {
    /// Anthropic extended thinking budget in tokens.
    pub thinking_budget: Option<u32>,
    /// OpenAI-compatible `reasoning_effort`.
    pub effort: Option<ReasoningEffort>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    Low,
    Medium,
    High,
}

impl ReasoningEffort {
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        }
    }
}

impl Serialize for Reasoning {
    /// The Anthropic `thinking` parameter (only serialized when a budget is set).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Enabled {
            #[serde(rename = "type")]
            kind: &'static str,
            budget_tokens: u32,
        }
        Enabled {
            kind: "enabled",
            budget_tokens: self.thinking_budget.unwrap_or(MIN_THINKING_BUDGET),
        }
        .serialize(s)
    }
}

impl Reasoning {
    /// Whether the Anthropic request carries a `thinking` parameter.
    pub fn thinking_on(&self) -> bool {
        self.thinking_budget.is_some()
    }

    /// The API refuses `max_tokens <= budget_tokens` (thinking counts against max_tokens).
    /// The config already raises the user's value and says so; a request built elsewhere
    /// with a small limit keeps its own room for the answer on top of the budget.
    pub fn max_tokens(&self, max_tokens: u32) -> u32 {
        match self.thinking_budget {
            Some(budget) if max_tokens <= budget => budget.saturating_add(max_tokens),
            _ => max_tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_keeps_max_tokens_above_the_budget() {
        let off = Reasoning::default();
        assert_eq!(off.max_tokens(100), 100);
        let on = Reasoning {
            thinking_budget: Some(4096),
            effort: None,
        };
        assert_eq!(on.max_tokens(8192), 8192);
        assert_eq!(on.max_tokens(2000), 6096);
        assert_eq!(on.max_tokens(4096), 8192);
        assert_eq!(
            serde_json::to_value(on).expect("json"),
            serde_json::json!({"type": "enabled", "budget_tokens": 4096})
        );
    }
}
