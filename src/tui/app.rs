//! The TUI's state. The agent owns the conversation; this holds only what the screen shows,
//! plus the commands the UI wants sent (drained by the event loop, asserted by tests).
//! Updates live in update_agent.rs (AgentEvents) and update_keys.rs (keys, paste, mouse).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

use ratatui::layout::Rect;
use tokio::time::Instant;

use super::input::Input;
use super::overlays::approval::Approvals;
use super::panes::Pane;
use super::panes::conversation::Conversation;
use super::panes::json::JsonPane;
use super::panes::tools::ToolsPane;
use super::theme::Theme;
use super::tool_calls::ToolCalls;
use crate::protocol::AgentCommand;
use crate::provider::Usage;

/// How long "press Ctrl+C again to quit" stays armed.
pub const QUIT_WINDOW: Duration = Duration::from_secs(2);
/// How long a note in the status bar ("wrote … to …") stays.
pub const NOTE_WINDOW: Duration = Duration::from_secs(5);
/// Spinners and timers advance in tenths of a second.
pub const TICK: Duration = Duration::from_millis(100);
/// How often a running background job's timer moves (whole seconds).
pub const JOB_TICK: Duration = Duration::from_secs(1);
/// A stream this long without a byte says so in the status (and keeps counting): a stalled
/// connection otherwise looks like a slow model until the read timeout, minutes later.
pub const STALL_AFTER: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Input,
    Conversation,
    Tools,
    Json,
    /// A registered extra pane (`App::panes[i]`).
    Extra(usize),
}

/// Where the running prompt is, as the status bar tells it.
#[derive(Debug, Default)]
pub struct TurnState {
    /// A prompt was sent and its Done has not arrived.
    pub busy: bool,
    pub streaming: bool,
    pub turn: u32,
    pub usage: Usage,
    /// Every finished prompt's usage added up since tooloop started (`/cost`).
    pub total_usage: Usage,
    /// Prompts finished since tooloop started.
    pub prompts_done: u32,
    /// A `/compact` runs: busy (Ctrl+C aborts it) until its Compacted or Error arrives.
    pub compacting: bool,
    /// Context use and cost, from the agent's last Context event.
    pub context: Option<crate::protocol::compaction::ContextStatus>,
    pub retry_until: Option<Instant>,
    /// When the agent last sent anything: a stream silent for [`STALL_AFTER`] says so.
    pub heard_at: Option<Instant>,
    /// Ctrl+C was sent for this prompt (so it is sent once).
    pub abort_requested: bool,
    /// The last error shown for this prompt (the end line does not repeat it).
    pub last_error: Option<String>,
    /// The running prompt's text until the model answers it: if its request fails, the
    /// text goes back into the input (the agent drops it from the history then).
    pub unanswered: Option<String>,
}

/// What the UI shows about this run that never changes.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    pub provider: String,
    pub model: String,
    /// The provider's base URL (empty for the offline demo), for `/status`.
    pub base_url: String,
    /// `base_url` is not the provider's own: the first screen names it.
    pub custom_base_url: bool,
    pub session: Option<String>,
    /// The terminal reports Shift+Enter apart from Enter (keyboard enhancement protocol).
    pub shift_enter: bool,
    pub mouse: bool,
    /// Where the JSON save key writes.
    pub save_dir: PathBuf,
    /// The live session (its transcript path changes on /new and /fork), for rewinds.
    pub session_handle: Option<crate::protocol::history_observer::SessionHandle>,
    /// The shell's sandbox ("workspace-write", "read-only", "off"); empty: not shown.
    pub sandbox: String,
    /// The workspace root (`/export` writes there; the first screen names it).
    pub workspace: PathBuf,
    /// The approval mode's name ("ask", "yolo", …), for the first screen.
    pub approval: String,
    /// Known and configured models, for `/model` (None: the built-in table).
    pub models: Option<std::sync::Arc<crate::models::ModelTable>>,
    /// The permission rules of the three files (`/permissions`).
    pub rules: crate::permission::rules::RuleSet,
    /// `tooloop replay`: nothing is sent, no question is answered here.
    pub replay: bool,
}

