//! Where each prompt began in a session's history, and how a rewind record cuts the history,
//! the prompts and the marks while a transcript is read. Loading needs this and rewinding
//! builds on loading, so it sits below both.

use super::rewind_error::RewindError;
use crate::message::{Message, Role};
use crate::protocol::history_observer::RewindRecord;

/// Where a prompt began in the history.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptMark {
    pub time: String,
    /// The history's length when the prompt began.
    pub start: usize,
    /// The history then ended in a user message (after an interruption), so the prompt was
    /// merged into it: that message's block count before the merge.
    pub merged_into: Option<usize>,
    pub turns: u32,
}

impl PromptMark {
    pub fn new(messages: &[Message], time: String) -> PromptMark {
        PromptMark {
            time,
            start: messages.len(),
            merged_into: messages
                .last()
                .filter(|m| m.role == Role::User)
                .map(|m| m.content.len()),
            turns: 0,
        }
    }
}

/// Replays a rewind record while a transcript is read.
pub fn replay(
    r: &RewindRecord,
    messages: &mut Vec<Message>,
    prompts: &mut Vec<String>,
    marks: &mut Vec<PromptMark>,
) -> Result<(), RewindError> {
    let Some(n) = r.messages else {
        return Ok(());
    };
    if n > messages.len() || r.to_prompt == 0 || r.to_prompt > prompts.len() {
        return Err(RewindError::DoesNotFit {
            to: r.to_prompt,
            messages: n,
            have: messages.len(),
            prompts: prompts.len(),
        });
    }
    messages.truncate(n);
    prompts.truncate(r.to_prompt - 1);
    marks.truncate(r.to_prompt - 1);
    Ok(())
}
