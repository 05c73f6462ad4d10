//! Status-bar hints: a few bindings of the table per situation, each written by its first key
//! and a short word, so the bar never names a key that does something else.

use super::{Action, Scope, label};
use Scope::*;

/// A status-bar hint: a binding of the table, shown by its first key and a short word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hint {
    pub action: Action,
    pub scope: Scope,
    pub what: &'static str,
    /// The key is pressed twice (quit).
    pub twice: bool,
}

pub const fn hint(action: Action, scope: Scope, what: &'static str) -> Hint {
    Hint {
        action,
        scope,
        what,
        twice: false,
    }
}

/// Ctrl+C twice quits (idle, and in a replay).
const QUIT_TWICE: Hint = Hint {
    action: Action::Interrupt,
    scope: Global,
    what: "quit",
    twice: true,
};

/// Hints while a turn runs, most useful first (the status bar shows as many as fit).
pub const BUSY_HINTS: &[Hint] = &[
    hint(Action::Interrupt, Global, "abort"),
    hint(Action::Submit, Input, "steer"),
    hint(Action::ToggleJson, Global, "JSON"),
    hint(Action::FocusNext, Global, "focus"),
    hint(Action::Help, Global, "help"),
];

/// Hints while the approval box waits: its own keys (Enter there confirms, not queues).
pub const APPROVAL_HINTS: &[Hint] = &[
    hint(Action::Submit, Approval, "confirm"),
    hint(Action::Deny, Approval, "deny"),
    hint(Action::PrevItem, Approval, "choose"),
    hint(Action::Interrupt, Global, "abort"),
    hint(Action::Help, Global, "help"),
];

/// Hints in a replay: nothing is sent, so no send, newline or queue (Ctrl+C stops the
/// replay, then quits).
pub const REPLAY_HINTS: &[Hint] = &[
    hint(Action::ToggleJson, Global, "JSON"),
    hint(Action::FocusNext, Global, "focus"),
    hint(Action::Help, Global, "help"),
    QUIT_TWICE,
];

/// Hints while idle.
pub const IDLE_HINTS: &[Hint] = &[
    hint(Action::Submit, Input, "send"),
    hint(Action::Newline, Input, "newline"),
    hint(Action::ToggleJson, Global, "JSON"),
    hint(Action::FocusNext, Global, "focus"),
    hint(Action::Help, Global, "help"),
    QUIT_TWICE,
];

/// The tools pane: its own keys first, then scrolling.
pub const TOOLS_HINTS: &[Hint] = &[
    // The timeline's title says "Enter: open in JSON" once a bar is picked.
    hint(Action::NextItem, Pane, "bar"),
    hint(Action::Toggle, Pane, "older prompts"),
    hint(Action::ToggleTimeline, Pane, "timeline"),
    hint(Action::ScrollUp, Pane, "scroll"),
    hint(Action::Cancel, Global, "back"),
];

/// The hints of a scrolling pane: scroll, then back to the input.
pub const SCROLL_HINTS: &[Hint] = &[
    hint(Action::ScrollUp, Pane, "scroll"),
    hint(Action::PageUp, Pane, "page"),
    hint(Action::Cancel, Global, "back"),
];

/// How a hint's key is written: the first key of its binding's label ("Ctrl+O / F2" →
/// "Ctrl+O"); for a new line, the key this terminal reports.
pub fn hint_label(h: &Hint, shift_enter: bool) -> String {
    if h.action == Action::Newline && shift_enter {
        return "Shift+Enter".into();
    }
    let first = label(h.action, h.scope)
        .split(" / ")
        .next()
        .unwrap_or_default();
    if h.twice {
        format!("{first} ×2")
    } else {
        first.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hint_names_a_bound_key() {
        for h in BUSY_HINTS
            .iter()
            .chain(APPROVAL_HINTS)
            .chain(IDLE_HINTS)
            .chain(REPLAY_HINTS)
            .chain(SCROLL_HINTS)
            .chain(TOOLS_HINTS)
        {
            assert!(!hint_label(h, false).is_empty(), "{h:?} has no binding");
        }
        assert_eq!(hint_label(&IDLE_HINTS[5], false), "Ctrl+C ×2");
        assert_eq!(hint_label(&IDLE_HINTS[1], true), "Shift+Enter");
        assert_eq!(hint_label(&IDLE_HINTS[1], false), "Alt+Enter");
    }
}
