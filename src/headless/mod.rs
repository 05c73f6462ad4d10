//! Print mode (`tooloop -p`): one prompt to the end of the loop, then exit (CLI.md).

use std::io::Write;

use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::cli::OutputFormat;
use crate::engine;
use crate::protocol::compaction::Trigger;
use crate::protocol::steer::SteerFate;
use crate::protocol::subagent::AgentReport;
use crate::protocol::{AgentCommand, AgentEvent, Terminal, TurnSummary};

pub mod stdin_messages;
mod stream_json;
pub use stream_json::{Sandboxed, event_line, stream_json};

/// How long the agent task may take to stop after the result (it is idle by then).
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Why a headless run could not finish (one that cannot start fails in `main`, where the
/// engine is built: a usage error).
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// The agent task ended without finishing the prompt.
    #[error("the agent stopped before the prompt's loop ended")]
    AgentGone,
}

/// Exit status for a finished run (CLI.md).
pub fn exit_code(reason: Terminal) -> i32 {
    match reason {
        Terminal::Completed | Terminal::PlanReady => 0,
        Terminal::MaxTurns => 3,
        Terminal::AbortedStreaming | Terminal::AbortedTools => 130,
        Terminal::ModelError
        | Terminal::PromptTooLong
        | Terminal::MaxOutputTokens
        | Terminal::BudgetExceeded
        | Terminal::BlockingLimit
        | Terminal::HookStopped
        | Terminal::StopHookPrevented
        | Terminal::NotSent => 1,
    }
}

/// Runs `prompt` on the engine `main` built for this run, like one prompt in the TUI;
/// SIGINT aborts the turn like Ctrl+C there. `steering`: the messages `--input-format
/// stream-json` reads from stdin, each sent into the running turn.
pub async fn run(
    engine: engine::Engine,
    prompt: &str,
    format: OutputFormat,
    steering: Option<tokio::sync::mpsc::UnboundedReceiver<String>>,
) -> Result<i32, HeadlessError> {
    // SIGINT is caught from main's first line (crate::interrupt); one that came before this
    // point, or came while main started the engine or loaded a session, still aborts the
    // turn and prints a result.
    let cancel = CancellationToken::new();
    let sigint = crate::interrupt::cancel_on_sigint(&cancel);
    // SIGTERM and SIGHUP end the run like SIGINT (the turn is aborted, every background
    // job ended, the result printed), with the status the signal would have given.
    let terminated = on_termination(&cancel);
    let engine::Engine {
        mut events,
        control,
        session,
        sandbox,
        sandboxed_tools,
        jobs,
        worktree,
        ..
    } = engine;
    // t_ms counts from here: the agent is ready, the prompt goes in next.
    let start = Instant::now();
    let session_id = session.as_ref().map(|s| s.id.clone());
    if let Some(notice) = session.and_then(|s| s.notice) {
        for line in notice.lines() {
            eprintln!("tooloop: {}", crate::sanitize::output::for_stderr(line));
        }
    }
    control.send(AgentCommand::Submit {
        text: prompt.to_string(),
    });
    if crate::interrupt::seen() {
        cancel.cancel();
    }
    // After Submit, so an early SIGINT reaches the running turn rather than an idle agent.
    let abort = control.commands().clone();
    let on_cancel = cancel.clone();
    let forward = tokio::spawn(async move {
        on_cancel.cancelled().await;
        let _ = abort.send(AgentCommand::Abort);
    });
    let steer = steering.map(|mut messages| {
        let commands = control.commands().clone();
        tokio::spawn(async move {
            while let Some(text) = messages.recv().await {
                let _ = commands.send(AgentCommand::Steer { text });
            }
        })
    });
    let sandbox = Sandboxed {
        label: sandbox,
        tools: sandboxed_tools,
    };
    let mut summary: Option<TurnSummary> = None;
    // Steered text that missed the last tool boundary runs as one more prompt: the run
    // waits for its Done too, and `result` counts both.
    let mut another_prompt = false;
    let mut not_sent = Vec::new();
    let mut plan = None;
    // Every subagent's end, for `result.agents`.
    let mut agents = Vec::new();
    let mut ended = std::collections::HashSet::new();
    while let Some(event) = events.recv().await {
        let mut done = false;
        match &event {
            AgentEvent::Done(s) => {
                summary = Some(add_prompt(summary.take(), s));
                done = !std::mem::take(&mut another_prompt);
            }
            AgentEvent::Steer { text, fate } => match fate {
                SteerFate::NextPrompt => another_prompt = true,
                SteerFate::Returned => not_sent.push(text.clone()),
                SteerFate::Joined => {}
            },
            AgentEvent::PlanReady { plan: p } => plan = Some(p.clone()),
            AgentEvent::AgentEnd(r) => agents.push(r.clone()),
            _ => {}
        }
        if let AgentEvent::Background(e) = &event
            && e.change == crate::background::Change::Ended
        {
            ended.insert(e.job.shell_id.clone());
        }
        print_event(&event, format, start, &sandbox);
        if done {
            break;
        }
    }
    if let Some(steer) = steer {
        steer.abort();
    }
    sigint.abort();
    forward.abort();
    // The run is over: so is every background job (the agent task ends them as it stops).
    let agent = control.stop(STOP_GRACE).await;
    let background = jobs.list();
    // Their `background` lines, for the jobs that ended only now.
    for job in background.iter().filter(|j| !ended.contains(&j.shell_id)) {
        if job.state.is_running() {
            continue;
        }
        let event = AgentEvent::Background(crate::background::JobEvent {
            change: crate::background::Change::Ended,
            job: job.clone(),
        });
        print_event(&event, format, start, &sandbox);
    }
    // Once the agent stopped (no tool writes any more): committed and kept, or removed.
    let worktree = finish_worktree(worktree, session_id.as_deref()).await;
    let summary = summary.ok_or(HeadlessError::AgentGone)?;
    let (history, todos, by_model) = agent
        .map(|a| (a.history, a.todos.current(), a.context.ledger.by_model()))
        .unwrap_or_default();
    let extra = Extra {
        todos,
        plan,
        background,
        agents,
        worktree,
        not_sent,
        by_model,
    };
    print_result(&summary, &history, &extra, format, start);
    Ok(match terminated.signal() {
        Some(sig) => 128 + sig,
        None => exit_code(summary.reason),
    })
}

