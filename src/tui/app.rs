//! The TUI's state. The agent owns the conversation; this holds only what the screen shows,
//! plus the commands the UI wants sent (drained by the event loop, asserted by tests). The
//! App is a set of parts (parts.rs and the types here); updates live in `update/`.

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use super::input::Input;
use super::panes::Pane;
// Focus and Areas belong to the panes part; named here too, where the App's users look.
pub use super::parts::{Areas, Focus};
use super::parts::{History, KeyTimes, Outbox, Overlays, Panes, Status};
use super::theme::Theme;
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

impl RunInfo {
    /// The one model table `/model`, `/cost` and `/skills` read: the configured one, else
    /// the built-in one.
    pub fn model_table(&self) -> &crate::models::ModelTable {
        self.models
            .as_deref()
            .unwrap_or_else(|| crate::models::ModelTable::builtin_shared())
    }
}

/// The TUI's state, in parts (parts.rs). `input`, `compose`, `turn` and `steering` are parts
/// of their own, defined beside the code that reads them.
pub struct App {
    /// Durations and lines changed, for the status line's `cost`.
    pub status_tally: super::status_line::tally::Tally,
    pub info: RunInfo,
    pub theme: Theme,
    /// The panes, their tool calls, the focus, the last frame's areas.
    pub panes: Panes,
    pub input: Input,
    /// The `/` and `@` menu, commands from files, a queued prompt being edited, Ctrl+G.
    pub compose: super::input::menu::ComposeState,
    /// The approval question, help, rewind, sessions, a subagent's conversation.
    pub overlays: Overlays,
    /// The running prompt.
    pub turn: TurnState,
    /// Commands for the agent, queued prompts, clipboard text.
    pub outbox: Outbox,
    /// The status bar's note and servers, the status-line command, notifications, quitting.
    pub status: Status,
    /// The approval mode, the todo list and the permission rules as the agent last said.
    pub steering: super::steering::Steering,
    /// What compactions replaced, a resume's timings, listed sources, the subagents.
    pub history: History,
    pub(super) keys: KeyTimes,
    /// Text sent into the running turn, until the agent says where it went (issue 40).
    pub steer: super::steer::SteerState,
    /// The model answering now and what each model spent (issue 40).
    pub spend: super::model_spend::ModelSpend,
    /// The agent's focus flag, when a Notification hook wants to know.
    /// Set while the terminal is unfocused.
    pub hook_focus: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
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
        let mut overlays = Overlays::default();
        overlays.approvals.replay = info.replay;
        App {
            theme: Theme::default(),
            info,
            panes: Panes::default(),
            input: Input::default(),
            compose: Default::default(),
            overlays,
            turn: TurnState::default(),
            outbox: Outbox::default(),
            status: Status::default(),
            steering,
            history: History::default(),
            keys: KeyTimes::default(),
            steer: Default::default(),
            spend: Default::default(),
            hook_focus: None,
            status_tally: super::status_line::tally::Tally::new(Instant::now()),
        }
    }

    /// A live agent answers (not a replay): Shift+Tab switches its approval mode.
    pub fn is_live(&self) -> bool {
        crate::protocol::approval_mode::ApprovalMode::parse(&self.info.approval).is_some()
    }

    pub(super) fn send(&mut self, cmd: AgentCommand) {
        self.outbox.commands.push(cmd);
    }

    /// Commands for the agent since the last call, in order.
    pub fn take_commands(&mut self) -> Vec<AgentCommand> {
        std::mem::take(&mut self.outbox.commands)
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
        self.steer.shell = command.is_some_and(|c| !c.is_empty());
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
        self.overlays.approvals.clear();
    }

    pub fn note(&self, now: Instant) -> Option<&str> {
        self.status
            .note
            .as_ref()
            .filter(|(_, until)| now < *until)
            .map(|(s, _)| s.as_str())
    }

    pub fn quit_armed(&self, now: Instant) -> bool {
        self.status.quit_armed_until.is_some_and(|t| now < t)
    }

    /// The next time the screen must change by itself: a tick while something runs, the end
    /// of the quit window, or never (idle: no wake-ups).
    /// The status-line command's step: its finished output taken, the next run started
    /// when due (never waiting for it). True when the status bar changed.
    pub fn status_line_tick(&mut self, now: Instant) -> bool {
        let Some(mut sl) = self.status.status_line.take() else {
            return false;
        };
        let changed = sl.tick(now, || self.status_line_payload(now));
        if let Some(text) = sl.take_notice() {
            self.panes
                .conversation
                .push(super::panes::cells::CellKind::Notice(text));
        }
        self.status.status_line = Some(sl);
        changed
    }

    /// The terminal gained or lost the focus: the bell and the Notification hooks follow.
    pub fn set_focused(&mut self, focused: bool) {
        self.status.notify.focused = focused;
        if let Some(f) = &self.hook_focus {
            f.store(!focused, std::sync::atomic::Ordering::Relaxed);
        }
    }

    fn status_line_payload(&self, now: Instant) -> serde_json::Value {
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
            duration_ms: self.status_tally.duration_ms(now),
            api_duration_ms: self.status_tally.api_duration_ms(now),
            lines_added: self.status_tally.lines_added,
            lines_removed: self.status_tally.lines_removed,
        })
    }

    pub fn next_wakeup(&self, now: Instant) -> Option<Instant> {
        // While a question waits for the user nothing moves, unless a tool runs beside it.
        let animating = (self.turn.busy && !self.overlays.approvals.is_open())
            || self.panes.tool_calls.running() > 0;
        let tick = animating.then(|| now + TICK);
        let quit = self.status.quit_armed_until.filter(|t| *t > now);
        let note = self
            .status
            .note
            .as_ref()
            .map(|(_, t)| *t)
            .filter(|t| *t > now);
        // The sessions picker is drawn again when its listing (a thread's) may have come.
        let listing = self
            .overlays
            .sessions
            .as_ref()
            .is_some_and(|s| s.loading())
            .then(|| now + TICK);
        // A running background job's timer counts whole seconds: one wake-up a second,
        // however much the jobs print (their output events come at most twice a second each).
        let jobs = (self.panes.tools.jobs.running() > 0).then(|| now + JOB_TICK);
        let status = self
            .status
            .status_line
            .as_ref()
            .and_then(|s| s.next_wakeup(now));
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
        if self.overlays.approvals.is_open() {
            return STATE_APPROVAL.into();
        }
        let running = self.panes.tool_calls.running();
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
        if self.panes.areas.tools.is_some() {
            v.push(Focus::Tools);
        }
        if self.panes.json_open {
            v.push(Focus::Json);
        }
        v
    }

    /// The pane behind a focus target (None for the input).
    pub(super) fn pane_mut(&mut self, focus: Focus) -> Option<&mut dyn Pane> {
        match focus {
            Focus::Input => None,
            Focus::Conversation => Some(&mut self.panes.conversation),
            Focus::Tools => Some(&mut self.panes.tools),
            Focus::Json => Some(&mut self.panes.json),
        }
    }

    pub(super) fn set_focus(&mut self, focus: Focus) {
        if self.panes.focus == Focus::Conversation && focus != Focus::Conversation {
            self.panes.conversation.unfocus();
        }
        // Enter opens a timeline bar only if it was picked since the tools pane got the focus.
        self.panes.tools.bars.armed &= focus == Focus::Tools;
        self.panes.focus = focus;
    }
}
