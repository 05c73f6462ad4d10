//! One select! over the terminal, the agent and a frame deadline. Every queued agent event is
//! applied before a frame is drawn, frames are at most ~60 per second, and with nothing
//! running there is no deadline at all (idle = no wake-ups).

use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};

use super::app::App;
use super::terminal::Tui;
use super::update::paste_burst;
use super::view;
use crate::protocol::{AgentCommand, AgentEvent};

/// The shortest gap between two frames (~60 fps).
pub const FRAME: Duration = Duration::from_micros(16_667);
/// Agent events applied per wake-up at most, so keys stay responsive under a flood.
pub const MAX_DRAIN: usize = 10_000;

/// Why the loop ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Exit {
    Quit,
    Terminated,
    AgentGone,
    InputClosed,
    /// Ctrl+G: the caller hands the terminal to an editor, then runs the loop again.
    Editor,
}

/// Where frames go: the real terminal (synchronized updates), or any ratatui backend in
/// tests and benchmarks.
pub trait Screen {
    fn draw_frame(&mut self, app: &mut App, now: Instant) -> std::io::Result<()>;
    fn resized(&mut self) -> std::io::Result<()>;
}

/// Any backend, drawn plainly (TestBackend in tests and benchmarks).
pub struct Plain<B: Backend>(pub Terminal<B>);

impl<B: Backend> Screen for Plain<B> {
    fn draw_frame(&mut self, app: &mut App, now: Instant) -> std::io::Result<()> {
        self.0.draw(|f| view::draw(app, f, now)).map(|_| ())
    }

    fn resized(&mut self) -> std::io::Result<()> {
        self.0.autoresize()
    }
}

impl Screen for Tui {
    fn draw_frame(&mut self, app: &mut App, now: Instant) -> std::io::Result<()> {
        self.draw_synchronized(app, now)
    }

    fn resized(&mut self) -> std::io::Result<()> {
        self.autoresize()
    }
}

/// Runs until the user quits, the input ends or the agent goes away. `input` is crossterm's
/// EventStream for the real terminal.
pub async fn run<S, I>(
    terminal: &mut S,
    app: &mut App,
    mut events: mpsc::UnboundedReceiver<AgentEvent>,
    commands: &mpsc::UnboundedSender<AgentCommand>,
    input: I,
) -> anyhow::Result<Exit>
where
    S: Screen,
    I: Stream<Item = std::io::Result<Event>> + Unpin,
{
    run_until(terminal, app, &mut events, commands, input).await
}

