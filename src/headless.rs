//! Print mode (`tooloop -p`): one prompt to the end of the loop, then exit (CLI.md).

use std::io::Write;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::agent::Agent;
use crate::agent::events::EventSink;
use crate::agent::protocol::{AgentEvent, Terminal, TurnSummary};
use crate::cli::OutputFormat;
use crate::config::Config;
use crate::message::Message;
use crate::provider::Provider;
use crate::trace::Tap;

/// Exit status for a finished run (CLI.md).
pub fn exit_code(reason: Terminal) -> i32 {
    match reason {
        Terminal::Completed => 0,
        Terminal::MaxTurns => 3,
        Terminal::AbortedStreaming | Terminal::AbortedTools => 130,
        Terminal::ModelError | Terminal::PromptTooLong | Terminal::MaxOutputTokens => 1,
    }
}

/// Runs `prompt` against `provider`; SIGINT aborts the turn like Ctrl+C in the TUI.
pub async fn run(
    config: &Config,
    provider: std::sync::Arc<dyn Provider>,
    prompt: &str,
    format: OutputFormat,
) -> Result<i32, String> {
    let (sink, rx) = EventSink::channel();
    let mut agent = Agent::from_config(config, provider, sink, false)?;
    if let Some(notice) = crate::session::attach(config, &mut agent)?.and_then(|s| s.notice) {
        for line in notice.lines() {
            eprintln!("tooloop: {line}");
        }
    }
    let cancel = CancellationToken::new();
    let on_sigint = cancel.clone();
    let sigint = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_sigint.cancel();
        }
    });
    let start = Instant::now();
    let (rx, trace) = Tap::maybe(config.trace.as_deref(), rx, start);
    let printer = tokio::spawn(print_events(rx, format, start));
    let summary = agent.run_prompt(prompt, &cancel).await;
    let history = std::mem::take(&mut agent.history);
    drop(agent);
    sigint.abort();
    let _ = printer.await;
    if let Some(trace) = trace {
        trace.write();
    }
    print_result(&summary, &history, format, start);
    Ok(exit_code(summary.reason))
}

async fn print_events(
    mut rx: mpsc::UnboundedReceiver<AgentEvent>,
    format: OutputFormat,
    start: Instant,
) {
    while let Some(event) = rx.recv().await {
        if format == OutputFormat::Text {
            if let AgentEvent::Error { message } = &event {
                eprintln!("tooloop: {message}");
            }
            if let AgentEvent::Notice { text } = &event {
                eprintln!("tooloop: {text}");
            }
            continue;
        }
        if format != OutputFormat::StreamJson {
            continue;
        }
        if let Some(mut line) = stream_json(&event) {
            if let Value::Object(map) = &mut line {
                map.insert("t_ms".into(), json!(start.elapsed().as_millis() as u64));
            }
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
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
