//! The step before each request (DESIGN.md §10): micro-compaction, auto-compaction or the
//! blocking limit, the budget check, and the context status for front ends.

use tokio_util::sync::CancellationToken;

use super::autocompact::{self, CompactError};
use super::{Trigger, estimate, microcompact};
use crate::agent::Agent;
use crate::agent::protocol::{AgentEvent, Terminal};
use crate::provider::Usage;

/// What the loop does after [`prepare`].
pub enum Prepared {
    /// Send the request. `usage` is what a summary request spent (add it to the prompt's).
    Send { usage: Usage },
    /// End the prompt before sending.
    End {
        reason: Terminal,
        message: Option<String>,
        usage: Usage,
    },
}

/// Readies the history for the next request of `turn` on `model`.
pub async fn prepare(
    agent: &mut Agent,
    turn: u32,
    model: &str,
    cancel: &CancellationToken,
) -> Prepared {
    let mut usage = Usage::default();
    let limits = agent.context.limits(model, agent.settings.max_tokens);
    let fixed = estimate::fixed(&agent.settings.system, &agent.exec.registry.specs());
    let mut tokens = agent.context.context_tokens(fixed, &agent.history);

    if let Some(cleared) = microcompact::microcompact(
        agent.history.shared_mut(),
        tokens,
        limits.threshold,
        limits.window,
    ) {
        let before = tokens;
        agent.context.forget_usage();
        tokens = agent.context.context_tokens(fixed, &agent.history);
        let info = super::Compaction {
            trigger: Trigger::Micro,
            pre_tokens: before,
            post_tokens: tokens,
            messages_before: agent.history.len(),
            messages_after: agent.history.len(),
            summary: String::new(),
        };
        tracing::info!(
            results = cleared.results,
            freed = cleared.freed_tokens,
            "micro-compaction"
        );
        if let Some(r) = &mut agent.observer {
            r.compaction(&info, &agent.history);
        }
        agent.exec.events.send(AgentEvent::Compacted {
            info,
            messages: agent.history.to_messages(),
        });
    }

    if tokens > limits.threshold {
        if agent.context.settings.auto_compact
            && agent.context.auto_failures < super::MAX_AUTO_FAILURES
        {
            match autocompact::compact(agent, turn, model, Trigger::Auto, None, cancel).await {
                Ok((c, u)) => {
                    usage.add(u);
                    tokens = c.post_tokens;
                    if tokens > limits.threshold {
                        agent.context.auto_failures += 1;
                    } else {
                        agent.context.auto_failures = 0;
                    }
                }
                Err(CompactError::Aborted) => {
                    return Prepared::End {
                        reason: Terminal::AbortedStreaming,
                        message: None,
                        usage,
                    };
                }
                // The request may still fit; if not, the reactive path has its turn.
                Err(e) => {
                    agent.context.auto_failures += 1;
                    agent.exec.events.send(AgentEvent::Error {
                        message: format!("auto-{e}"),
                    });
                }
            }
        } else if tokens > limits.blocking {
            let message = format!(
                "the conversation (about {tokens} tokens) no longer fits the context window \
                 of {} tokens with room for the answer, and auto-compaction is off; \
                 run /compact or start a new conversation",
                limits.window
            );
            agent.exec.events.send(AgentEvent::Error {
                message: message.clone(),
            });
            return Prepared::End {
                reason: Terminal::BlockingLimit,
                message: Some(message),
                usage,
            };
        }
    }

    if let Some(message) = agent
        .context
        .over_budget(model, tokens, agent.settings.max_tokens)
    {
        agent.exec.events.send(AgentEvent::Error {
            message: message.clone(),
        });
        return Prepared::End {
            reason: Terminal::BudgetExceeded,
            message: Some(message),
            usage,
        };
    }
    agent.exec.events.send(AgentEvent::Context(
        agent.context.status(tokens, limits.window),
    ));
    Prepared::Send { usage }
}

/// After a response: its usage feeds the estimate, the cost and the status bar.
pub fn after_response(agent: &mut Agent, model: &str, usage: Usage, sent_len: usize) {
    agent.context.record_usage(model, usage, sent_len);
    let limits = agent.context.limits(model, agent.settings.max_tokens);
    let fixed = estimate::fixed(&agent.settings.system, &agent.exec.registry.specs());
    let tokens = agent.context.context_tokens(fixed, &agent.history);
    agent.exec.events.send(AgentEvent::Context(
        agent.context.status(tokens, limits.window),
    ));
}

/// The current context estimate and window, for the end-of-prompt result.
pub fn current(agent: &Agent, model: &str) -> (u64, u64) {
    let limits = agent.context.limits(model, agent.settings.max_tokens);
    let fixed = estimate::fixed(&agent.settings.system, &agent.exec.registry.specs());
    (
        agent.context.context_tokens(fixed, &agent.history),
        limits.window,
    )
}

/// The API said the prompt is too long: remember the window it named and compact once.
pub async fn reactive(
    agent: &mut Agent,
    turn: u32,
    model: &str,
    error_message: &str,
    cancel: &CancellationToken,
) -> Result<Usage, CompactError> {
    if let Some(w) = super::window_from_error(error_message) {
        agent.context.learned_window = Some(w);
    }
    autocompact::compact(agent, turn, model, Trigger::Reactive, None, cancel)
        .await
        .map(|(_, u)| u)
}

/// `/compact [instructions]` between prompts. Errors and aborts are reported as events;
/// the history is then unchanged.
pub async fn manual(agent: &mut Agent, instructions: Option<&str>, cancel: &CancellationToken) {
    let model = agent.settings.model.clone();
    match autocompact::compact(agent, 0, &model, Trigger::Manual, instructions, cancel).await {
        Ok((_, usage)) => {
            let _ = usage;
            let (tokens, window) = current(agent, &model);
            agent
                .exec
                .events
                .send(AgentEvent::Context(agent.context.status(tokens, window)));
        }
        Err(e) => agent.exec.events.send(AgentEvent::Error {
            message: e.to_string(),
        }),
    }
}
