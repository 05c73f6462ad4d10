//! The summary request of a compaction: the compacted part of the conversation as text,
//! the state block tooloop will append (so the model need not re-derive it), and fixed
//! sections to fill (a fixed structure keeps more than free text does). Sent without tools.

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::compact_error::CompactError;
use super::transcript;
use crate::agent::Agent;
use crate::agent::assembler::Assembler;
use crate::message::{ContentBlock, Message};
use crate::protocol::AgentEvent;
use crate::provider::{ModelRequest, StreamEvent, Usage};

const SUMMARY_SYSTEM: &str = "You summarize a conversation between a user and a coding \
agent so the agent can continue the work with only the summary. Answer with the summary \
only, as plain text; do not call tools.";

/// The sections every summary has, in this order.
pub const SECTIONS: [&str; 6] = [
    "Intent",
    "Current state",
    "Decisions and constraints",
    "Errors and fixes",
    "Open questions",
    "Next step",
];

const INSTRUCTION: &str = "Write a summary of the conversation above that lets the agent \
continue without it. tooloop appends the recorded state shown above (the user's requests \
quoted, files changed and read, commands with their exit codes, the todo list, background \
jobs, the approval mode) to your summary word for word, so do not copy those lists: refer \
to them and add what they cannot say (why, what was learned, what is left). The most recent \
messages are kept verbatim after it. Use exactly these sections, as Markdown headings in \
this order, writing \"None.\" under one that has nothing:";

/// The request for the summary of `compacted`, with `state` (the block tooloop appends)
/// and `extra` instructions (the user's `/compact FOCUS`, a pre_compact hook's context),
/// each already saying whose it is.
pub fn request(
    model: &str,
    compacted: &[Message],
    state: &str,
    extra: &[String],
    max_tokens: u32,
    room_bytes: usize,
) -> ModelRequest {
    let room = room_bytes.saturating_sub(state.len() + 2_000);
    let mut prompt = transcript::render(compacted, room);
    prompt.push_str("\n---\nThe recorded state tooloop will append to your summary:\n\n");
    prompt.push_str(state);
    prompt.push_str("\n\n---\n");
    prompt.push_str(INSTRUCTION);
    for s in SECTIONS {
        prompt.push_str(&format!("\n## {s}"));
    }
    for e in extra.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
        prompt.push_str("\n\n");
        prompt.push_str(e);
    }
    ModelRequest {
        model: model.to_string(),
        system: SUMMARY_SYSTEM.into(),
        messages: vec![Message::user_text(prompt)],
        tools: Vec::new(),
        max_tokens: max_tokens.max(1),
        disable_parallel_tool_use: false,
        reasoning: Default::default(),
    }
}

/// Sends the summary request and reads the text of its answer.
pub async fn summarize(
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
    let end = |stop: Option<String>, usage: Option<Usage>| {
        events.send(AgentEvent::StreamEnd {
            turn,
            stop_reason: stop,
            usage,
        })
    };
    let started = tokio::select! {
        biased;
        _ = cancel.cancelled() => {
            end(None, None);
            return Err(CompactError::Aborted);
        }
        r = agent.provider.start(req) => r,
    };
    let mut stream = match started {
        Ok(s) => s,
        Err(e) => {
            end(None, None);
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
                end(None, None);
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
        end(asm.stop_reason.clone(), Some(asm.usage));
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
