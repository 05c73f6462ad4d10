//! The bindings: which keys ask for which action in which scope, and how the help overlay
//! writes them.

use crossterm::event::{KeyCode, KeyModifiers};

use super::{Action, Scope};

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
        &[key(Up)],
        "Up",
        Action::PrevItem,
        "choose the answer above",
    ),
    bind(
        Approval,
        &[key(Down)],
        "Down",
        Action::NextItem,
        "choose the answer below",
    ),
    bind(
        Approval,
        &[
            key(Char('1')),
            key(Char('2')),
            key(Char('3')),
            key(Char('4')),
            key(Char('5')),
            key(Char('6')),
            key(Char('7')),
            key(Char('8')),
            key(Char('9')),
        ],
        "1–4",
        Action::PickChoice,
        "choose an answer by its number",
    ),
    bind(
        Approval,
        &[key(Enter)],
        "Enter",
        Action::Submit,
        "confirm the chosen answer (after typing: choose first; n Enter denies)",
    ),
    bind(Approval, &[key(Esc)], "Esc", Action::Deny, "deny this call"),
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
        "send (a turn running: steer it)",
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
        "new line (also Shift+Enter where reported); Alt+Enter in a turn queues",
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
    bind(Subagent, &[key(Up)], "Up", Action::ScrollUp, "scroll up"),
    bind(
        Subagent,
        &[key(Down)],
        "Down",
        Action::ScrollDown,
        "scroll down",
    ),
    bind(Subagent, &[key(PageUp)], "PgUp", Action::PageUp, "page up"),
    bind(
        Subagent,
        &[key(PageDown)],
        "PgDn",
        Action::PageDown,
        "page down",
    ),
    bind(Subagent, &[key(Home)], "Home", Action::Top, "go to the top"),
    bind(
        Subagent,
        &[key(Esc), key(Enter), key(Char('q'))],
        "Esc / Enter / q",
        Action::Cancel,
        "back to the panes",
    ),
];
