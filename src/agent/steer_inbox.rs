//! The steering inbox (issue 40): texts the front end sent while a turn runs, waiting for
//! the loop's next tool boundary. The agent task pushes; the loop takes them all at once.

use std::sync::{Arc, Mutex};

/// Shared between the agent task (which receives `AgentCommand::Steer` while the turn
/// borrows the agent) and the loop (which empties it at a boundary).
#[derive(Clone, Debug, Default)]
pub struct SteerInbox(Arc<Mutex<Vec<String>>>);

impl SteerInbox {
    pub fn push(&self, text: String) {
        self.lock().push(text);
    }

    /// Every waiting text, oldest first; the inbox is empty afterwards.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.lock())
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// A poisoned lock still holds the texts: never lose them to a panic elsewhere.
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The turn ended with texts still waiting (the model gave its final answer, or the turn
/// was aborted): together they become the next prompt, or, when `returned`, they go back
/// to the user. Either way the front end hears of each, so none is lost silently.
pub fn settle(
    inbox: &SteerInbox,
    returned: bool,
    events: &crate::protocol::events::EventSink,
    queued: &mut std::collections::VecDeque<String>,
) {
    use crate::protocol::{AgentEvent, steer::SteerFate};
    let texts = inbox.take();
    if texts.is_empty() {
        return;
    }
    let fate = if returned {
        SteerFate::Returned
    } else {
        SteerFate::NextPrompt
    };
    if !returned {
        queued.push_back(texts.join("\n\n"));
    }
    for text in texts {
        events.send(AgentEvent::Steer { text, fate });
    }
}
