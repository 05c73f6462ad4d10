//! `tooloop replay SESSION [--speed N] [--step]`: the real TUI, fed a recording instead of an
//! agent. Commands the TUI sends go to [`answer`] here: Ctrl+C (Abort) stops the replay, a
//! typed prompt is refused (nothing is sent anywhere). With `--step`, Space plays the next
//! step (a block, a tool call: steps.rs) and never reaches the input box. The status bar
//! and the approval box show no keys that would send or answer anything.

use anyhow::Context;
use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::player::{Pace, play};
use crate::config::Config;
use crate::protocol::{AgentCommand, AgentEvent, Terminal, TurnSummary};
use crate::recording::timeline::timeline;
use crate::recording::{Kind, Recording};
use crate::tui::app::{App, RunInfo};
use crate::tui::panes::cells::CellKind;
use crate::tui::{event_loop, terminal, theme};

// The replay's own words (kept here, beside the only code that says them).
const REPLAY_ENDED: &str = "replay finished — Ctrl+C twice quits";
const REPLAY_STOPPED: &str = "replay stopped (Ctrl+C)";
const REPLAY_NO_INPUT: &str = "this is a replay: nothing is sent to a model";
/// The input box while empty: what a replay takes instead of a prompt.
const REPLAY_INPUT_STEP: &str = "replay · Space: next step · Ctrl+C: stop, twice: quit";
const REPLAY_INPUT: &str = "replay · nothing typed is sent · Ctrl+C: stop, twice: quit";
const REPLAY_NO_ANSWER: &str =
    "this is a replay: the recorded answer closes the question at its time (--step: Space)";

fn replay_intro(events: usize, speed: f64, step: bool) -> String {
    let pace = if step {
        "one block or tool call per Space".to_string()
    } else if speed == 1.0 {
        "at the recorded pace".to_string()
    } else {
        format!("at {speed}× the recorded pace")
    };
    format!("replay of a recording: {events} events, {pace}; nothing runs, Ctrl+C stops it")
}

/// How the replay is paced.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub speed: f64,
    pub step: bool,
}