/// Screen areas of the last frame (mouse wheel routing, page sizes).
#[derive(Debug, Default, Clone)]
pub struct Areas {
    pub conversation: Rect,
    pub tools: Option<Rect>,
    pub json: Option<Rect>,
    /// One per registered extra pane that has room this frame.
    pub extra: Vec<Rect>,
    /// The whole terminal (the todo list folds to one line on a small one).
    pub screen: Rect,
}

impl Areas {
    pub fn screen_height(&self) -> u16 {
        self.screen.height
    }
}

pub struct App {
    /// The user's status-line command, when one is configured.
    pub status_line: Option<super::status_line::StatusLine>,
    pub theme: Theme,
    pub info: RunInfo,
    /// Every tool call, drawn by both the conversation and the tools pane.
    pub tool_calls: ToolCalls,
    pub conversation: Conversation,
    pub tools: ToolsPane,
    pub json: JsonPane,
    /// Panes registered in pane.rs beyond the built-in three.
    pub panes: Vec<Box<dyn Pane>>,
    pub input: Input,
    /// The `/` and `@` menu, commands from files, a queued prompt being edited, Ctrl+G.
    pub compose: super::input::menu::ComposeState,
    pub approvals: Approvals,
    /// The session's subagents, one lane each.
    pub subagents: super::subagents::Subagents,
    /// A subagent's conversation, read-only, when open.
    pub subagent_view: Option<super::overlays::subagent::SubagentView>,
    pub turn: TurnState,
    pub focus: Focus,
    pub json_open: bool,
    pub help_open: bool,
    pub help_scroll: u16,
    /// The rewind overlay (Esc Esc, /rewind, /undo), when open.
    pub rewind: Option<super::overlays::rewind::RewindOverlay>,
    /// The `/sessions` picker, when open.
    pub sessions: Option<super::overlays::sessions::SessionsOverlay>,
    /// When Esc was last pressed on an empty input (a second one opens the rewind overlay).
    pub(super) last_esc: Option<Instant>,
    pub quit_armed_until: Option<Instant>,
    /// A short message for the status bar and when it goes away.
    pub note: Option<(String, Instant)>,
    /// Text for the clipboard; the event loop sends it (OSC 52) after the next frame.
    pub clipboard: Option<String>,
    /// Prompts typed while busy; the first is sent when the turn ends.
    pub queued: VecDeque<String>,
    pub should_quit: bool,
    pub areas: Areas,
    /// When the previous key arrived (an approval ignores keys typed in a burst).
    pub last_key_at: Option<Instant>,
    pub(super) saves: u32,
    /// Messages a compaction replaced in a resumed session, drawn dimmed by the next
    /// HistoryReset above the divider.
    pub(super) earlier: Vec<crate::message::Message>,
    /// The messages compactions replaced in this conversation (or that a resumed session's
    /// compactions had), for `/export` without a transcript.
    pub(super) compacted: Vec<crate::message::Message>,
    /// How a resumed session's calls ran, applied by the next HistoryReset.
    pub(super) timings: std::collections::HashMap<String, crate::protocol::status::ToolTiming>,
    /// Each configured MCP server's last reported state (status bar, `/mcp`).
    pub mcp: Vec<crate::protocol::status::ServerStatus>,
    /// The approval mode, the todo list and the permission rules as the agent last said.
    pub steering: super::steering::Steering,
    /// Calls the user back (bell, OSC 9) while the terminal is not focused.
    pub notify: super::notify::Notifier,
    /// The sources already listed for the newest reply (its index and how many): a reply
    /// continued after `pause_turn` arrives again and lists only the new ones.
    pub(super) sources_shown: (usize, usize),
    outbox: Vec<AgentCommand>,
}