/// `--worktree`: the run's changes committed on its branch and the worktree kept, or
/// worktree and branch removed; the exit line says which (stderr, in every format).
async fn finish_worktree(
    worktree: Option<crate::worktree::Worktree>,
    session: Option<&str>,
) -> Option<Value> {
    let what = format!("session {}", session.unwrap_or("(no transcript)"));
    let outcome = engine::worktree::finish(worktree, &what).await?;
    eprintln!(
        "{}",
        crate::sanitize::output::for_stderr(&outcome.exit_line())
    );
    Some(outcome.to_json())
}

/// The run's summary after one more prompt's `done`: the last prompt's, with the turns and
/// usage of those before it.
fn add_prompt(before: Option<TurnSummary>, done: &TurnSummary) -> TurnSummary {
    let mut summary = done.clone();
    if let Some(before) = before {
        summary.turns += before.turns;
        summary.usage.add(before.usage);
    }
    summary
}

/// The termination signal (SIGTERM, SIGHUP) that ended the run, if one did.
struct Terminated(std::sync::Arc<std::sync::atomic::AtomicI32>);

impl Terminated {
    fn signal(&self) -> Option<i32> {
        match self.0.load(std::sync::atomic::Ordering::SeqCst) {
            0 => None,
            sig => Some(sig),
        }
    }
}

/// Cancels `cancel` on SIGTERM or SIGHUP, and makes sure the process ends within a few
/// seconds afterwards even if something hangs (every job's group is killed first).
fn on_termination(cancel: &CancellationToken) -> Terminated {
    use tokio::signal::unix::{SignalKind, signal};
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicI32::new(0));
    for (kind, sig) in [
        (SignalKind::terminate(), libc::SIGTERM),
        (SignalKind::hangup(), libc::SIGHUP),
    ] {
        let Ok(mut stream) = signal(kind) else {
            continue;
        };
        let (cancel, seen) = (cancel.clone(), seen.clone());
        tokio::spawn(async move {
            if stream.recv().await.is_some() {
                tracing::info!(signal = sig, "headless run terminated");
                let _ = seen.compare_exchange(
                    0,
                    sig,
                    std::sync::atomic::Ordering::SeqCst,
                    std::sync::atomic::Ordering::SeqCst,
                );
                cancel.cancel();
                exit_watchdog(std::time::Duration::from_secs(5), 128 + sig);
            }
        });
    }
    Terminated(seen)
}

/// After a termination signal nothing may keep the process alive: past `limit`, every
/// background job's group is killed and the process exits.
fn exit_watchdog(limit: std::time::Duration, code: i32) {
    let _ = std::thread::Builder::new()
        .name("exit-watchdog".into())
        .spawn(move || {
            std::thread::sleep(limit);
            crate::background::reaper::kill_all_now();
            // SAFETY: _exit only ends the process.
            unsafe { libc::_exit(code) };
        });
}

fn print_event(event: &AgentEvent, format: OutputFormat, start: Instant, sandbox: &Sandboxed<'_>) {
    use crate::sanitize::output::{for_stderr, json_line};
    // A server that failed is a config problem the user must see in every format.
    if let AgentEvent::Mcp(s) = event
        && s.state == crate::protocol::status::ServerState::Failed
    {
        eprintln!(
            "tooloop: MCP server {} failed: {}",
            for_stderr(&s.server),
            for_stderr(s.error.as_deref().unwrap_or("unknown error"))
        );
    }
    // A subagent's errors and notices are said with its id.
    let (agent, inner) = event.unwrapped();
    let who = agent.map(|(id, _)| format!("[{id}] ")).unwrap_or_default();
    match format {
        OutputFormat::Text => match inner {
            AgentEvent::Error { message } => eprintln!("tooloop: {who}{}", for_stderr(message)),
            AgentEvent::Notice { text } => eprintln!("tooloop: {who}{}", for_stderr(text)),
            AgentEvent::Compacted { info, .. } if info.trigger != Trigger::Micro => eprintln!(
                "tooloop: {who}compacted the conversation ({}): {} → {} tokens",
                info.trigger.as_str(),
                crate::text::grouped(info.pre_tokens),
                crate::text::grouped(info.post_tokens)
            ),
            _ => {}
        },
        OutputFormat::Json => {}
        OutputFormat::StreamJson => {
            if let Some(mut line) = event_line(event, sandbox) {
                if let Value::Object(map) = &mut line {
                    map.insert("t_ms".into(), json!(start.elapsed().as_millis() as u64));
                }
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{}", json_line(&line));
                let _ = out.flush();
            }
        }
    }
}

