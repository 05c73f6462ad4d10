//! A prompt that was never sent (its request failed: connection refused, HTTP 404, a
//! prompt too long) and then the TUI closed. In a live session the next prompt takes its
//! place and the text waits in the input (agent/unanswered.rs); `--resume` keeps that rule:
//! the prompt leaves the history it resumes with, and comes back to the front end to be
//! sent again only if the user sends it. The transcript stays in step: the next prompt's
//! message is written at the same index, which replaces the failed one there too.

use super::prompt_marks::PromptMark;
use crate::message::{ContentBlock, Message, Role};

/// Takes the last prompt out of `messages` when it ended unanswered (its request failed
/// and nothing came after it); returns its text.
/// `last_end`, `marks`, `prompts`: what the transcript says of its prompts (load::Loaded).
pub fn take(
    messages: &mut Vec<Message>,
    last_end: Option<&str>,
    marks: &[PromptMark],
    prompts: &[String],
) -> Option<String> {
    if !matches!(last_end, Some("model_error" | "prompt_too_long")) {
        return None;
    }
    let (mark, text) = (marks.last()?, prompts.last()?);
    let last = messages.last()?;
    let only_prompt = last.role == Role::User
        && !last
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolResult { .. }));
    match mark.merged_into {
        // Merged into an interrupted prompt's message: those blocks stay.
        Some(kept) if only_prompt && messages.len() == mark.start && last.content.len() > kept => {
            if kept == 0 {
                messages.pop();
            } else if let Some(m) = messages.last_mut() {
                m.content.truncate(kept);
            }
        }
        None if only_prompt && messages.len() == mark.start + 1 => {
            messages.pop();
        }
        _ => return None,
    }
    Some(text.clone())
}