impl App {
    pub fn new(info: RunInfo) -> Self {
        let steering = super::steering::Steering {
            mode: crate::protocol::approval_mode::ApprovalMode::parse(&info.approval)
                .unwrap_or_default(),
            rules: info.rules.clone(),
            ..Default::default()
        };
        // A replay's approval box shows no keys (the recording answers its questions).
        let mut approvals = Approvals::default();
        approvals.replay = info.replay;
        App {
            theme: Theme::default(),
            info,
            tool_calls: ToolCalls::default(),
            conversation: Conversation::default(),
            tools: ToolsPane::default(),
            sources_shown: (usize::MAX, 0),
            json: JsonPane::default(),
            panes: super::panes::registered(),
            input: Input::default(),
            compose: Default::default(),
            approvals,
            subagents: Default::default(),
            subagent_view: None,
            turn: TurnState::default(),
            focus: Focus::Input,
            json_open: false,
            help_open: false,
            help_scroll: 0,
            rewind: None,
            sessions: None,
            last_esc: None,
            quit_armed_until: None,
            note: None,
            clipboard: None,
            queued: VecDeque::new(),
            should_quit: false,
            areas: Areas::default(),
            last_key_at: None,
            saves: 0,
            earlier: Vec::new(),
            compacted: Vec::new(),
            timings: Default::default(),
            mcp: Vec::new(),
            steering,
            notify: Default::default(),
            status_line: None,
            outbox: Vec::new(),
        }
    }

    /// A live agent answers (not a replay): Shift+Tab switches its approval mode.
    pub fn is_live(&self) -> bool {
        crate::protocol::approval_mode::ApprovalMode::parse(&self.info.approval).is_some()
    }

    pub(super) fn send(&mut self, cmd: AgentCommand) {
        self.outbox.push(cmd);
    }

    /// Commands for the agent since the last call, in order.
    pub fn take_commands(&mut self) -> Vec<AgentCommand> {
        std::mem::take(&mut self.outbox)
    }

    /// `tooloop "fix it"`: sent as if typed (it joins the prompt history too).
    pub fn send_initial_prompt(&mut self, text: String) {
        self.input.set_text(&text);
        let text = self.input.take();
        self.submit(text);
    }

    pub(super) fn submit(&mut self, text: String) {
        self.turn.busy = true;
        self.turn.abort_requested = false;
        // `!command` runs in the workspace's shell; its output joins the conversation.
        let command = text.trim_start().strip_prefix('!').map(str::trim);
        let cmd = match command.filter(|c| !c.is_empty()) {
            Some(command) => AgentCommand::Shell {
                command: command.to_string(),
            },
            None => AgentCommand::Submit { text },
        };
        self.send(cmd);
    }

    pub(super) fn abort(&mut self) {
        if !self.turn.abort_requested {
            self.turn.abort_requested = true;
            self.send(AgentCommand::Abort);
        }
        // The agent ends the wait at once; a pending question has nobody left to answer it.
        self.approvals.clear();
    }

    pub fn note(&self, now: Instant) -> Option<&str> {
        self.note
            .as_ref()
            .filter(|(_, until)| now < *until)
            .map(|(s, _)| s.as_str())
    }

    pub fn quit_armed(&self, now: Instant) -> bool {
        self.quit_armed_until.is_some_and(|t| now < t)
    }

    /// The next time the screen must change by itself: a tick while something runs, the end
    /// of the quit window, or never (idle: no wake-ups).
    /// The status-line command's step: its finished output taken, the next run started
    /// when due (never waiting for it). True when the status bar changed.
    pub fn status_line_tick(&mut self, now: Instant) -> bool {
        let Some(mut sl) = self.status_line.take() else {
            return false;
        };
        let changed = sl.tick(now, || self.status_line_payload());
        if let Some(text) = sl.take_notice() {
            self.conversation
                .push(super::panes::cells::CellKind::Notice(text));
        }
        self.status_line = Some(sl);
        changed
    }

