//! The hooks of a run as the loop holds them (DESIGN.md §11): the set in force (swapped
//! whole when `/hooks` applies a reviewed change), the session they are told about, and
//! what they said that outlives one call (a `stop`, whether session_start was told).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::hooks::{HookDecision, HookEvent, HookOutcome, HookStep, Hooks};
use crate::protocol::AgentEvent;
use crate::protocol::events::EventSink;

/// The hooks of a run and what they said that outlives one call.
#[derive(Default)]
pub struct HookEnv {
    /// Swapped whole when `/hooks` applies a reviewed settings change; a run holds the
    /// hooks it started with.
    hooks: std::sync::RwLock<Arc<Hooks>>,
    /// The session hooks are told about (it changes with /new and fork).
    session_id: Mutex<String>,
    /// The session's transcript file (`transcript_path` on a hook's stdin).
    transcript: Mutex<String>,
    /// A hook answered `"decision": "stop"` during this prompt: the turn ends after the
    /// current step with `hook_stopped`.
    stop: Mutex<Option<String>>,
    next_id: AtomicU64,
    session_start: Mutex<StartState>,
    /// Set while the person's terminal is unfocused (the TUI keeps it current; headless
    /// never sets it): a turn that ends then tells the Notification hooks.
    pub(super) unfocused: Arc<std::sync::atomic::AtomicBool>,
}

/// Whether session_start was told for the session at hand.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum StartState {
    #[default]
    Fresh,
    Cleared,
    Compacted,
    Told,
}

impl HookEnv {
    pub fn new(hooks: Hooks) -> Self {
        HookEnv {
            hooks: std::sync::RwLock::new(Arc::new(hooks)),
            ..HookEnv::default()
        }
    }

    /// The hooks in force now.
    pub fn current(&self) -> Arc<Hooks> {
        self.hooks.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// From the next event on, these hooks run (a settings change the user accepted).
    pub fn replace(&self, hooks: Hooks) {
        *self.hooks.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(hooks);
    }

    /// The same hooks for a subagent: its own `stop` (a hook that stops the subagent ends
    /// its loop, not the parent's) and hook ids, the same session.
    pub fn for_subagent(&self) -> HookEnv {
        let session = self.session_id.lock().unwrap_or_else(|p| p.into_inner());
        let transcript = self.transcript.lock().unwrap_or_else(|p| p.into_inner());
        HookEnv {
            hooks: std::sync::RwLock::new(self.current()),
            session_id: Mutex::new(session.clone()),
            transcript: Mutex::new(transcript.clone()),
            // SessionStart is the session's, not each subagent's.
            session_start: Mutex::new(StartState::Told),
            ..HookEnv::default()
        }
    }

    /// The session hooks are told about and its transcript file.
    pub fn set_session(&self, id: &str, transcript: Option<&std::path::Path>) {
        *self.session_id.lock().unwrap_or_else(|p| p.into_inner()) = id.to_string();
        *self.transcript.lock().unwrap_or_else(|p| p.into_inner()) = transcript
            .map(|p| p.display().to_string())
            .unwrap_or_default();
    }

    /// The reason of a `stop` answered since the last call, taken.
    pub fn take_stop(&self) -> Option<String> {
        self.stop.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    pub fn wants(&self, event: HookEvent, tool: Option<&str>) -> bool {
        self.current().wants(event, tool)
    }

    /// The session_start source not yet told (taken): `startup` or `resume` before the
    /// first prompt of a run, `clear` after /new. None once told.
    pub fn take_session_start(&self, resumed: bool) -> Option<&'static str> {
        let mut s = self.session_start.lock().unwrap_or_else(|p| p.into_inner());
        match *s {
            StartState::Told => None,
            StartState::Fresh => {
                *s = StartState::Told;
                Some(if resumed { "resume" } else { "startup" })
            }
            StartState::Cleared => {
                *s = StartState::Told;
                Some("clear")
            }
            StartState::Compacted => {
                *s = StartState::Told;
                Some("compact")
            }
        }
    }

    /// A compaction: the next prompt tells session_start again, with `compact`.
    pub fn compacted(&self) {
        *self.session_start.lock().unwrap_or_else(|p| p.into_inner()) = StartState::Compacted;
    }

    /// /new: the next prompt tells session_start again, with `clear`.
    pub fn cleared(&self) {
        *self.session_start.lock().unwrap_or_else(|p| p.into_inner()) = StartState::Cleared;
    }

    /// Runs the hooks of `event`, each one a `hook-N` bar on the timeline and a `hook` line
    /// in stream-json. A `stop` is remembered for [`HookEnv::take_stop`].
    pub async fn run(
        &self,
        events: &EventSink,
        event: HookEvent,
        tool: Option<&str>,
        mut fields: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> HookOutcome {
        let hooks = self.current();
        if !hooks.wants(event, tool) {
            return HookOutcome::default();
        }
        let transcript = self
            .transcript
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        fields
            .entry("transcript_path")
            .or_insert_with(|| transcript.into());
        let session = self
            .session_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let mut ids: Vec<String> = Vec::new();
        let outcome = hooks
            .run(event, tool, &session, fields, cancel, |step| match step {
                HookStep::Start { index, command } => {
                    let id = format!("hook-{}", self.next_id.fetch_add(1, Ordering::Relaxed) + 1);
                    events.send(AgentEvent::HookStart {
                        id: id.clone(),
                        event,
                        command: command.to_string(),
                    });
                    ids.resize(index + 1, String::new());
                    ids[index] = id;
                }
                HookStep::End { index, report } => events.send(AgentEvent::HookEnd {
                    id: ids.get(index).cloned().unwrap_or_default(),
                    report,
                }),
            })
            .await;
        for text in &outcome.messages {
            events.send(AgentEvent::Notice {
                text: format!("{} hook: {}", event.as_str(), text),
            });
        }
        if outcome.decision() == HookDecision::Stop {
            let reason = outcome
                .reason()
                .map(str::to_string)
                .unwrap_or_else(|| format!("a {} hook stopped the turn", event.as_str()));
            *self.stop.lock().unwrap_or_else(|p| p.into_inner()) = Some(reason);
        }
        outcome
    }
}
