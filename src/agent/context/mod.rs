//! Context management before each request (DESIGN.md §10, seed 002's order): the context
//! estimate, micro-compaction, auto-compaction, reactive compaction on prompt_too_long,
//! budgets and cost. The loop calls [`prepare`] before every request and
//! [`reactive`](autocompact::reactive) when the API says the prompt is too long.

pub mod autocompact;
pub mod compact_error;
pub mod estimate;
pub mod facts;
pub mod ledger;
pub mod live;
pub mod microcompact;
pub mod prepare;
pub mod state_block;
pub mod summary_request;
pub mod transcript;

use std::sync::Arc;

use crate::message::Message;
use crate::models::ModelTable;
use crate::protocol::compaction::{Compaction, ContextStatus, Trigger};
use crate::provider::Usage;

/// What the user chose (config and flags).
#[derive(Clone, Debug)]
pub struct ContextSettings {
    pub models: Arc<ModelTable>,
    /// `--auto-compact off` turns it off: the turn then ends with `blocking_limit` when the
    /// context passes the hard limit.
    pub auto_compact: bool,
    /// Tokens kept free below the window besides the output reserve; default
    /// min(13,000, window / 10).
    pub buffer_tokens: Option<u64>,
    pub max_budget_usd: Option<f64>,
    pub max_budget_tokens: Option<u64>,
}

impl Default for ContextSettings {
    fn default() -> Self {
        ContextSettings {
            models: Arc::new(ModelTable::builtin()),
            auto_compact: true,
            buffer_tokens: None,
            max_budget_usd: None,
            max_budget_tokens: None,
        }
    }
}

/// What the agent tracks between requests.
#[derive(Clone, Debug, Default)]
pub struct ContextState {
    pub settings: ContextSettings,
    /// Usage of the last response, and the history length when its request was sent.
    last: Option<(Usage, usize)>,
    /// A window named by a prompt_too_long error ("… > 200000 maximum").
    pub learned_window: Option<u64>,
    /// Usage of every request of this session (summary requests included).
    pub session_usage: Usage,
    /// Cost so far; None once any request went to a model without prices.
    pub session_cost: Option<f64>,
    pub any_request: bool,
    pub compactions: u32,
    /// This agent's node in its tree's accounts: subagents' requests add into it, and
    /// budgets are measured at the root (DESIGN.md §12).
    pub ledger: Arc<ledger::Ledger>,
    /// Auto-compactions in a row that failed or left the context above the threshold;
    /// at [`MAX_AUTO_FAILURES`] auto-compaction stops trying (the reactive path remains).
    pub auto_failures: u32,
}

/// Seed 002's circuit breaker: a compaction that cannot help is not retried forever.
pub const MAX_AUTO_FAILURES: u32 = 3;

/// Limits derived from the model table, the settings and max_tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub window: u64,
    /// Auto-compaction starts above this.
    pub threshold: u64,
    /// A request above this cannot fit its output: blocking_limit (auto-compaction off).
    pub blocking: u64,
}

impl ContextState {
    pub fn new(settings: ContextSettings) -> Self {
        ContextState {
            settings,
            ..Default::default()
        }
    }

    pub fn limits(&self, model: &str, max_tokens: u32) -> Limits {
        let info = self.settings.models.lookup(model);
        let window = self.learned_window.unwrap_or(info.context_window);
        // The output reserve never takes more than a quarter of a small window (a 20k
        // window with max_tokens 64k would otherwise compact before every request).
        let reserve = u64::from(max_tokens).min(20_000).min(window / 4);
        let buffer = self
            .settings
            .buffer_tokens
            .unwrap_or((window / 10).min(13_000));
        Limits {
            window,
            threshold: window.saturating_sub(reserve + buffer),
            blocking: window.saturating_sub(reserve),
        }
    }

    /// Records a response's usage; `sent_len` is the history length its request carried.
    /// A response that ran server tools (web search) reports input summed over the API's
    /// internal iterations (a paused search: ~405k "input" for a 20k context): that is
    /// cost, not the size of the context, so the next estimate counts what is sent.
    pub fn record_usage(&mut self, model: &str, usage: Usage, sent_len: usize) {
        self.last = (usage.web_search_requests == 0).then_some((usage, sent_len));
        self.add_cost(model, usage);
    }

    /// Counts a request's usage toward the session's cost without touching the estimate
    /// (a summary request).
    pub fn add_cost(&mut self, model: &str, usage: Usage) {
        let cost = self.settings.models.cost_usd(model, &usage);
        self.session_cost = match (self.any_request, self.session_cost, cost) {
            (false, _, c) => c,
            (true, Some(a), Some(c)) => Some(a + c),
            _ => None,
        };
        self.any_request = true;
        self.session_usage.add(usage);
        self.ledger.add(model, usage, cost);
    }

    /// The session's cost with its subagents' (None when a price is unknown).
    pub fn tree_cost(&self) -> Option<f64> {
        let tree = self.ledger.tree();
        if tree.any {
            tree.cost
        } else {
            self.session_cost
        }
    }

    /// The history changed shape (compaction, reset): the next estimate is from scratch.
    pub fn forget_usage(&mut self) {
        self.last = None;
    }