    fn status_line_payload(&self) -> serde_json::Value {
        let ctx = self.turn.context.as_ref();
        let usage = self.turn.total_usage;
        super::status_line::payload(&super::status_line::Facts {
            session_id: self.info.session.as_deref().unwrap_or(""),
            transcript_path: self
                .info
                .session_handle
                .as_ref()
                .map(|h| h.path().display().to_string())
                .unwrap_or_default(),
            cwd: &self.info.workspace,
            model: &self.info.model,
            cost_usd: ctx.and_then(|c| c.cost_usd).unwrap_or(0.0),
            context_tokens: ctx.map_or(0, |c| c.context_tokens),
            window: ctx.map_or(0, |c| c.window),
            input_tokens: usage.input_tokens + self.turn.usage.input_tokens,
            output_tokens: usage.output_tokens + self.turn.usage.output_tokens,
        })
    }

    pub fn next_wakeup(&self, now: Instant) -> Option<Instant> {
        // While a question waits for the user nothing moves, unless a tool runs beside it.
        let animating =
            (self.turn.busy && !self.approvals.is_open()) || self.tool_calls.running() > 0;
        let tick = animating.then(|| now + TICK);
        let quit = self.quit_armed_until.filter(|t| *t > now);
        let note = self.note.as_ref().map(|(_, t)| *t).filter(|t| *t > now);
        // The sessions picker is drawn again when its listing (a thread's) may have come.
        let listing = self
            .sessions
            .as_ref()
            .is_some_and(|s| s.loading())
            .then(|| now + TICK);
        // A running background job's timer counts whole seconds: one wake-up a second,
        // however much the jobs print (their output events come at most twice a second each).
        let jobs = (self.tools.jobs.running() > 0).then(|| now + JOB_TICK);
        let status = self.status_line.as_ref().and_then(|s| s.next_wakeup(now));
        [tick, quit, note, listing, jobs, status]
            .into_iter()
            .flatten()
            .min()
    }

    pub fn state_label(&self, now: Instant) -> String {
        use super::strings::*;
        if let Some(t) = self.turn.retry_until.filter(|t| *t > now) {
            let ms = t.saturating_duration_since(now).as_millis() as u64;
            return retrying_in(ms.div_ceil(1000));
        }
        if self.approvals.is_open() {
            return STATE_APPROVAL.into();
        }
        let running = self.tool_calls.running();
        if running > 0 {
            return running_tools(running);
        }
        if self.turn.streaming {
            let silent = self
                .turn
                .heard_at
                .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
            if silent >= STALL_AFTER {
                return no_data_for(silent.as_secs());
            }
            return STATE_STREAMING.into();
        }
        if self.turn.busy {
            return STATE_WORKING.into();
        }
        STATE_IDLE.into()
    }

    /// Panes that Tab cycles through, in screen order.
    pub(super) fn focus_order(&self) -> Vec<Focus> {
        let mut v = vec![Focus::Input, Focus::Conversation];
        if self.areas.tools.is_some() {
            v.push(Focus::Tools);
        }
        if self.json_open {
            v.push(Focus::Json);
        }
        v.extend((0..self.areas.extra.len()).map(Focus::Extra));
        v
    }

    /// The pane behind a focus target (None for the input).
    pub(super) fn pane_mut(&mut self, focus: Focus) -> Option<&mut dyn Pane> {
        match focus {
            Focus::Input => None,
            Focus::Conversation => Some(&mut self.conversation),
            Focus::Tools => Some(&mut self.tools),
            Focus::Json => Some(&mut self.json),
            Focus::Extra(i) => self.panes.get_mut(i).map(|p| p.as_mut() as &mut dyn Pane),
        }
    }

    pub(super) fn set_focus(&mut self, focus: Focus) {
        if self.focus == Focus::Conversation && focus != Focus::Conversation {
            self.conversation.unfocus();
        }
        // Enter opens a timeline bar only if it was picked since the tools pane got the focus.
        self.tools.bars.armed &= focus == Focus::Tools;
        self.focus = focus;
    }
}