/// [`run`], also ending with [`Exit::Editor`] when the user asks for the editor (the events
/// keep queueing meanwhile; the caller runs the loop again with a fresh `input`).
pub async fn run_until<S, I>(
    terminal: &mut S,
    app: &mut App,
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
    commands: &mpsc::UnboundedSender<AgentCommand>,
    mut input: I,
) -> anyhow::Result<Exit>
where
    S: Screen,
    I: Stream<Item = std::io::Result<Event>> + Unpin,
{
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    // In raw mode Ctrl+C arrives as a key; a SIGINT from elsewhere (kill -INT) means the same.
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut last_draw: Option<Instant> = None;
    let mut dirty;
    let mut deadline: Option<Instant> = Some(Instant::now());
    // `TOOLOOP_FRAME_TIMES=FILE` (benchmarks): each frame's draw time, written at the end.
    let mut frame_times = super::frame_times::FrameTimes::from_env();
    let mut burst = paste_burst::Burst::default();
    loop {
        let sleep = async {
            match deadline {
                Some(t) => sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            ev = input.next() => {
                // Everything the terminal already delivered is handled before the next
                // frame: a burst (3,000 characters typed by an input method, a paste without
                // bracketed paste) then costs one frame, and the Enter after it sees all of it.
                // Polled with this task's own waker, so a Pending still wakes the loop.
                // Plain keys go through `burst`: a paste without bracketed paste is one
                // paste (update/paste_burst.rs).
                let mut next = Some(ev);
                for drained in 0..MAX_DRAIN {
                    let ev = match next.take() {
                        Some(ev) => ev,
                        // Keys after a quit or Ctrl+G stay queued (the editor gets them).
                        None if app.status.should_quit || app.compose.editor_requested => break,
                        None => {
                            let ready = std::future::poll_fn(|cx| {
                                std::task::Poll::Ready(input.poll_next_unpin(cx))
                            })
                            .await;
                            let std::task::Poll::Ready(ev) = ready else { break };
                            ev
                        }
                    };
                    let now = Instant::now();
                    // A key reported as a control character (the kitty keyboard protocol can
                    // say `CSI 1 u`) is no text and names no binding: dropped at the door, so
                    // neither the input nor a paste burst ever holds one (fuzz crash 15).
                    if let Some(Ok(Event::Key(k))) = &ev
                        && matches!(k.code, KeyCode::Char(c) if c.is_control())
                    {
                        continue;
                    }
                    if let Some(Ok(Event::Key(k))) = &ev
                        && paste_burst::plain(k).is_some()
                    {
                        burst.key(app, *k, now, drained > 0);
                        continue;
                    }
                    burst.flush(app, now);
                    if let Some(exit) = on_input(terminal, app, ev)? {
                        return Ok(exit);
                    }
                }
                dirty = true;
            }
            ev = events.recv() => {
                let Some(ev) = ev else { return Ok(Exit::AgentGone) };
                let now = Instant::now();
                app.on_agent(ev, now);
                if let Some(sl) = &mut app.status.status_line {
                    sl.poke();
                }
                let mut n = 1;
                while n < MAX_DRAIN {
                    match events.try_recv() {
                        Ok(ev) => app.on_agent(ev, now),
                        Err(_) => break,
                    }
                    n += 1;
                }
                dirty = true;
            }
            _ = sleep => {
                burst.settle(app, Instant::now());
                dirty = true;
            }
            _ = sigint.recv() => {
                let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
                app.on_key(ctrl_c, Instant::now());
                dirty = true;
            }
            _ = sigterm.recv() => return Ok(Exit::Terminated),
            _ = sighup.recv() => return Ok(Exit::Terminated),
        }
        // A turn that ended or a question that opened while the terminal is not focused
        // calls the user back (written after the next frame).
        app.status
            .notify
            .observe(app.turn.busy, app.overlays.approvals.is_open());
        for cmd in app.take_commands() {
            if commands.send(cmd).is_err() {
                return Ok(Exit::AgentGone);
            }
        }
        if app.status.should_quit {
            return Ok(Exit::Quit);
        }
        if app.compose.editor_requested {
            return Ok(Exit::Editor);
        }
        let now = Instant::now();
        dirty |= app.status_line_tick(now);
        let due = last_draw.map_or(now, |t| t + FRAME);
        if dirty && now >= due {
            // A terminal that cannot be written to is gone (closed window, SIGHUP on its
            // way): end quietly, nobody can read an error any more.
            let started = frame_times.as_ref().map(|_| std::time::Instant::now());
            if let Err(e) = terminal.draw_frame(app, now) {
                tracing::warn!("the terminal is gone: {e}");
                return Ok(Exit::InputClosed);
            }
            if let (Some(times), Some(t)) = (&mut frame_times, started) {
                times.record(app.turn.turn, t.elapsed());
            }
            last_draw = Some(now);
            dirty = false;
        }
        let next_frame = if dirty { Some(due) } else { None };
        let wake = [app.next_wakeup(now), burst.deadline()]
            .into_iter()
            .flatten()
            .min();
        deadline = match (next_frame, wake) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

/// Applies one terminal event; Some when the input has ended.
fn on_input<S: Screen>(
    terminal: &mut S,
    app: &mut App,
    ev: Option<std::io::Result<Event>>,
) -> std::io::Result<Option<Exit>> {
    let now = Instant::now();
    match ev {
        Some(Ok(Event::Key(k))) => app.on_key(k, now),
        Some(Ok(Event::Paste(s))) => app.on_paste(&s),
        Some(Ok(Event::Mouse(m))) => app.on_mouse(m),
        Some(Ok(Event::FocusGained)) => app.set_focused(true),
        Some(Ok(Event::FocusLost)) => app.set_focused(false),
        Some(Ok(Event::Resize(..))) => {
            app.on_resize();
            terminal.resized()?;
        }
        Some(Err(e)) => {
            tracing::warn!("terminal input: {e}");
            return Ok(Some(Exit::InputClosed));
        }
        None => return Ok(Some(Exit::InputClosed)),
    }
    Ok(None)
}

/// Draws one frame inside a synchronized update so the terminal never shows half of it.
pub trait DrawSynchronized {
    fn draw_synchronized(&mut self, app: &mut App, now: Instant) -> std::io::Result<()>;
}

impl DrawSynchronized for Tui {
    fn draw_synchronized(&mut self, app: &mut App, now: Instant) -> std::io::Result<()> {
        use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
        crossterm::queue!(self.backend_mut(), BeginSynchronizedUpdate)?;
        let drawn = self.draw(|f| view::draw(app, f, now)).map(|_| ());
        crossterm::execute!(self.backend_mut(), EndSynchronizedUpdate)?;
        // The copy key's text goes out after the frame, as OSC 52 (the terminal sets its
        // clipboard; nothing is drawn).
        if let Some(text) = app.outbox.clipboard.take() {
            let seq = super::update::clipboard::osc52(&text);
            crossterm::execute!(self.backend_mut(), crossterm::style::Print(seq))?;
        }
        // A bell or OSC 9 notification, when one is due (tui/notify.rs).
        if let Some(seq) = app.status.notify.take() {
            crossterm::execute!(self.backend_mut(), crossterm::style::Print(seq))?;
        }
        drawn
    }
}
