//! The App's parts (app.rs): what the screen draws, what is open over it, what waits to go
//! to the agent, what the status bar says, what the screen keeps of the history, and the
//! key timing. Each is plain state; the controller (`update/`) changes it. A new concern
//! gets its own part here (or a field in the part it belongs to), not a field on the App.

use std::collections::{HashMap, VecDeque};

use ratatui::layout::Rect;
use tokio::time::Instant;

use super::overlays::approval::Approvals;
use super::overlays::rewind::RewindOverlay;
use super::overlays::sessions::SessionsOverlay;
use super::overlays::subagent::SubagentView;
use super::panes::conversation::Conversation;
use super::panes::json::JsonPane;
use super::panes::tools::ToolsPane;
use super::tool_calls::ToolCalls;
use crate::message::Message;
use crate::protocol::AgentCommand;
use crate::protocol::status::{ServerStatus, ToolTiming};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Focus {
    #[default]
    Input,
    Conversation,
    Tools,
    Json,
}

/// Screen areas of the last frame (mouse wheel routing, page sizes).
#[derive(Debug, Default, Clone)]
pub struct Areas {
    pub conversation: Rect,
    pub tools: Option<Rect>,
    pub json: Option<Rect>,
    /// The whole terminal (the todo list folds to one line on a small one).
    pub screen: Rect,
}

impl Areas {
    pub fn screen_height(&self) -> u16 {
        self.screen.height
    }
}

/// The panes, the tool calls they draw from, which has the focus, where they were drawn.
#[derive(Default)]
pub struct Panes {
    /// Every tool call, drawn by both the conversation and the tools pane.
    pub tool_calls: ToolCalls,
    pub conversation: Conversation,
    pub tools: ToolsPane,
    pub json: JsonPane,
    pub json_open: bool,
    pub focus: Focus,
    /// Screen areas of the last frame (mouse wheel routing, page sizes).
    pub areas: Areas,
    /// JSON views written so far (each file name counts up).
    pub saves: u32,
}

/// What is open over the panes. The approval question is always there (empty when nothing
/// is asked); the others are open when Some / true.
#[derive(Default)]
pub struct Overlays {
    pub approvals: Approvals,
    pub help_open: bool,
    pub help_scroll: u16,
    /// The rewind overlay (Esc Esc, /rewind, /undo).
    pub rewind: Option<RewindOverlay>,
    /// The `/sessions` picker.
    pub sessions: Option<SessionsOverlay>,
    /// A subagent's conversation, read-only.
    pub subagent_view: Option<SubagentView>,
}

/// What waits to leave the App: commands for the agent (drained by the event loop, asserted
/// by tests), prompts typed while busy, text for the clipboard.
#[derive(Default)]
pub struct Outbox {
    pub(super) commands: Vec<AgentCommand>,
    /// Prompts typed while busy; the first is sent when the turn ends.
    pub queued: VecDeque<String>,
    /// Text for the clipboard; the event loop sends it (OSC 52) after the next frame.
    pub clipboard: Option<String>,
}

/// What the status bar and the terminal are told, and whether to quit.
#[derive(Default)]
pub struct Status {
    /// A short message for the status bar and when it goes away.
    pub note: Option<(String, Instant)>,
    /// "Press Ctrl+C again to quit" is armed until then.
    pub quit_armed_until: Option<Instant>,
    pub should_quit: bool,
    /// Each configured MCP server's last reported state (status bar, `/mcp`).
    pub mcp: Vec<ServerStatus>,
    /// The user's status-line command, when one is configured.
    pub status_line: Option<super::status_line::StatusLine>,
    /// Calls the user back (bell, OSC 9) while the terminal is not focused.
    pub notify: super::notify::Notifier,
}

/// What the screen keeps of the conversation beyond its cells: what compactions replaced,
/// how a resumed session's calls ran, the sources already listed, the subagents.
pub struct History {
    /// Messages a compaction replaced in a resumed session, drawn dimmed by the next
    /// HistoryReset above the divider.
    pub(super) earlier: Vec<Message>,
    /// tool_use id → summary of the calls in `earlier`.
    pub(super) earlier_summaries: HashMap<String, String>,
    /// A resumed or rewound session's subagents, listed by the next HistoryReset under
    /// their `task` rows.
    pub(super) resumed_subagents: Vec<crate::protocol::status::ResumedSubagent>,
    /// The messages compactions replaced in this conversation (or that a resumed session's
    /// compactions had), for `/export` without a transcript.
    pub(super) compacted: Vec<Message>,
    /// How a resumed session's calls ran, applied by the next HistoryReset.
    pub(super) timings: HashMap<String, ToolTiming>,
    /// The sources already listed for the newest reply (its index and how many): a reply
    /// continued after `pause_turn` arrives again and lists only the new ones.
    pub(super) sources_shown: (usize, usize),
    /// The session's subagents, one lane each.
    pub subagents: super::subagents::Subagents,
}

impl Default for History {
    fn default() -> Self {
        History {
            earlier: Vec::new(),
            earlier_summaries: HashMap::new(),
            resumed_subagents: Vec::new(),
            compacted: Vec::new(),
            timings: HashMap::new(),
            sources_shown: (usize::MAX, 0),
            subagents: Default::default(),
        }
    }
}

/// When keys came: Esc Esc opens the rewind overlay, an approval ignores a burst.
#[derive(Default)]
pub struct KeyTimes {
    /// When Esc was last pressed on an empty input (a second one opens the rewind overlay).
    pub(super) last_esc: Option<Instant>,
    /// When the previous key arrived (an approval ignores keys typed in a burst).
    pub last_key_at: Option<Instant>,
}
