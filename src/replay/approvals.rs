//! Recorded approvals in a TUI replay. The modal opens on the recorded question and closes on
//! the recorded answer (those are ordinary events); this adds a line saying what was decided
//! and after how long, and keeps the replay's keys from answering a question that was
//! answered long ago (nothing may run in a replay, and the recorded answer must stand).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::message::markers::tool_results::declined_reason;
use crate::protocol::AgentEvent;
use crate::recording::timeline::Timed;
use crate::tui::keys::{Action, Scope, action_for};

/// The line to show with each recorded answer to a question the user was asked, by tool_use
/// id: "recorded answer: bash approved by the user after 2.1 s" / "… denied by the user after
/// 0.8 s: reason". The replay shows it together with the answer (one step with `--step`).
pub fn answers(events: &[Timed]) -> HashMap<String, String> {
    // When each question was asked, and the output each denied call ended with (its reason).
    let mut asked: HashMap<&str, u64> = HashMap::new();
    let mut outputs: HashMap<&str, &str> = HashMap::new();
    for t in events {
        if let AgentEvent::ToolEnd { id, output, .. } = &t.event {
            outputs.insert(id, output);
        }
    }
    let mut lines = HashMap::new();
    for t in events {
        match &t.event {
            AgentEvent::PermissionRequest { id, .. } => {
                asked.insert(id, t.at_ms);
            }
            AgentEvent::Permission {
                id, name, allowed, ..
            } => {
                // Decided by a mode or a rule: nobody was asked, nothing to say.
                let Some(at) = asked.remove(id.as_str()) else {
                    continue;
                };
                let wait = seconds(t.at_ms.saturating_sub(at));
                let text = if *allowed {
                    format!("recorded answer: {name} approved by the user after {wait}")
                } else {
                    let reason = outputs.get(id.as_str()).and_then(|o| declined_reason(o));
                    format!(
                        "recorded answer: {name} denied by the user after {wait}{}",
                        reason.map(|r| format!(": {r}")).unwrap_or_default()
                    )
                };
                lines.insert(id.clone(), text);
            }
            _ => {}
        }
    }
    lines
}

fn seconds(ms: u64) -> String {
    format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
}

/// How many recorded questions are open on the replay's screen (the forwarder counts them
/// as it passes events on; the key filter reads it).
#[derive(Clone, Default)]
pub struct OpenQuestions(Arc<AtomicUsize>);

impl OpenQuestions {
    /// Counts the questions `event` opens or closes.
    pub fn follow(&self, event: &AgentEvent) {
        match event {
            AgentEvent::PermissionRequest { .. } => {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
            AgentEvent::Permission { .. } => {
                let _ = self
                    .0
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
            }
            // A prompt's end closes whatever it left open.
            AgentEvent::Done(_) => self.0.store(0, Ordering::Relaxed),
            _ => {}
        }
    }

    /// Whether `key` would answer an open question (Enter, Esc, a digit): such keys are not the
    /// viewer's to press in a replay. Scrolling a long preview still works.
    pub fn blocks(&self, key: &crossterm::event::KeyEvent) -> bool {
        self.0.load(Ordering::Relaxed) > 0
            && matches!(
                action_for(key, Scope::Approval, false),
                Some(Action::Submit | Action::Deny | Action::PickChoice)
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolOutcome;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn at(at_ms: u64, event: AgentEvent) -> Timed {
        Timed {
            at_ms,
            t_ms: at_ms,
            event,
        }
    }

    fn asked(id: &str) -> AgentEvent {
        AgentEvent::PermissionRequest {
            id: id.into(),
            tool: "bash".into(),
            input: serde_json::json!({"command": "ls"}),
            summary: "ls".into(),
            preview: None,
            why: Default::default(),
        }
    }

    fn decided(id: &str, allowed: bool) -> AgentEvent {
        AgentEvent::Permission {
            id: id.into(),
            name: "bash".into(),
            allowed,
            rule: None,
        }
    }

    #[test]
    fn says_what_the_user_decided_and_after_how_long() {
        let events = vec![
            at(100, asked("a")),
            at(2_200, decided("a", true)),
            at(2_300, asked("b")),
            at(3_100, decided("b", false)),
            at(
                3_100,
                AgentEvent::ToolEnd {
                    id: "b".into(),
                    name: "bash".into(),
                    is_error: true,
                    outcome: ToolOutcome::Error,
                    duration_ms: 0,
                    output: "The user declined to run bash. Their reason: not on main. Do not \
                             retry it unchanged."
                        .into(),
                },
            ),
            // Allowed by a rule: nobody was asked.
            at(4_000, decided("c", true)),
        ];
        let lines = answers(&events);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines["a"],
            "recorded answer: bash approved by the user after 2.1 s"
        );
        assert_eq!(
            lines["b"],
            "recorded answer: bash denied by the user after 0.8 s: not on main"
        );
    }

    #[test]
    fn answer_keys_are_held_back_while_a_question_is_open() {
        let q = OpenQuestions::default();
        let y = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        let up = KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE);
        let two = KeyEvent::new(KeyCode::Char('2'), KeyModifiers::NONE);
        assert!(!q.blocks(&y), "no question open: Enter is the input's");
        q.follow(&asked("a"));
        assert!(q.blocks(&y));
        assert!(q.blocks(&two));
        assert!(!q.blocks(&up), "a long preview still scrolls");
        q.follow(&decided("a", true));
        assert!(!q.blocks(&y));
        q.follow(&decided("x", true));
        assert!(!q.blocks(&y), "never below zero");
    }
}
