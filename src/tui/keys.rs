//! The one key table: handlers look keys up here and the help overlay is generated from it,
//! so a binding cannot be documented one way and behave another.

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
    AllowOnce,
    AllowSession,
    Deny,
    /// Start typing a reason for denying (Enter sends it).
    DenyWithReason,
    /// "Always allow … in this project": edit the proposed rule, Enter saves it.
    AllowRule,
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

const fn key(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

const fn with(code: KeyCode, mods: KeyModifiers) -> Key {
    Key { code, mods }
}

pub struct Binding {
    pub scope: Scope,
    pub keys: &'static [Key],
    /// How the keys are written in the help overlay and the status bar.
    pub label: &'static str,
    pub action: Action,
    pub help: &'static str,
}

const fn bind(
    scope: Scope,
    keys: &'static [Key],
    label: &'static str,
    action: Action,
    help: &'static str,
) -> Binding {
    Binding {
        scope,
        keys,
        label,
        action,
        help,
    }
}

use KeyCode::*;
use Scope::*;

pub const BINDINGS: &[Binding] = &[
    bind(
        Approval,
        &[key(Char('y'))],
        "y",
        Action::AllowOnce,
        "allow this call once",
    ),
    bind(
        Approval,
        &[key(Char('a'))],
        "a",
        Action::AllowSession,
        "allow this tool for the session",
    ),
    bind(
        Approval,
        &[key(Char('n')), key(Esc)],
        "n / Esc",
        Action::Deny,
        "deny this call",
    ),
    bind(
        Approval,
        &[key(Char('r'))],
        "r",
        Action::DenyWithReason,
        "deny with a reason the model reads (type it, Enter)",
    ),
    bind(
        Approval,
        &[key(Char('p'))],
        "p",
        Action::AllowRule,
        "always allow the proposed rule in this project (edit it, Enter)",
    ),
    bind(
        Approval,
        &[key(Up)],
        "Up",
        Action::ScrollUp,
        "scroll a long preview up",
    ),
    bind(
        Approval,
        &[key(Down)],
        "Down",
        Action::ScrollDown,
        "scroll a long preview down",
    ),
    bind(
        Approval,
        &[key(PageUp)],
        "PgUp",
        Action::PageUp,
        "preview page up",
    ),
    bind(
        Approval,
        &[key(PageDown)],
        "PgDn",
        Action::PageDown,
        "preview page down",
    ),
    bind(
        Global,
        &[ctrl('c')],
        "Ctrl+C",
        Action::Interrupt,
        "abort the turn / clear input / quit (twice)",
    ),
    bind(
        Global,
        &[key(Esc)],
        "Esc",
        Action::Cancel,
        "abort the turn (in a pane: back to the input); twice on empty: rewind",
    ),
    bind(
        Global,
        &[ctrl('o'), key(F(2))],
        "Ctrl+O / F2",
        Action::ToggleJson,
        "show or hide the JSON pane",
    ),
    bind(
        Global,
        &[key(F(3))],
        "F3",
        Action::NextJsonView,
        "JSON pane: history / request / SSE events",
    ),
    bind(
        Global,
        &[ctrl('s'), key(F(4))],
        "Ctrl+S / F4",
        Action::SaveJson,
        "write the JSON view to a file",
    ),
    bind(
        Global,
        &[key(F(5))],
        "F5",
        Action::Copy,
        "copy the selected message, tool output or JSON view",
    ),
    bind(
        Global,
        &[key(F(1))],
        "F1 / ?",
        Action::Help,
        "this help (? on an empty input)",
    ),
    bind(
        Global,
        &[key(Tab)],
        "Tab",
        Action::FocusNext,
        "focus the next pane",
    ),
    bind(
        Global,
        &[key(BackTab), with(BackTab, KeyModifiers::SHIFT)],
        "Shift+Tab",
        Action::CycleApproval,
        "approval mode: ask → auto-edit → plan (in a replay: the previous pane)",
    ),
    bind(
        Global,
        &[ctrl('t')],
        "Ctrl+T",
        Action::ToggleTodos,
        "fold or unfold the todo list",
    ),
    bind(
        Global,
        &[ctrl('n')],
        "Ctrl+N",
        Action::NewConversation,
        "start a new conversation and session (when idle; or type /new)",
    ),
    bind(
        Input,
        &[key(Enter)],
        "Enter",
        Action::Submit,
        "send (queued while a turn runs)",
    ),
    bind(
        Input,
        &[
            ctrl('j'),
            with(Enter, KeyModifiers::ALT),
            with(Enter, KeyModifiers::SHIFT),
        ],
        "Alt+Enter / Ctrl+J",
        Action::Newline,
        "new line (also Shift+Enter where the terminal reports it)",
    ),
    bind(
        Input,
        &[ctrl('d')],
        "Ctrl+D",
        Action::Quit,
        "quit (on an empty input)",
    ),
    bind(
        Input,
        &[key(Up)],
        "Up",
        Action::HistoryPrev,
        "earlier prompt (on an empty input)",
    ),
    bind(
        Input,
        &[key(Down)],
        "Down",
        Action::HistoryNext,
        "later prompt (while recalling)",
    ),
    bind(
        Input,
        &[ctrl('u')],
        "Ctrl+U",
        Action::DeleteToLineStart,
        "delete to the line start (Ctrl+K: to the end; Ctrl+W: the word before)",
    ),
    bind(Input, &[ctrl('z')], "Ctrl+Z", Action::Undo, "undo an edit"),
    bind(
        Input,
        &[ctrl('g')],
        "Ctrl+G",
        Action::ExternalEditor,
        "edit the input in $EDITOR (else $VISUAL, vi)",
    ),
    bind(
        Input,
        &[ctrl('r')],
        "Ctrl+R",
        Action::HistorySearch,
        "search earlier prompts (kept per workspace)",
    ),
    bind(
        Input,
        &[key(PageUp)],
        "PgUp",
        Action::PageUp,
        "scroll the conversation up",
    ),
    bind(
        Input,
        &[key(PageDown)],
        "PgDn",
        Action::PageDown,
        "scroll the conversation down",
    ),
    bind(
        Pane,
        &[key(Up)],
        "Up / wheel",
        Action::ScrollUp,
        "scroll the focused pane",
    ),
    bind(
        Pane,
        &[key(Down)],
        "Down / wheel",
        Action::ScrollDown,
        "scroll the focused pane",
    ),
    bind(Pane, &[key(PageUp)], "PgUp", Action::PageUp, "page up"),
    bind(
        Pane,
        &[key(PageDown)],
        "PgDn",
        Action::PageDown,
        "page down",
    ),
    bind(Pane, &[key(Home)], "Home", Action::Top, "go to the top"),
    bind(
        Pane,
        &[key(End)],
        "End",
        Action::Bottom,
        "go to the bottom and follow",
    ),
    bind(
        Pane,
        &[key(Left)],
        "Left",
        Action::PrevItem,
        "select the previous tool call (tools: timeline bar; JSON: view)",
    ),
    bind(
        Pane,
        &[key(Right)],
        "Right",
        Action::NextItem,
        "select the next tool call (tools: timeline bar; JSON: view)",
    ),
    bind(
        Pane,
        &[key(Enter)],
        "Enter",
        Action::Toggle,
        "expand / collapse a call; tools pane: older prompts, or open the bar",
    ),
    bind(
        Pane,
        &[key(Char('['))],
        "[",
        Action::PrevRequest,
        "JSON request / sse view: the previous request of the session",
    ),
    bind(
        Pane,
        &[key(Char(']'))],
        "]",
        Action::NextRequest,
        "JSON request / sse view: the next request",
    ),
    bind(
        Pane,
        &[key(Char('d'))],
        "d",
        Action::ToggleDiff,
        "JSON request view: only the messages the request added",
    ),
    bind(
        Pane,
        &[key(Char('t'))],
        "t",
        Action::ToggleTimeline,
        "tools pane: timeline of the whole session / this prompt",
    ),
    bind(
        Pane,
        &[key(Char('b'))],
        "b",
        Action::SelectJob,
        "tools pane: select the next background job (Enter: its output)",
    ),
    bind(
        Pane,
        &[key(Char('x'))],
        "x",
        Action::KillJob,
        "tools pane: kill the selected background job",
    ),
];

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

/// Hints while a turn runs, most useful first (the status bar shows as many as fit).
pub const BUSY_HINTS: &[Hint] = &[
    hint(Action::Interrupt, Global, "abort"),
    hint(Action::Submit, Input, "queue"),
    hint(Action::ToggleJson, Global, "JSON"),
    hint(Action::FocusNext, Global, "focus"),
    hint(Action::Help, Global, "help"),
];

/// Hints in a replay: nothing is sent, so no send, newline or queue (Ctrl+C stops the
/// replay, then quits).
pub const REPLAY_HINTS: &[Hint] = &[
    hint(Action::ToggleJson, Global, "JSON"),
    hint(Action::FocusNext, Global, "focus"),
    hint(Action::Help, Global, "help"),
    Hint {
        action: Action::Interrupt,
        scope: Global,
        what: "quit",
        twice: true,
    },
];

/// Hints while idle.
pub const IDLE_HINTS: &[Hint] = &[
    hint(Action::Submit, Input, "send"),
    hint(Action::Newline, Input, "newline"),
    hint(Action::ToggleJson, Global, "JSON"),
    hint(Action::FocusNext, Global, "focus"),
    hint(Action::Help, Global, "help"),
    Hint {
        action: Action::Interrupt,
        scope: Global,
        what: "quit",
        twice: true,
    },
];

/// The hints of a scrolling pane: scroll, then back to the input.
/// The tools pane: its own keys first, then scrolling.
pub const TOOLS_HINTS: &[Hint] = &[
    // The timeline's title says "Enter: open in JSON" once a bar is picked.
    hint(Action::NextItem, Pane, "bar"),
    hint(Action::Toggle, Pane, "older prompts"),
    hint(Action::ToggleTimeline, Pane, "timeline"),
    hint(Action::ScrollUp, Pane, "scroll"),
    hint(Action::Cancel, Global, "back"),
];

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
    fn every_hint_names_a_bound_key() {
        for h in BUSY_HINTS
            .iter()
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

    #[test]
    fn every_binding_has_help_text() {
        assert!(
            BINDINGS
                .iter()
                .all(|b| !b.help.is_empty() && !b.label.is_empty())
        );
    }
}
