//! A prompt the model never answered (its request failed: HTTP 401/404/529 after the
//! retries, a prompt too long) stays in the history only until the next prompt. Roles must
//! alternate (DESIGN.md §4), so a next prompt used to be merged into it and the model got
//! both (`hello 404 hello 401 … hi`) while the user, told it failed, had typed it again.
//! Now the next prompt takes its place; the TUI puts the failed text back in the input, so
//! sending it again is the user's choice. The transcript stays in step: the next prompt's
//! message is written at the same index, which replaces the failed one there too.

use std::sync::Arc;

use super::Agent;
use crate::message::{Message, Role};
use crate::protocol::{Terminal, TurnSummary};

/// The user message a prompt went into, and how many blocks it held before (an earlier
/// interrupted prompt's, say): those stay.
#[derive(Clone, Default)]
pub(crate) struct PromptSlot {
    message: Option<Arc<Message>>,
    kept: usize,
}

impl Agent {
    /// Before a prompt's message is appended: the previous prompt's, if unanswered, leaves.
    /// Returns how many blocks of the last user message stay ahead of the new prompt.
    pub(super) fn take_unanswered(&mut self) -> usize {
        let slot = std::mem::take(&mut self.unanswered);
        let last = self.history.last().cloned();
        if let (Some(failed), Some(last)) = (&slot.message, &last)
            && Arc::ptr_eq(failed, last)
        {
            if slot.kept == 0 {
                self.history.pop();
            } else if let Some(m) = self.history.last_mut() {
                let mut kept = Message::clone(m);
                kept.content.truncate(slot.kept);
                *m = Arc::new(kept);
            }
        }
        match self.history.last() {
            Some(m) if m.role == Role::User => m.content.len(),
            _ => 0,
        }
    }

    /// Right after the prompt's message was appended (`kept` from [`Self::take_unanswered`]).
    pub(super) fn prompt_pushed(&mut self, kept: usize) {
        self.unanswered = PromptSlot {
            message: self
                .history
                .last()
                .filter(|m| m.role == Role::User)
                .cloned(),
            kept,
        };
    }

    /// When the prompt ended: its message is remembered only if the request failed and
    /// nothing came after it (no reply at all).
    pub(super) fn prompt_ended(&mut self, summary: &TurnSummary) {
        let failed = matches!(
            summary.reason,
            Terminal::ModelError | Terminal::PromptTooLong
        );
        let unanswered = match (&self.unanswered.message, self.history.last()) {
            (Some(pushed), Some(last)) => failed && Arc::ptr_eq(pushed, last),
            _ => false,
        };
        if !unanswered {
            self.unanswered = PromptSlot::default();
        }
    }
}