/// What `result` carries besides the summary when it applies (CLI.md).
#[derive(Default)]
pub struct Extra {
    /// The session's todo list at the end (left out when empty).
    pub todos: Vec<crate::todo::TodoItem>,
    /// The plan of a headless plan-mode run (`plan_ready`).
    pub plan: Option<String>,
    /// One object per subagent, the fields of its `agent_end` (left out when none ran).
    pub agents: Vec<AgentReport>,
    /// The session's background jobs with their final state (left out when none).
    pub background: Vec<crate::background::JobInfo>,
    /// `--worktree`: what became of the run's worktree.
    pub worktree: Option<Value>,
    /// Steered text the abort kept from being sent (`--input-format stream-json`).
    pub not_sent: Vec<String>,
    /// What each model spent (`usage_by_model`, printed once more than one answered).
    pub by_model: std::collections::BTreeMap<String, crate::agent::context::ledger::Spend>,
}

/// The `result` object: always the last line.
/// `history`: the agent's shared messages, or plain ones.
pub fn result_json<H: serde::Serialize + ?Sized>(
    summary: &TurnSummary,
    history: &H,
    extra: &Extra,
) -> Value {
    let mut v = json!({
        "type": "result",
        "reason": summary.reason,
        "turns": summary.turns,
        "usage": summary.usage,
        "cost_usd": summary.cost_usd,
        "context_tokens": summary.context_tokens,
        "messages": history,
        "text": summary.text,
        "transitions": summary.transitions,
    });
    if let Value::Object(map) = &mut v {
        if let Some(err) = &summary.error {
            map.insert("error".into(), json!(err));
        }
        if !extra.todos.is_empty() {
            map.insert("todos".into(), json!(extra.todos));
        }
        if let Some(plan) = &extra.plan {
            map.insert("plan".into(), json!(plan));
        }
        if !extra.agents.is_empty() {
            map.insert("agents".into(), json!(extra.agents));
        }
        if extra.by_model.len() > 1 {
            let split: serde_json::Map<String, Value> = extra
                .by_model
                .iter()
                .map(|(model, s)| {
                    let v = json!({"usage": s.usage, "cost_usd": s.cost_usd()});
                    (model.clone(), v)
                })
                .collect();
            map.insert("usage_by_model".into(), Value::Object(split));
        }
        if !extra.not_sent.is_empty() {
            map.insert("not_sent".into(), json!(extra.not_sent));
        }
        if !extra.background.is_empty() {
            let jobs: Vec<Value> = extra
                .background
                .iter()
                .map(|j| j.json_fields(j.state.as_str()))
                .collect();
            map.insert("background".into(), json!(jobs));
        }
        if let Some(worktree) = &extra.worktree {
            map.insert("worktree".into(), worktree.clone());
        }
    }
    v
}

pub fn print_result<H: serde::Serialize + ?Sized>(
    summary: &TurnSummary,
    history: &H,
    extra: &Extra,
    format: OutputFormat,
    start: Instant,
) {
    let mut out = std::io::stdout().lock();
    match format {
        OutputFormat::Text => {
            // A plan-mode run's answer is its plan.
            let text = extra.plan.as_deref().unwrap_or(&summary.text);
            let _ = writeln!(out, "{}", crate::sanitize::output::for_stdout(text));
            for text in &extra.not_sent {
                let text = crate::sanitize::output::for_stderr(text);
                eprintln!("tooloop: not sent: {text}");
            }
            if let Some(err) = &summary.error {
                let err = crate::sanitize::output::for_stderr(err);
                eprintln!("tooloop: {} ({err})", summary.reason.as_str());
            } else if !matches!(summary.reason, Terminal::Completed | Terminal::PlanReady) {
                eprintln!("tooloop: stopped: {}", summary.reason.as_str());
            }
        }
        OutputFormat::Json | OutputFormat::StreamJson => {
            let mut v = result_json(summary, history, extra);
            if format == OutputFormat::StreamJson
                && let Value::Object(map) = &mut v
            {
                map.insert("t_ms".into(), json!(start.elapsed().as_millis() as u64));
            }
            let _ = writeln!(out, "{}", crate::sanitize::output::json_line(&v));
        }
    }
    let _ = out.flush();
}
