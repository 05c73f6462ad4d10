//! The steering inbox (issue 40): texts the front end sent while a turn runs, waiting for
//! the loop's next tool boundary. The agent task pushes; the loop takes them all at once.
//! Whatever finds no boundary is announced before the turn's Done (so a front end that
//! waits for Done knows another prompt follows) and then moved to the task's queue.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::protocol::events::EventSink;
use crate::protocol::{AgentEvent, steer::SteerFate};

#[derive(Debug, Default)]
struct Waiting {
    text: String,
    /// Already announced as the next prompt.
    announced: bool,
}

/// Shared between the agent task (which receives `AgentCommand::Steer` while the turn
/// borrows the agent) and the loop (which empties it at a boundary).
#[derive(Clone, Debug, Default)]
pub struct SteerInbox(Arc<Mutex<Vec<Waiting>>>);

impl SteerInbox {
    pub fn push(&self, text: String) {
        self.lock().push(Waiting {
            text,
            announced: false,
        });
    }

    /// Every waiting text, oldest first; the inbox is empty afterwards.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.lock())
            .into_iter()
            .map(|w| w.text)
            .collect()
    }

    /// Texts taken but not sent (an abort came while their hooks ran): back at the front,
    /// in their order, before anything that arrived meanwhile.
    pub fn put_back(&self, texts: Vec<String>) {
        let back = texts.into_iter().map(|text| Waiting {
            text,
            announced: false,
        });
        self.lock().splice(0..0, back);
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The prompt's loop ended with texts still waiting (the model gave its final answer,
    /// or the turn was aborted): said before its Done. Aborted: they go back to the user
    /// now. Otherwise they stay, announced as the next prompt, for [`settle`].
    pub fn announce(&self, aborted: bool, events: &EventSink) {
        if aborted {
            for text in self.take() {
                events.send(AgentEvent::Steer {
                    text,
                    fate: SteerFate::Returned,
                });
            }
            return;
        }
        for w in self.lock().iter_mut().filter(|w| !w.announced) {
            w.announced = true;
            events.send(AgentEvent::Steer {
                text: w.text.clone(),
                fate: SteerFate::NextPrompt,
            });
        }
    }

    /// A poisoned lock still holds the texts: never lose them to a panic elsewhere.
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Waiting>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// After the turn, in the agent task: the texts left (announced, or arrived as the turn
/// ended) become the next prompt together; when the conversation is going away (`returned`:
/// a new conversation, a shutdown) they go back to the user instead. Either way the front
/// end hears of each, so none is lost silently.
pub fn settle(
    inbox: &SteerInbox,
    returned: bool,
    events: &EventSink,
    queued: &mut VecDeque<String>,
) {
    let waiting = std::mem::take(&mut *inbox.lock());
    if waiting.is_empty() {
        return;
    }
    if !returned {
        let texts: Vec<&str> = waiting.iter().map(|w| w.text.as_str()).collect();
        queued.push_back(texts.join("\n\n"));
    }
    for w in waiting {
        let fate = if returned {
            SteerFate::Returned
        } else if w.announced {
            continue;
        } else {
            SteerFate::NextPrompt
        };
        events.send(AgentEvent::Steer { text: w.text, fate });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts an abort caught while their hooks ran go back before the ones that arrived
    /// meanwhile, in their order, so the abort hands them all back as typed.
    #[test]
    fn put_back_goes_before_what_arrived_meanwhile() {
        let inbox = SteerInbox::default();
        inbox.push("a".into());
        inbox.push("b".into());
        let taken = inbox.take();
        inbox.push("c".into());
        inbox.put_back(taken);
        assert_eq!(inbox.take(), vec!["a", "b", "c"]);
        assert!(inbox.is_empty());
    }
}
