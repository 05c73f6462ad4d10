//! Compaction proper: a summary request, then a new history of the summary plus the most
//! recent turns kept verbatim (DESIGN.md §10). Used by auto (threshold), reactive
//! (prompt_too_long) and manual (`/compact`) compaction alike.
//!
//! A failed summary (an error, an abort, an empty text) leaves history exactly as it was.

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::{Compaction, Trigger, estimate, transcript};
use crate::agent::Agent;
use crate::agent::assembler::Assembler;
use crate::agent::protocol::AgentEvent;
use crate::message::{ContentBlock, Message, Role};
use crate::provider::{ModelRequest, StreamEvent, Usage};

/// Marks the user message that replaces the earlier part of the conversation.
pub const SUMMARY_HEADER: &str = "[Summary of an earlier part of this session] The \
conversation so far was compacted to fit the context window. This summary replaces the \
earlier messages; the most recent messages follow verbatim.";

const SUMMARY_FOOTER: &str = "Continue the user's request from where it left off, using \
the summary and the messages after it. Do not ask the user to repeat anything.";

const SUMMARY_SYSTEM: &str = "You summarize a conversation between a user and a coding \
agent so the agent can continue the work with only the summary. Answer with the summary \
only, as plain text; do not call tools.";

const SUMMARY_INSTRUCTION: &str = "Write a summary of the conversation above that lets the \
agent continue without it. Include: the user's requests (quote them), the current task and \
its state, files and commands involved with the facts learned from them, decisions made, \
errors and how they were solved, and the next step. Be specific and concise.";

/// Why a compaction did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactError {
    Aborted,
    Failed(String),
}

impl std::fmt::Display for CompactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompactError::Aborted => f.write_str("compaction aborted"),
            CompactError::Failed(e) => write!(f, "compaction failed: {e}"),
        }
    }
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
    if agent.history.is_empty() {
        return Err(CompactError::Failed("there is nothing to compact".into()));
    }
    let limits = agent.context.limits(model, agent.settings.max_tokens);
    let fixed = estimate::fixed(&agent.settings.system, &agent.exec.registry.specs());
    let pre_tokens = agent.context.context_tokens(fixed, &agent.history);
    let summary_max = (limits.window / 10).clamp(256, 8192) as u32;
    let summary_max = summary_max.min(agent.settings.max_tokens);
    // Room for the transcript: the window minus the answer and some slack, in bytes.
    let room = limits
        .window
        .saturating_sub(u64::from(summary_max) + 1_000)
        .saturating_mul(estimate::BYTES_PER_TOKEN)
        * 8
        / 10;
    let mut prompt = transcript::render(&agent.history, room as usize);
    prompt.push_str("\n---\n");
    prompt.push_str(SUMMARY_INSTRUCTION);
    if let Some(extra) = instructions.map(str::trim).filter(|s| !s.is_empty()) {
        prompt.push_str("\n\nAdditional instructions from the user: ");
        prompt.push_str(extra);
    }
    let req = ModelRequest {
        model: model.to_string(),
        system: SUMMARY_SYSTEM.into(),
        messages: vec![Message::user_text(prompt)],
        tools: Vec::new(),
        max_tokens: summary_max.max(1),
        disable_parallel_tool_use: false,
        reasoning: Default::default(),
    };
    let (summary, usage) = summarize(agent, turn, &req, cancel).await?;
    agent.context.add_cost(model, usage);
    let keep = match trigger {
        // The API's count was above ours: keep less.
        Trigger::Reactive => limits.threshold / 8,
        _ => limits.threshold / 4,
    };
    let before = agent.history.len();
    // Compaction is rare: one owned copy of the history here costs nothing per request.
    let owned: Vec<Message> = agent.history.to_messages();
    let new_history = rebuild(&owned, &summary, keep);
    let post_tokens = fixed + estimate::messages(&new_history);
    let compaction = Compaction {
        trigger,
        pre_tokens,
        post_tokens,
        messages_before: before,
        messages_after: new_history.len(),
        summary,
    };
    agent.replace_history(new_history);
    agent.context.forget_usage();
    agent.context.compactions += 1;
    if let Some(r) = &mut agent.observer {
        r.compaction(&compaction, &agent.history);
    }
    agent.exec.events.send(AgentEvent::Compacted {
        info: compaction.clone(),
        messages: agent.history.to_messages(),
    });
    Ok((compaction, usage))
}

