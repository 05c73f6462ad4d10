//! `tooloop replay SESSION -p [--output-format stream-json]`: the lines the original run
//! printed, with their recorded `t_ms`, at the recorded pace (`--speed` divides the waits).
//!
//! A recording several runs appended to (a resumed session) prints each run's output in
//! turn, each line with the `t_ms` its own run printed: CLI.md defines `t_ms` as ms since the
//! run started, so every run's lines start again near 0 and end with that run's `result`.
//! The pacing still runs on one axis (a later run starts where the earlier one ended).

use std::io::Write;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::player::{Pace, play};
use crate::cli::OutputFormat;
use crate::headless::{Sandboxed, event_line, exit_code, result_json};
use crate::message::Message;
use crate::protocol::AgentEvent;
use crate::recording::timeline::{Timed, timeline};
use crate::recording::{Kind, Recording};

/// Plays `recording` to stdout; returns the exit status the original run had (of its last
/// prompt), 1 if it never finished one. SIGINT stops it with 130.
pub async fn run(recording: Recording, speed: f64, format: OutputFormat) -> i32 {
    let (label, tools) = match recording.header() {
        Some(Kind::Header {
            sandbox,
            sandboxed_tools,
            ..
        }) => (sandbox.clone(), sandboxed_tools.clone()),
        _ => (String::new(), Vec::new()),
    };
    let sandbox = Sandboxed {
        label: &label,
        tools,
    };
    let events = timeline(&recording.entries);
    drop(recording);
    let cancel = CancellationToken::new();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let player = tokio::spawn(play(events, Pace::Recorded(speed), tx, cancel.clone()));
    let mut printer = Printer::new(format, sandbox);
    let mut code = 1;
    loop {
        tokio::select! {
            t = rx.recv() => match t {
                Some(t) => {
                    if let Some(c) = printer.event(&t) {
                        code = c;
                    }
                }
                None => break,
            },
            _ = tokio::signal::ctrl_c() => {
                cancel.cancel();
                code = 130;
                break;
            }
        }
    }
    let _ = player.await;
    code
}

/// Turns replayed events into output lines, rebuilding the history the `result` line carries.
pub struct Printer<'a> {
    format: OutputFormat,
    sandbox: Sandboxed<'a>,
    history: Vec<Arc<Message>>,
    /// What the `result` line carries besides history (the todo list as last replayed).
    extra: crate::headless::Extra,
}

impl<'a> Printer<'a> {
    pub fn new(format: OutputFormat, sandbox: Sandboxed<'a>) -> Self {
        Printer {
            format,
            sandbox,
            history: Vec::new(),
            extra: Default::default(),
        }
    }

    /// Prints what `t` printed originally; Some(exit status) when a prompt's loop ended.
    pub fn event(&mut self, t: &Timed) -> Option<i32> {
        self.follow_history(&t.event);
        if let AgentEvent::Done(summary) = &t.event {
            self.result(summary, t.t_ms);
            return Some(exit_code(summary.reason));
        }
        if self.format == OutputFormat::StreamJson
            && let Some(mut line) = event_line(&t.event, &self.sandbox)
        {
            if let Value::Object(map) = &mut line {
                map.insert("t_ms".into(), json!(t.t_ms));
            }
            emit(&line);
        }
        if self.format == OutputFormat::Text
            && let AgentEvent::Error { message } | AgentEvent::Notice { text: message } = &t.event
        {
            eprintln!("tooloop: {}", crate::sanitize::output::for_stderr(message));
        }
        None
    }

    fn follow_history(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::Message { index, message } => {
                self.history.truncate(*index);
                self.history.push(message.clone());
            }
            AgentEvent::HistoryReset { messages, .. } => self.history = messages.clone(),
            AgentEvent::AgentEnd(report) => self.extra.agents.push(report.clone()),
            AgentEvent::Compacted { messages, .. } => {
                self.history = messages.iter().cloned().map(Arc::new).collect()
            }
            AgentEvent::Todos { todos } => self.extra.todos = todos.clone(),
            AgentEvent::PlanReady { plan } => self.extra.plan = Some(plan.clone()),
            _ => {}
        }
    }

    fn result(&self, summary: &crate::protocol::TurnSummary, t_ms: u64) {
        match self.format {
            OutputFormat::Text => {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(
                    out,
                    "{}",
                    crate::sanitize::output::for_stdout(&summary.text)
                );
                let _ = out.flush();
            }
            OutputFormat::Json | OutputFormat::StreamJson => {
                let mut v = result_json(summary, &self.history, &self.extra);
                if self.format == OutputFormat::StreamJson
                    && let Value::Object(map) = &mut v
                {
                    map.insert("t_ms".into(), json!(t_ms));
                }
                emit(&v);
            }
        }
    }
}

fn emit(line: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", crate::sanitize::output::json_line(line));
    let _ = out.flush();
}
