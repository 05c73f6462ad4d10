//! The full-screen TUI: a front end on the agent's AgentCommand / AgentEvent channels.
//!
//! - `app.rs`: the state (App). Only app.rs and the controller in `update/` hold `impl App`.
//! - `update/`: the controller — agent events (agent.rs), keys and mouse (keys.rs), slash
//!   commands, and what each overlay's or pane's answer means for the App.
//! - `panes/`: the panes (the [`panes::Pane`] trait, conversation, tools, JSON, status bar)
//!   and `overlays/`: approval, rewind, sessions, help. Both are leaves: they draw, take a
//!   key and return what happened; they import nothing from app.rs.
//! - `text/`: lines for the screen — wrap, sanitize, markdown, highlight, JSON view, fit.
//! - `input/`: the prompt input with its history; `view.rs` draws a frame; `event_loop.rs`
//!   runs the loop; `terminal.rs`, `hangup.rs` the terminal.

pub mod app;
pub mod editor;
pub mod event_loop;
pub mod frame_times;
pub mod hangup;
pub mod input;
pub mod keys;
pub mod model_spend;
pub mod notify;
pub mod overlays;
pub mod panes;
pub mod parts;
pub mod status_line;
pub mod steer;
pub mod steering;
pub mod strings;
pub mod subagents;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod tool_calls;
pub mod update;
pub mod view;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use crate::engine::Engine;
use app::{App, RunInfo};
use event_loop::Exit;
use panes::cells::CellKind;
use std::time::Duration;

/// What the TUI needs from the configuration; `main` builds it (and the engine) from the
/// config, so the TUI never sees the whole of it.
pub struct Settings {
    pub theme: theme::Theme,
    pub mouse: bool,
    /// Ask the terminal for the kitty keyboard protocol (`[keyboard] enhancement`).
    pub keyboard_enhancement: bool,
    /// The provider's name for the first screen and the status bar.
    pub provider: String,
    /// The demo provider: the first screen says what it is.
    pub demo: bool,
    pub model: String,
    /// The provider's base URL (empty for the demo) and whether it is not the default one.
    pub base_url: String,
    pub custom_base_url: bool,
    pub workspace: PathBuf,
    /// The approval mode's name ("ask", "yolo", …).
    pub approval: String,
    /// Known and configured models, for `/model`.
    pub models: Arc<crate::models::ModelTable>,
    /// The permission rules of the three files (`/permissions`).
    pub rules: crate::permission::rules::RuleSet,
    /// A recording is being written (`--record`): the JSON pane's stepper follows it.
    pub recording: bool,
    /// `[tui] notify`: how to call the user back when the terminal is not focused.
    pub notify: crate::config_file::NotifyMode,
    /// `[tui] status_line` or Claude Code's `statusLine`: the user's status-line command.
    pub status_line: Option<status_line::StatusLineCommand>,
}

