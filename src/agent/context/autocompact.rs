//! Compaction proper (DESIGN.md §10, §12): a summary request, then a new history of one
//! user message (the model's summary and the state block tooloop builds from what it
//! recorded) plus the most recent turns kept verbatim. Used by auto (threshold), reactive
//! (prompt_too_long) and manual (`/compact`) compaction alike.
//!
//! The kept tail is sized from what is compacted (at most a third of it), so a compaction
//! never keeps more than it removes; and a compaction that would not shrink the context by
//! at least [`MIN_SHRINK_PERCENT`] % changes nothing ([`CompactError::NothingToCompact`]).
//! A failed summary (an error, an abort, an empty text) leaves history exactly as it was.

use tokio_util::sync::CancellationToken;

use super::{Compaction, Trigger, estimate, live, state_block, summary_request};
use crate::agent::Agent;
use crate::agent::hook_calls::{self, PreCompact};
use crate::message::{ContentBlock, Message, Role};
use crate::protocol::AgentEvent;
use crate::provider::Usage;

pub use super::compact_error::{CompactError, MIN_SHRINK_PERCENT};

/// Whether going from `from` to `to` tokens takes at least [`MIN_SHRINK_PERCENT`] % off.
fn shrinks_enough(from: u64, to: u64) -> bool {
    to.saturating_mul(100) <= from.saturating_mul(100 - MIN_SHRINK_PERCENT)
}

