//! The one key table: handlers look keys up here and the help overlay is generated from it,
//! so a binding cannot be documented one way and behave another. The table itself is in
//! `bindings.rs`, the status-bar hints drawn from it in `hints.rs`.

mod bindings;
mod hints;

pub use bindings::{BINDINGS, Binding, Key};
pub use hints::{
    APPROVAL_HINTS, BUSY_HINTS, Hint, IDLE_HINTS, REPLAY_HINTS, SCROLL_HINTS, TOOLS_HINTS, hint,
    hint_label,
};

use KeyCode::{Char, Enter};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key asks for. Panes and modals match on this, never on raw key codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Submit,
    Newline,
    /// Ctrl+C: abort a running turn, else clear the input, else arm/confirm quit.
    Interrupt,
    /// Esc: back to the input from a pane; from the input, abort a running turn.
    Cancel,
    /// Ctrl+D on an empty input.
    Quit,
    FocusNext,
    FocusPrev,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    Top,
    Bottom,
    ToggleJson,
    NextJsonView,
    SaveJson,
    Help,
    /// Expand or collapse the selected tool call / thinking block.
    Toggle,
    PrevItem,
    NextItem,
    /// JSON pane: the previous / next request of the session.
    PrevRequest,
    NextRequest,
    /// JSON pane, request view: only the messages a request added.
    ToggleDiff,
    /// Tools pane: the timeline of the whole session or of the current prompt.
    ToggleTimeline,
    /// Tools pane: select the next background job (Enter opens its output).
    SelectJob,
    /// Tools pane: kill the selected background job.
    KillJob,
    NewConversation,
    HistoryPrev,
    HistoryNext,
    /// Ctrl+R: search the prompt history.
    HistorySearch,
    /// Ctrl+U: delete to the line start (readline's meaning, not the editor widget's undo).
    DeleteToLineStart,
    /// Ctrl+Z: undo the last edit of the input.
    Undo,
    /// Copy the selection to the clipboard (OSC 52).
    Copy,
    /// Approval box: deny the call without a reason.
    Deny,
    /// Approval box: choose an answer by its number (the digit of the key).
    PickChoice,
    /// Shift+Tab: ask → auto-edit → plan → ask.
    CycleApproval,
    /// Ctrl+T: fold or unfold the todo list.
    ToggleTodos,
    /// Ctrl+G: edit the input in $EDITOR.
    ExternalEditor,
}

/// Where a binding applies. Modals see keys first, then global keys, then the focused pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Global,
    Input,
    Pane,
    Approval,
    /// A subagent's conversation, read-only (it takes every key while open).
    Subagent,
}

/// The action bound to `ev` in `scope`, if any. Shift is ignored on characters (terminals
/// differ on whether they report it), and on Enter unless the terminal reports it reliably.
pub fn action_for(ev: &KeyEvent, scope: Scope, shift_enter: bool) -> Option<Action> {
    let mut mods = ev.modifiers;
    if matches!(ev.code, Char(_)) {
        mods.remove(KeyModifiers::SHIFT);
    }
    if ev.code == Enter && mods == KeyModifiers::SHIFT && !shift_enter {
        mods = KeyModifiers::NONE;
    }
    BINDINGS
        .iter()
        .filter(|b| b.scope == scope)
        .find(|b| b.keys.iter().any(|k| k.code == ev.code && k.mods == mods))
        .map(|b| b.action)
}

/// The label of the first binding for `action` in `scope` (for hints).
pub fn label(action: Action, scope: Scope) -> &'static str {
    BINDINGS
        .iter()
        .find(|b| b.action == action && b.scope == scope)
        .map(|b| b.label)
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use Scope::*;

    fn ev(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn ctrl_j_is_a_newline_and_shift_enter_only_when_reported() {
        let j = ev(Char('j'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&j, Input, false), Some(Action::Newline));
        let se = ev(Enter, KeyModifiers::SHIFT);
        assert_eq!(action_for(&se, Input, true), Some(Action::Newline));
        assert_eq!(action_for(&se, Input, false), Some(Action::Submit));
        let ae = ev(Enter, KeyModifiers::ALT);
        assert_eq!(action_for(&ae, Input, false), Some(Action::Newline));
    }

    #[test]
    fn every_binding_has_help_text() {
        assert!(
            BINDINGS
                .iter()
                .all(|b| !b.help.is_empty() && !b.label.is_empty())
        );
    }
}