    /// Estimated tokens of the next request: the last response's usage plus ~chars/4 of
    /// what was appended since, or a full estimate when there is no usage to build on.
    pub fn context_tokens<M: std::borrow::Borrow<Message>>(
        &self,
        fixed: u64,
        history: &[M],
    ) -> u64 {
        match self.last {
            Some((usage, sent_len)) if sent_len <= history.len() && usage.total_input() > 0 => {
                // history[sent_len] is the reply the usage's output tokens counted.
                let since = history.get(sent_len + 1..).unwrap_or(&[]);
                usage.total_input() + usage.output_tokens + estimate::messages(since)
            }
            _ => fixed + estimate::messages(history),
        }
    }

    pub fn status(
        &self,
        tokens: u64,
        window: u64,
        tools: &crate::tools::ToolRegistry,
    ) -> ContextStatus {
        let share = self.last.and_then(|(u, _)| {
            let total = u.total_input();
            (total > 0).then(|| u.cache_read_tokens as f64 / total as f64)
        });
        ContextStatus {
            context_tokens: tokens,
            window,
            // Subagents' requests included: the status bar shows what the session costs.
            cost_usd: self.ledger.tree().cost_usd(),
            cache_read_share: share,
            tools: estimate::tool_tokens(tools),
        }
    }

    /// Whether a request of about `next_tokens` input tokens (and at most `max_output`
    /// output) would pass a budget; the message names it.
    pub fn over_budget(&self, model: &str, next_tokens: u64, max_output: u32) -> Option<String> {
        let s = &self.settings;
        // The whole tree's spend: a parent and its subagents share one budget.
        let tree = self.ledger.root_spend();
        let spent = &tree.usage;
        let spent_tokens = spent.total_input() + spent.output_tokens;
        // The next reply's output is unknown; the last one's size is the best guess.
        let out_guess = self
            .last
            .map_or(0, |(u, _)| u.output_tokens)
            .min(u64::from(max_output));
        if let Some(max) = s.max_budget_tokens
            && spent_tokens + next_tokens + out_guess > max
        {
            return Some(format!(
                "token budget: {spent_tokens} tokens spent, the next request needs about {} \
                 more (--max-budget-tokens {max})",
                next_tokens + out_guess
            ));
        }
        if let Some(max) = s.max_budget_usd {
            let Some(prices) = s.models.lookup(model).prices else {
                return Some(format!(
                    "cost budget: the price of {model} is unknown, so --max-budget-usd {max} \
                     cannot be kept (add [models.\"{model}\"] prices to config.toml)"
                ));
            };
            // Input the last request already sent is read from the cache at best; the
            // rest is written fresh. Priced as uncached input when nothing is known.
            let cached = self
                .last
                .map_or(0, |(u, _)| u.total_input())
                .min(next_tokens);
            let next = prices.cost_of(next_tokens - cached, out_guess, 0, cached);
            let spent_usd = tree.cost.unwrap_or(0.0);
            if spent_usd + next > max {
                return Some(format!(
                    "cost budget: ${spent_usd:.4} spent, the next request costs about \
                     ${next:.4} (--max-budget-usd {max})"
                ));
            }
        }
        None
    }
}

/// The window a prompt_too_long message names: "prompt is too long: 210000 tokens > 200000
/// maximum" → 200000 (Anthropic); "maximum context length is 128000 tokens" → 128000
/// (OpenAI).
pub fn window_from_error(message: &str) -> Option<u64> {
    if let Some((_, rest)) = message.split_once("maximum context length is ") {
        let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
        return number.parse().ok().filter(|n| *n > 0);
    }
    let (_, rest) = message.split_once('>')?;
    let number: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let tail = rest.trim_start()[number.len()..].trim_start();
    if !tail.starts_with("maximum") {
        return None;
    }
    number.parse().ok().filter(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_read_from_the_api_message() {
        assert_eq!(
            window_from_error("prompt is too long: 210000 tokens > 200000 maximum"),
            Some(200_000)
        );
        assert_eq!(window_from_error("input length > limit"), None);
        assert_eq!(
            window_from_error(
                "This model's maximum context length is 128000 tokens. However, your messages \
                 resulted in 130000 tokens."
            ),
            Some(128_000)
        );
        assert_eq!(window_from_error("x > 5 apples"), None);
    }

    #[test]
    fn limits_scale_with_the_window() {
        let s = ContextState::default();
        let l = s.limits("claude-sonnet-4-5", 8192);
        assert_eq!(l.window, 200_000);
        assert_eq!(l.threshold, 200_000 - 8192 - 13_000);
        assert_eq!(l.blocking, 200_000 - 8192);
        let small = ContextState {
            learned_window: Some(20_000),
            ..Default::default()
        };
        let l = small.limits("x", 2048);
        assert_eq!(l.threshold, 20_000 - 2048 - 2000);
        let l = small.limits("x", 64_000);
        assert_eq!(
            l.threshold,
            20_000 - 5000 - 2000,
            "reserve capped at window / 4"
        );
    }

    #[test]
    fn unknown_prices_make_the_session_cost_unknown() {
        let mut s = ContextState::default();
        let u = Usage {
            input_tokens: 1000,
            output_tokens: 10,
            ..Default::default()
        };
        s.record_usage("claude-sonnet-4-5", u, 1);
        assert!(s.session_cost.is_some());
        s.record_usage("mystery", u, 3);
        assert_eq!(s.session_cost, None);
        assert_eq!(s.session_usage.input_tokens, 2000);
    }
}