/// Sends the summary request and reads the text of its answer.
async fn summarize(
    agent: &Agent,
    turn: u32,
    req: &ModelRequest,
    cancel: &CancellationToken,
) -> Result<(String, Usage), CompactError> {
    let events = &agent.exec.events;
    events.send(AgentEvent::RequestStart {
        turn,
        attempt: 1,
        model: req.model.clone(),
        body: std::sync::Arc::new(agent.provider.encode(&req.as_request())),
    });
    let end = |stop: Option<String>| {
        events.send(AgentEvent::StreamEnd {
            turn,
            stop_reason: stop,
        })
    };
    let started = tokio::select! {
        biased;
        _ = cancel.cancelled() => {
            end(None);
            return Err(CompactError::Aborted);
        }
        r = agent.provider.start(req) => r,
    };
    let mut stream = match started {
        Ok(s) => s,
        Err(e) => {
            end(None);
            return Err(CompactError::Failed(
                crate::agent::request_errors::describe(&e),
            ));
        }
    };
    let mut asm = Assembler::new();
    let idle = agent.settings.idle_timeout;
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => {
                end(None);
                return Err(CompactError::Aborted);
            }
            n = tokio::time::timeout(idle, stream.next()) => n,
        };
        let failed = match next {
            Err(_) => Some(format!("no data for {idle:?}")),
            Ok(None) if asm.saw_stop => None,
            Ok(None) => Some("the stream ended before the summary was complete".into()),
            Ok(Some(Err(e))) => Some(e.to_string()),
            Ok(Some(Ok(StreamEvent::Raw { .. }))) => continue,
            Ok(Some(Ok(ev))) => {
                asm.push(ev);
                if !asm.saw_stop {
                    continue;
                }
                None
            }
        };
        end(asm.stop_reason.clone());
        if let Some(e) = failed {
            return Err(CompactError::Failed(e));
        }
        break;
    }
    let text: String = asm
        .blocks(false)
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.trim();
    if text.is_empty() {
        return Err(CompactError::Failed("the summary came back empty".into()));
    }
    Ok((text.to_string(), asm.usage))
}

/// The new history: the summary as a user message, then the longest tail of `history`
/// within `keep_tokens` that starts at an assistant message or at a user message without
/// tool results (so no tool_result loses its tool_use). A user message at the cut is
/// merged with the summary, keeping roles alternating.
pub fn rebuild(history: &[Message], summary: &str, keep_tokens: u64) -> Vec<Message> {
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
    let text = format!("{SUMMARY_HEADER}\n\n<summary>\n{summary}\n</summary>\n\n{SUMMARY_FOOTER}");
    let mut first = Message::user_text(text);
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

/// The summary inside a summary message's text, if it is one.
pub fn summary_text(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(SUMMARY_HEADER)?;
    let start = rest.find("<summary>\n")? + "<summary>\n".len();
    let end = rest.rfind("\n</summary>")?;
    rest.get(start..end)
}

/// Whether a user message is a compaction summary.
pub fn is_summary(m: &Message) -> bool {
    m.role == Role::User
        && matches!(m.content.first(), Some(ContentBlock::Text { text, .. }) if text.starts_with(SUMMARY_HEADER))
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
                assert!(is_summary(&out[0]));
                let ContentBlock::Text { text, .. } = &out[0].content[0] else {
                    panic!()
                };
                assert_eq!(summary_text(text), Some("S"));
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