/// Runs the TUI over `recording` until the user quits; returns the exit status.
pub async fn run(
    config: Config,
    path: std::path::PathBuf,
    recording: Recording,
    opts: Options,
) -> anyhow::Result<i32> {
    let theme = theme::Theme::named(&config.tui.theme, theme::no_color_requested())
        .map_err(|e| anyhow::anyhow!("config: {e}"))?;
    theme::install(theme);
    let (provider, model, session) = match recording.header() {
        Some(Kind::Header {
            provider,
            model,
            session,
            ..
        }) => (provider.clone(), model.clone(), session.clone()),
        _ => ("?".into(), "?".into(), None),
    };
    let skipped = recording.skipped;
    let events = timeline(&recording.entries);
    // What the user answered to each question is said in a line with the answer.
    let mut answers = super::approvals::answers(&events);
    drop(recording);
    let questions = super::approvals::OpenQuestions::default();
    let total = events.len();

    let (agent_tx, agent_rx) = mpsc::unbounded_channel::<AgentEvent>();
    let (commands_tx, commands_rx) = mpsc::unbounded_channel::<AgentCommand>();
    let (step_tx, step_rx) = mpsc::unbounded_channel::<()>();
    let cancel = CancellationToken::new();
    let pace = if opts.step {
        Pace::Step(step_rx)
    } else {
        Pace::Recorded(opts.speed)
    };
    let (timed_tx, mut timed_rx) = mpsc::unbounded_channel();
    tokio::spawn(play(events, pace, timed_tx, cancel.clone()));
    let forward = agent_tx.clone();
    let open = questions.clone();
    tokio::spawn(async move {
        while let Some(t) = timed_rx.recv().await {
            open.follow(&t.event);
            let said = match &t.event {
                AgentEvent::Permission { id, .. } => answers.remove(id),
                _ => None,
            };
            if forward.send(t.event).is_err() {
                return;
            }
            if let Some(text) = said {
                let _ = forward.send(AgentEvent::Notice { text });
            }
        }
        let _ = forward.send(AgentEvent::Notice {
            text: REPLAY_ENDED.into(),
        });
    });
    let said = agent_tx.clone();
    tokio::spawn(answer(commands_rx, agent_tx, cancel.clone()));

    tokio::task::spawn_blocking(crate::tui::text::highlight::warm_up);
    let setup = terminal::setup(config.tui.mouse, config.tui.keyboard_enhancement)
        .context("cannot set up the terminal")?;
    let mut term = setup.terminal;
    let mut app = App::new(RunInfo {
        provider: format!("{provider} (replay)"),
        model,
        session,
        shift_enter: setup.keyboard_enhanced,
        mouse: config.tui.mouse,
        save_dir: crate::tui::state_dir().join("json"),
        session_handle: None,
        sandbox: String::new(),
        models: Some(config.context.models.clone()),
        workspace: config.workspace.clone(),
        // Nothing runs in a replay: approvals shown are the recorded ones.
        approval: "replay".into(),
        rules: Default::default(),
        replay: true,
        ..Default::default()
    });
    let mut intro = replay_intro(total, opts.speed, opts.step);
    if skipped > 0 {
        intro.push_str(&format!(" ({skipped} damaged lines skipped)"));
    }
    app.panes.conversation.push(CellKind::Notice(intro));
    app.input.set_placeholder(if opts.step {
        REPLAY_INPUT_STEP
    } else {
        REPLAY_INPUT
    });
    app.panes
        .json
        .requests
        .link(crate::tui::panes::json::stepper::Link::Replay(path));
    let step = opts.step;
    let mut told = false;
    let input = crossterm::event::EventStream::new().filter_map(move |ev| {
        let keep = match &ev {
            Ok(Event::Key(k)) if step && is_step_key(k) => {
                if k.kind == KeyEventKind::Press {
                    let _ = step_tx.send(());
                }
                false
            }
            // Enter / Esc / a digit would answer a question answered long ago.
            Ok(Event::Key(k)) if questions.blocks(k) => {
                if !told && k.kind == KeyEventKind::Press {
                    told = true;
                    let _ = said.send(AgentEvent::Notice {
                        text: REPLAY_NO_ANSWER.into(),
                    });
                }
                false
            }
            _ => true,
        };
        futures::future::ready(keep.then_some(ev))
    });
    let input = crate::tui::hangup::UntilHangup::new(Box::pin(input));
    let result = event_loop::run(&mut term, &mut app, agent_rx, &commands_tx, input).await;
    terminal::restore();
    cancel.cancel();
    match result? {
        event_loop::Exit::Quit | event_loop::Exit::InputClosed => Ok(0),
        event_loop::Exit::Terminated => Ok(143),
        event_loop::Exit::AgentGone | event_loop::Exit::Editor => Ok(0),
    }
}

fn is_step_key(k: &crossterm::event::KeyEvent) -> bool {
    k.code == KeyCode::Char(' ') && !k.modifiers.intersects(KeyModifiers::CONTROL)
}

/// Stands in for the agent: Ctrl+C stops the replay, a prompt is refused at once.
async fn answer(
    mut commands: mpsc::UnboundedReceiver<AgentCommand>,
    events: mpsc::UnboundedSender<AgentEvent>,
    cancel: CancellationToken,
) {
    while let Some(cmd) = commands.recv().await {
        match cmd {
            AgentCommand::Abort if !cancel.is_cancelled() => {
                cancel.cancel();
                // The recorded Done will never come: end the turn the TUI is showing.
                let _ = events.send(AgentEvent::Done(ended(Terminal::AbortedStreaming)));
                let _ = events.send(AgentEvent::Notice {
                    text: REPLAY_STOPPED.into(),
                });
            }
            AgentCommand::Submit { .. }
            | AgentCommand::Shell { .. }
            | AgentCommand::Compact { .. } => {
                let _ = events.send(AgentEvent::Notice {
                    text: REPLAY_NO_INPUT.into(),
                });
                let _ = events.send(AgentEvent::Done(ended(Terminal::Completed)));
            }
            AgentCommand::Shutdown => return,
            _ => {}
        }
        // Keep the loop from spinning if a front end floods commands.
        tokio::task::yield_now().await;
    }
}

fn ended(reason: Terminal) -> TurnSummary {
    TurnSummary {
        reason,
        turns: 0,
        usage: Default::default(),
        text: String::new(),
        transitions: Vec::new(),
        error: None,
        cost_usd: None,
        context_tokens: 0,
    }
}
