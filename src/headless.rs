//! Print mode (`tooloop -p`): one prompt to the end of the loop, then exit (CLI.md).

use std::io::Write;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::agent::protocol::{AgentCommand, AgentEvent, Terminal, TurnSummary};
use crate::cli::OutputFormat;
use crate::config::Config;
use crate::engine::{self, EngineError, FrontEnd};
use crate::message::Message;

/// How long the agent task may take to stop after the result (it is idle by then).
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Why a headless run could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// The engine could not start (provider, workspace, session): a usage error.
    #[error(transparent)]
    Start(#[from] EngineError),
    /// The agent task ended without finishing the prompt.
    #[error("the agent stopped before the prompt's loop ended")]
    AgentGone,
}

/// Exit status for a finished run (CLI.md).
pub fn exit_code(reason: Terminal) -> i32 {
    match reason {
        Terminal::Completed => 0,
        Terminal::MaxTurns => 3,
        Terminal::AbortedStreaming | Terminal::AbortedTools => 130,
        Terminal::ModelError | Terminal::PromptTooLong | Terminal::MaxOutputTokens => 1,
    }
}

/// Runs `prompt` on the agent task [`engine::start`] builds, like one prompt in the TUI;
/// SIGINT aborts the turn like Ctrl+C there.
pub async fn run(
    config: &Config,
    prompt: &str,
    format: OutputFormat,
) -> Result<i32, HeadlessError> {
    let engine::Engine {
        mut events,
        control,
        session,
    } = engine::start(config, FrontEnd::Headless)?;
    // t_ms counts from here: the agent is ready, the prompt goes in next.
    let start = Instant::now();
    if let Some(notice) = session.and_then(|s| s.notice) {
        for line in notice.lines() {
            eprintln!("tooloop: {line}");
        }
    }
    control.send(AgentCommand::Submit {
        text: prompt.to_string(),
    });
    let abort = control.commands().clone();
    let sigint = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = abort.send(AgentCommand::Abort);
        }
    });
    let mut summary = None;
    while let Some(event) = events.recv().await {
        if let AgentEvent::Done(s) = &event {
            summary = Some(s.clone());
        }
        print_event(&event, format, start);
        if summary.is_some() {
            break;
        }
    }
    sigint.abort();
    let agent = control.stop(STOP_GRACE).await;
    let summary = summary.ok_or(HeadlessError::AgentGone)?;
    let history = agent.map(|a| a.history).unwrap_or_default();
    print_result(&summary, &history, format, start);
    Ok(exit_code(summary.reason))
}

fn print_event(event: &AgentEvent, format: OutputFormat, start: Instant) {
    match format {
        OutputFormat::Text => match event {
            AgentEvent::Error { message } => eprintln!("tooloop: {message}"),
            AgentEvent::Notice { text } => eprintln!("tooloop: {text}"),
            _ => {}
        },
        OutputFormat::Json => {}
        OutputFormat::StreamJson => {
            if let Some(mut line) = stream_json(event) {
                if let Value::Object(map) = &mut line {
                    map.insert("t_ms".into(), json!(start.elapsed().as_millis() as u64));
                }
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }
        }
    }
}

/// The stream-json line for an event, if it has one.
pub fn stream_json(event: &AgentEvent) -> Option<Value> {
    Some(match event {
        AgentEvent::TurnStart { turn } => json!({"type": "turn_start", "turn": turn}),
        AgentEvent::RequestStart {
            turn,
            attempt,
            model,
            ..
        } => {
            json!({"type": "request_start", "turn": turn, "attempt": attempt, "model": model})
        }
        AgentEvent::Retry {
            attempt,
            delay_ms,
            error,
        } => json!({"type": "retry", "attempt": attempt, "delay_ms": delay_ms, "error": error}),
        AgentEvent::TextDelta { text } => json!({"type": "text_delta", "text": text}),
        AgentEvent::ThinkingDelta { text } => json!({"type": "thinking_delta", "text": text}),
        AgentEvent::ToolUse {
            id,
            name,
            input,
            safe,
            summary,
            ..
        } => json!({
            "type": "tool_use", "id": id, "name": name, "input": input, "safe": safe,
            "summary": summary,
        }),
        AgentEvent::ToolStart { id, name } => json!({"type": "tool_start", "id": id, "name": name}),
        AgentEvent::ToolProgress { id, chunk } => {
            json!({"type": "tool_progress", "id": id, "chunk": chunk})
        }
        AgentEvent::ToolEnd {
            id,
            name,
            is_error,
            outcome,
            duration_ms,
            output,
        } => json!({
            "type": "tool_end", "id": id, "name": name, "is_error": is_error,
            "outcome": outcome.as_str(), "duration_ms": duration_ms,
            "output": shorten(output, 2000),
        }),
        AgentEvent::Permission { id, name, allowed } => json!({
            "type": "permission", "id": id, "name": name,
            "decision": if *allowed { "allow" } else { "deny" },
        }),
        AgentEvent::StreamEnd { turn, stop_reason } => {
            json!({"type": "stream_end", "turn": turn, "stop_reason": stop_reason})
        }
        AgentEvent::Message { message, .. } => json!({"type": "message", "message": message}),
        AgentEvent::Notice { text } => json!({"type": "notice", "text": text}),
        AgentEvent::Discarded { reason } => json!({"type": "discarded", "reason": reason}),
        AgentEvent::Error { message } => json!({"type": "error", "message": message}),
        _ => return None,
    })
}

fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let end = crate::text::floor_boundary(s, max);
    format!("{}… [{} more bytes]", &s[..end], s.len() - end)
}

/// The `result` object: always the last line.
pub fn result_json(summary: &TurnSummary, history: &[Message]) -> Value {
    let mut v = json!({
        "type": "result",
        "reason": summary.reason,
        "turns": summary.turns,
        "usage": summary.usage,
        "messages": history,
        "text": summary.text,
        "transitions": summary.transitions,
    });
    if let (Some(err), Value::Object(map)) = (&summary.error, &mut v) {
        map.insert("error".into(), json!(err));
    }
    v
}

fn print_result(summary: &TurnSummary, history: &[Message], format: OutputFormat, start: Instant) {
    let mut out = std::io::stdout().lock();
    match format {
        OutputFormat::Text => {
            let _ = writeln!(out, "{}", summary.text);
            if let Some(err) = &summary.error {
                eprintln!("tooloop: {} ({err})", summary.reason.as_str());
            } else if summary.reason != Terminal::Completed {
                eprintln!("tooloop: stopped: {}", summary.reason.as_str());
            }
        }
        OutputFormat::Json | OutputFormat::StreamJson => {
            let mut v = result_json(summary, history);
            if format == OutputFormat::StreamJson
                && let Value::Object(map) = &mut v
            {
                map.insert("t_ms".into(), json!(start.elapsed().as_millis() as u64));
            }
            let _ = writeln!(out, "{v}");
        }
    }
    let _ = out.flush();
}