/// Summarizes the history and replaces it. On success the history is the summary message
/// plus the kept tail, the transcript has a boundary and front ends a `Compacted` event.
/// Returns the compaction and the summary request's usage.
pub async fn compact(
    agent: &mut Agent,
    turn: u32,
    model: &str,
    trigger: Trigger,
    instructions: Option<&str>,
    cancel: &CancellationToken,
) -> Result<(Compaction, Usage), CompactError> {
    let limits = agent.context.limits(model, agent.settings.max_tokens);
    let fixed = estimate::fixed(&agent.settings.system, &agent.exec.registry);
    let pre_tokens = agent.context.context_tokens(fixed, &agent.history);
    if agent.history.is_empty() {
        return Err(CompactError::NothingToCompact {
            tokens: pre_tokens,
            would_be: None,
        });
    }
    // Compaction is rare: one owned copy of the history here costs nothing per request.
    let owned: Vec<Message> = agent.history.to_messages();
    let conversation = estimate::messages(&owned);
    // Both figures must shrink: the API's count (usage) and our estimate of the same bytes.
    let base = pre_tokens.min(fixed + conversation);
    let cap = match trigger {
        // The API's count was above ours: keep less.
        Trigger::Reactive => limits.threshold / 8,
        _ => limits.threshold / 4,
    };
    let cut = tail_start(&owned, (conversation / 3).min(cap));
    let root = agent.exec.workspace.root().to_path_buf();
    let exists = move |p: &str| root.join(p).exists();
    // The latest request is quoted whole unless the kept tail already holds it, or it
    // alone would crowd the window.
    let latest = if latest_in_tail(&agent.facts, &owned[cut..]) {
        state_block::Latest::InTail
    } else {
        let max = (limits.threshold / 8 * estimate::BYTES_PER_TOKEN) as usize;
        state_block::Latest::Quote {
            max_chars: max.max(2_000),
        }
    };
    let block = state_block::build(&agent.facts, &live::read(agent), &exists, latest);
    // Even an empty summary must leave room for the 30 %: else no request is spent.
    let floor = fixed + estimate::messages(&rebuild_at(&owned, cut, "", &block.text));
    if !shrinks_enough(base, floor) {
        return Err(CompactError::NothingToCompact {
            tokens: pre_tokens,
            would_be: None,
        });
    }
    let mut extra: Vec<String> = Vec::new();
    if let Some(focus) = instructions.map(str::trim).filter(|s| !s.is_empty()) {
        extra.push(format!("The user asks the summary to focus on: {focus}"));
    }
    match hook_calls::pre_compact(
        &agent.exec.hooks,
        &agent.exec.events,
        trigger.as_str(),
        pre_tokens,
        cancel,
    )
    .await
    {
        PreCompact::Go(Some(context)) => {
            extra.push(format!("Instructions from a pre_compact hook: {context}"))
        }
        PreCompact::Go(None) => {}
        PreCompact::Deny(reason) if trigger == Trigger::Manual => {
            return Err(CompactError::Denied(reason));
        }
        // Automatic compaction keeps the request inside the window: a hook cannot refuse
        // it (it can stop the turn with "decision": "stop").
        PreCompact::Deny(reason) => agent.exec.events.send(AgentEvent::Notice {
            text: format!(
                "a pre_compact hook denied the {} compaction ({reason}); it runs anyway",
                trigger.as_str()
            ),
        }),
    }
    if cancel.is_cancelled() {
        return Err(CompactError::Aborted);
    }
    // The summary gets what the 30 % leaves after the floor, within the usual bounds.
    let room = (base * (100 - MIN_SHRINK_PERCENT) / 100).saturating_sub(floor);
    let summary_max = ((limits.window / 10).clamp(256, 8192) as u32)
        .min(agent.settings.max_tokens)
        .min(room.clamp(64, u64::from(u32::MAX)) as u32);
    // Room for the transcript: the window minus the answer and some slack, in bytes.
    // The summary is a small job (`[models] small`); its request must fit that model too.
    let summarizer = agent.settings.routes.small(model).to_string();
    let window = limits.window.min(
        agent
            .context
            .limits(&summarizer, agent.settings.max_tokens)
            .window,
    );
    let room_bytes = window
        .saturating_sub(u64::from(summary_max) + 1_000)
        .saturating_mul(estimate::BYTES_PER_TOKEN)
        * 8
        / 10;
    let req = summary_request::request(
        &summarizer,
        &owned[..cut],
        &block.text,
        &extra,
        summary_max,
        room_bytes as usize,
    );
    let (summary, usage) = summary_request::summarize(agent, turn, &req, cancel).await?;
    agent.context.add_cost(&summarizer, usage);
    let new_history = rebuild_at(&owned, cut, &summary, &block.text);
    let post_tokens = fixed + estimate::messages(&new_history);
    if !shrinks_enough(base, post_tokens) {
        return Err(CompactError::NothingToCompact {
            tokens: pre_tokens,
            would_be: Some(post_tokens),
        });
    }
    let compaction = Compaction {
        trigger,
        pre_tokens,
        post_tokens,
        messages_before: owned.len(),
        messages_after: new_history.len(),
        summary,
        state: block.text,
        kept: block.kept,
    };
    agent.retire_tool_ids(&owned[..cut]);
    agent.replace_history(new_history);
    // The cached prefix starts over anyway: deferred tools found earlier that the kept
    // history no longer calls go back to being deferred (issue 39).
    if let Some(d) = agent.exec.registry.deferral() {
        let history = &agent.history;
        d.keep_only(&|name| {
            history
                .iter()
                .any(|m| m.tool_uses().any(|(_, n, _)| n == name))
        });
    }
    agent.context.forget_usage();
    agent.context.compactions += 1;
    if let Some(r) = &mut agent.observer {
        r.compaction(&compaction, &agent.history);
    }
    agent.exec.events.send(AgentEvent::Compacted {
        info: compaction.clone(),
        messages: agent.history.to_messages(),
    });
    hook_calls::post_compact(&agent.exec.hooks, &agent.exec.events, trigger.as_str()).await;
    Ok((compaction, usage))
}

/// Whether the latest request is a text block of a user message in `tail`, word for word.
fn latest_in_tail(facts: &super::facts::SessionFacts, tail: &[Message]) -> bool {
    let Some(latest) = facts.requests.last() else {
        return false;
    };
    tail.iter().filter(|m| m.role == Role::User).any(|m| {
        m.content
            .iter()
            .any(|b| matches!(b, ContentBlock::Text { text, .. } if *text == latest.text))
    })
}

