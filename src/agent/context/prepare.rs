//! The step before each request (DESIGN.md §10): micro-compaction, auto-compaction or the
//! blocking limit, the budget check, and the context status for front ends.

use tokio_util::sync::CancellationToken;

use super::autocompact::{self, CompactError};
use super::{Trigger, estimate, microcompact};
use crate::agent::Agent;
use crate::protocol::{AgentEvent, Terminal};
use crate::provider::Usage;
use crate::text::grouped;

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
    let fixed = estimate::fixed(&agent.settings.system, &agent.exec.registry);
    let mut tokens = agent.context.context_tokens(fixed, &agent.history);

    // Micro-compaction only when it frees a tenth of the window (it rewrites the cache).
    tokens = micro(agent, fixed, tokens, limits.threshold, limits.window / 10);

    // A paused server-tool turn (`pause_turn`) ends the history with its assistant message,
    // which the API continues: a summary would drop it and the model would lose its own
    // search results. It goes out as it is; a request too long is the reactive path's.
    let paused = agent
        .history
        .last()
        .is_some_and(|m| m.role == crate::message::Role::Assistant);
    if tokens > limits.threshold && !paused {
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
                // A summary cannot take 30 % off (the context is mostly the latest turns):
                // the seed's next steps, micro-compaction at any gain, then the hard limit.
                Err(e @ CompactError::NothingToCompact { would_be, .. }) => {
                    // Only a spent summary request counts toward the circuit breaker; the
                    // check before one is free and must not stop later compactions.
                    if would_be.is_some() {
                        agent.context.auto_failures += 1;
                    }
                    tracing::info!("auto-compaction skipped: {e}");
                    tokens = micro(agent, fixed, tokens, limits.threshold, 0);
                    if let Some(end) = blocking(agent, tokens, limits.blocking, limits.window) {
                        return end(usage);
                    }
                }
                // The request may still fit; if not, the reactive path has its turn.
                Err(e) => {
                    agent.context.auto_failures += 1;
                    agent.exec.events.send(AgentEvent::Error {
                        message: format!("auto-{e}"),
                    });
                }
            }
        } else if let Some(end) = blocking(agent, tokens, limits.blocking, limits.window) {
            return end(usage);
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
    agent
        .exec
        .events
        .send(AgentEvent::Context(agent.context.status(
            tokens,
            limits.window,
            &agent.exec.registry,
        )));
    Prepared::Send { usage }
}

/// Micro-compaction when it frees at least `min_gain` tokens; the context tokens after.
fn micro(agent: &mut Agent, fixed: u64, tokens: u64, threshold: u64, min_gain: u64) -> u64 {
    // microcompact asks for a tenth of its `window` argument.
    let Some(cleared) = microcompact::microcompact(
        agent.history.shared_mut(),
        tokens,
        threshold,
        min_gain.saturating_mul(10),
    ) else {
        return tokens;
    };
    agent.context.forget_usage();
    let after = agent.context.context_tokens(fixed, &agent.history);
    let info = super::Compaction {
        trigger: Trigger::Micro,
        pre_tokens: tokens,
        post_tokens: after,
        messages_before: agent.history.len(),
        messages_after: agent.history.len(),
        summary: String::new(),
        state: String::new(),
        kept: Default::default(),
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
    after
}

/// Past the hard limit nothing is sent: the turn ends with `blocking_limit`.
fn blocking(
    agent: &Agent,
    tokens: u64,
    limit: u64,
    window: u64,
) -> Option<impl FnOnce(Usage) -> Prepared> {
    if tokens <= limit {
        return None;
    }
    let auto = if agent.context.settings.auto_compact {
        "compaction cannot shrink it enough"
    } else {
        "auto-compaction is off"
    };
    let message = format!(
        "the conversation (about {} tokens) no longer fits the context window of {} tokens \
         with room for the answer, and {auto}; run /compact or start a new conversation",
        grouped(tokens),
        grouped(window)
    );
    agent.exec.events.send(AgentEvent::Error {
        message: message.clone(),
    });
    Some(move |usage| Prepared::End {
        reason: Terminal::BlockingLimit,
        message: Some(message),
        usage,
    })
}

/// After a response: its usage feeds the estimate, the cost and the status bar.
pub fn after_response(agent: &mut Agent, model: &str, usage: Usage, sent_len: usize) {
    agent.context.record_usage(model, usage, sent_len);
    let limits = agent.context.limits(model, agent.settings.max_tokens);
    let fixed = estimate::fixed(&agent.settings.system, &agent.exec.registry);
    let tokens = agent.context.context_tokens(fixed, &agent.history);
    agent
        .exec
        .events
        .send(AgentEvent::Context(agent.context.status(
            tokens,
            limits.window,
            &agent.exec.registry,
        )));
}

/// The current context estimate and window, for the end-of-prompt result.
pub fn current(agent: &Agent, model: &str) -> (u64, u64) {
    let limits = agent.context.limits(model, agent.settings.max_tokens);
    let fixed = estimate::fixed(&agent.settings.system, &agent.exec.registry);
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
        Ok(_) => {
            let (tokens, window) = current(agent, &model);
            agent
                .exec
                .events
                .send(AgentEvent::Context(agent.context.status(
                    tokens,
                    window,
                    &agent.exec.registry,
                )));
        }
        // Not a failure: the conversation is already as small as a summary would make it.
        Err(e @ CompactError::NothingToCompact { .. }) => {
            agent.exec.events.send(AgentEvent::Notice {
                text: e.to_string(),
            })
        }
        Err(e) => agent.exec.events.send(AgentEvent::Error {
            message: e.to_string(),
        }),
    }
}