/// Runs the TUI on `engine` until the user quits; returns the exit status.
/// `initial_prompt` (`tooloop "fix it"`) is sent as soon as the TUI is up.
pub async fn run(
    engine: Engine,
    settings: Settings,
    initial_prompt: Option<String>,
) -> anyhow::Result<i32> {
    theme::install(settings.theme);
    let Engine {
        events: mut events_rx,
        control,
        session,
        sandbox,
        unfocused,
        ..
    } = engine;
    let sandbox = sandbox.to_string();

    // Load syntect's syntaxes off the UI thread, so the first code block does not stall a frame.
    tokio::task::spawn_blocking(text::highlight::warm_up);
    let setup = terminal::setup(settings.mouse, settings.keyboard_enhancement)
        .context("cannot set up the terminal")?;
    let mut terminal = setup.terminal;
    let mut app = App::new(RunInfo {
        provider: settings.provider,
        model: settings.model,
        base_url: settings.base_url,
        custom_base_url: settings.custom_base_url,
        session: session.as_ref().map(|s| s.id.clone()),
        shift_enter: setup.keyboard_enhanced,
        mouse: settings.mouse,
        save_dir: state_dir().join("json"),
        session_handle: session.as_ref().map(|s| s.handle.clone()),
        sandbox,
        workspace: settings.workspace,
        approval: settings.approval,
        models: Some(settings.models),
        rules: settings.rules,
        replay: false,
    });
    app.status.status_line = settings
        .status_line
        .map(|c| status_line::StatusLine::new(c, app.info.workspace.clone()));
    app.status.notify = notify::Notifier::new(notify::signal_for(
        settings.notify,
        &notify::TermEnv::from_env(),
    ));
    app.hook_focus = unfocused;
    if app.status.notify.wants_focus_events() || app.hook_focus.is_some() {
        // Only then: a terminal without focus reporting ignores the request anyway.
        if let Err(e) = terminal::enable_focus_events() {
            tracing::warn!("no focus events: {e}");
        }
    }
    if let Some(path) = input::prompt_history::file_for(&app.info.workspace) {
        app.input.use_history_file(path);
    }
    // A resumed session's history is already queued (engine::start loaded it), and showing
    // it clears the conversation: apply it first, so the welcome and the notice that says
    // which session and provider/model were loaded come after it, not wiped by it.
    if session.as_ref().is_some_and(|s| s.resumed) {
        while let Ok(ev) = events_rx.try_recv() {
            app.on_agent(ev, tokio::time::Instant::now());
        }
    }
    // The first screen says where this runs, with what, and how to start.
    let info = &app.info;
    let mut welcome =
        strings::welcome(&info.workspace, &info.provider, &info.model, &info.approval);
    if info.custom_base_url {
        welcome.push_str(&strings::welcome_base_url(&info.base_url));
    }
    app.panes.conversation.push(CellKind::Notice(welcome));
    app.panes
        .conversation
        .push(CellKind::Notice(strings::WELCOME_HINTS.into()));
    if settings.recording
        && let Some(s) = &session
    {
        app.panes
            .json
            .requests
            .link(panes::json::stepper::Link::Live(s.handle.clone()));
    }
    if let Some(notice) = session.as_ref().and_then(|s| s.notice.clone()) {
        app.panes.conversation.push(CellKind::Notice(notice));
    }
    if settings.demo {
        app.panes
            .conversation
            .push(CellKind::Notice(strings::DEMO_NOTE.into()));
    }
    if let Some(prompt) = initial_prompt.filter(|p| !p.trim().is_empty()) {
        app.send_initial_prompt(prompt);
    }
    let mut events_rx = events_rx;
    let result = loop {
        let input = hangup::UntilHangup::new(crossterm::event::EventStream::new());
        let result = event_loop::run_until(
            &mut terminal,
            &mut app,
            &mut events_rx,
            control.commands(),
            input,
        )
        .await;
        // The stream is dropped: its reader thread stops, and the editor gets every key.
        if matches!(result, Ok(Exit::Editor)) {
            edit_input(&mut terminal, &mut app);
            continue;
        }
        break result;
    };
    if matches!(result, Ok(Exit::Terminated | Exit::InputClosed)) {
        exit_watchdog(Duration::from_secs(5), 143);
    }
    terminal::restore();
    // ratatui's Drop shows the cursor again and eprintln!s if it cannot, which panics when
    // the terminal was closed: show it here, and if the terminal is gone, drop nothing.
    if terminal.show_cursor().is_err() {
        std::mem::forget(terminal);
    }
    // A turn in progress gets a moment to stop its tools (their process groups are killed
    // on cancel); the process exits either way.
    control.stop(std::time::Duration::from_secs(2)).await;
    tracing::info!("tui exits: {result:?}");
    // On a quit the user chose, say how to come back (never to a terminal that is gone),
    // only to a session that was saved: after /new with nothing sent there is none yet.
    let saved = app
        .info
        .session_handle
        .as_ref()
        .is_none_or(|h| h.path().is_file());
    if let (Ok(Exit::Quit), Some(id), true) = (&result, &app.info.session, saved) {
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "{}", strings::resume_hint(id));
    }
    match result? {
        Exit::Quit | Exit::InputClosed | Exit::Editor => Ok(0),
        Exit::Terminated => Ok(143),
        Exit::AgentGone => anyhow::bail!("the agent task stopped unexpectedly"),
    }
}

/// Ctrl+G: the terminal goes to the editor and comes back; the edited text is the input.
fn edit_input(terminal: &mut terminal::Tui, app: &mut App) {
    app.compose.editor_requested = false;
    let modes = terminal::suspend();
    let edited = editor::run(&app.input.full_text());
    if let Err(e) = terminal::resume(modes) {
        tracing::warn!("cannot take the terminal back after the editor: {e}");
    }
    // Everything on the screen is the editor's now: draw all of it again.
    let _ = terminal.clear();
    app.editor_done(edited);
}

/// Once the terminal is gone nobody can end this process by hand (the signal handlers are
/// still installed and swallow SIGTERM): whatever the shutdown still waits on, the process
/// ends after `limit`. `_exit` because the normal exit path flushes stdout, which could block
/// again on the dead terminal.
fn exit_watchdog(limit: Duration, code: i32) {
    let spawned = std::thread::Builder::new()
        .name("exit-watchdog".into())
        .spawn(move || {
            std::thread::sleep(limit);
            tracing::warn!("still running {limit:?} after the terminal went away; exiting");
            // SAFETY: _exit only ends the process; it touches no Rust state.
            unsafe { libc::_exit(code) };
        });
    if let Err(e) = spawned {
        tracing::warn!("no exit watchdog: {e}");
    }
}

/// tooloop's state directory (where the logs go: XDG_STATE_HOME/tooloop on Linux), else the
/// temp dir.
pub fn state_dir() -> PathBuf {
    crate::paths::log_dir().unwrap_or_else(|_| std::env::temp_dir().join("tooloop"))
}
