//! Steering a running turn from the TUI (issue 40): Enter during a turn sends the text into
//! it (the agent joins it at the next tool boundary); Alt+Enter keeps it for after the turn.
//! [`SteerState::enter`] is where a `[tui] enter_while_running = "steer"|"queue"` setting
//! plugs in (not read from config.toml yet: it defaults to steer). This keeps what was sent
//! until the agent says where it went, so an abort can put it back in the input.

use crate::protocol::steer::SteerFate;

/// What Enter does while a turn runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EnterWhileRunning {
    /// Send into the running turn (the default).
    #[default]
    Steer,
    /// Queue for after the turn (the behaviour before steering).
    Queue,
}

impl EnterWhileRunning {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "steer" => Some(EnterWhileRunning::Steer),
            "queue" => Some(EnterWhileRunning::Queue),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct SteerState {
    pub enter: EnterWhileRunning,
    /// A prompt's loop runs (PromptStart seen, Done not yet): there is a turn to steer. A
    /// `!command` or `/compact` keeps the TUI busy without one.
    pub in_prompt: bool,
    /// The busy work is a `!command` (its Done ends it too): nothing to steer.
    pub shell: bool,
    /// Sent with `AgentCommand::Steer`, not yet answered with an `AgentEvent::Steer`.
    pending: Vec<String>,
}

impl SteerState {
    pub fn sent(&mut self, text: String) {
        self.pending.push(text);
    }

    pub fn waiting(&self) -> usize {
        self.pending.len()
    }

    /// The agent said where `text` went: it is no longer waiting. Returns it when it came
    /// back unsent (the caller puts it in the input).
    pub fn settled(&mut self, text: &str, fate: SteerFate) -> Option<String> {
        if let Some(i) = self.pending.iter().position(|p| p == text) {
            self.pending.remove(i);
        }
        (fate == SteerFate::Returned).then(|| text.to_string())
    }

    /// The conversation is going away (a new one, a resume): nothing waits any more.
    pub fn clear(&mut self) {
        self.pending.clear();
    }
}

/// The note above the input while steered text waits for its tool boundary.
pub fn note(n: usize) -> String {
    if n == 1 {
        " steering · sent with the next request ".to_string()
    } else {
        format!(" steering · {n} messages sent with the next request ")
    }
}