/// Where the kept tail begins: the longest tail of `history` within `keep_tokens` that
/// starts at an assistant message or at a user message without tool results (so no
/// tool_result loses its tool_use). `history.len()` when nothing fits; never 0.
pub fn tail_start(history: &[Message], keep_tokens: u64) -> usize {
    let mut cut = history.len();
    let mut tail = 0u64;
    for c in (1..history.len()).rev() {
        tail += estimate::messages(&history[c..=c]);
        if tail > keep_tokens {
            break;
        }
        let m = &history[c];
        let clean_user = m.role == Role::User
            && !m
                .content
                .iter()
                .any(|b| matches!(b, ContentBlock::ToolResult { .. }));
        if m.role == Role::Assistant || clean_user {
            cut = c;
        }
    }
    cut
}

/// The new history: the summary message, then `history[cut..]`. A user message at the cut
/// is merged into the summary message, keeping roles alternating.
pub fn rebuild_at(history: &[Message], cut: usize, summary: &str, state: &str) -> Vec<Message> {
    let mut first = Message::user_text(crate::message::markers::summary::render(summary, state));
    let mut rest = history[cut..].iter();
    if let Some(m) = history.get(cut)
        && m.role == Role::User
    {
        first.content.extend(m.content.iter().cloned());
        rest.next();
    }
    let mut out = vec![first];
    out.extend(rest.cloned());
    out
}

/// [`rebuild_at`] with the tail sized by [`tail_start`] (tests, benches).
pub fn rebuild(history: &[Message], summary: &str, keep_tokens: u64) -> Vec<Message> {
    rebuild_at(history, tail_start(history, keep_tokens), summary, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::validate_history;
    use serde_json::json;

    fn tool_turns(n: usize, size: usize) -> Vec<Message> {
        let mut h = vec![Message::user_text("do the thing")];
        for i in 0..n {
            let id = format!("t{i}");
            h.push(Message::assistant(vec![
                ContentBlock::text(format!("step {i}")),
                ContentBlock::ToolUse {
                    id: id.clone(),
                    name: "read_file".into(),
                    input: json!({"path": "a"}),
                },
            ]));
            h.push(Message::user(vec![ContentBlock::tool_result(
                id,
                "y".repeat(size),
                false,
            )]));
        }
        h
    }

    #[test]
    fn keeps_a_valid_tail_that_starts_after_the_summary() {
        for n in [1, 2, 5, 40] {
            for keep in [0, 100, 1_000, 10_000, 1_000_000] {
                let h = tool_turns(n, 300);
                let out = rebuild(&h, "S", keep);
                assert_eq!(validate_history(&out), Ok(()), "n={n} keep={keep}");
                assert!(crate::message::markers::summary::is_summary(&out[0]));
                let ContentBlock::Text { text, .. } = &out[0].content[0] else {
                    panic!()
                };
                let read = crate::message::markers::summary::parse(text).expect("a summary");
                assert_eq!(read.summary, "S");
                if keep >= 10_000 {
                    assert_eq!(
                        out.last(),
                        h.last(),
                        "the newest message is kept when it fits"
                    );
                }
                assert!(out.len() <= h.len());
            }
        }
    }

    #[test]
    fn a_plain_user_message_at_the_cut_is_merged() {
        let h = vec![
            Message::user_text("a"),
            Message::assistant(vec![ContentBlock::text("b")]),
            Message::user_text("c"),
        ];
        let out = rebuild(&h, "S", 1_000);
        assert_eq!(validate_history(&out), Ok(()));
        // Everything fits: cut at 1 (the assistant), "a" is summarized.
        assert_eq!(out.len(), 3);
        let out = rebuild(&h, "S", 15);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].content.len(), 2);
        assert_eq!(out[0].content[1], ContentBlock::text("c"));
    }
}
