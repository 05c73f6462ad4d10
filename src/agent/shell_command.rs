//! `!command` typed in the input: the user runs a shell command in the workspace, through
//! the bash tool and the session's sandbox (the same process-group handling, limits and
//! "run outside the sandbox?" question as a model's call, without an approval: the user
//! typed it). Front ends see it as a prompt with one bash call; the model sees the command
//! and its output as a user message, which the next prompt joins (`Agent::push` merges
//! consecutive user messages, so roles still alternate, DESIGN.md §4).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::Agent;
use crate::message::Message;
use crate::protocol::{AgentEvent, Terminal, ToolOutcome, TurnSummary};
use crate::tools::{Tool, ToolContext, ToolOutput};

/// The ids of these runs' tool lines start so (front ends show their output open).
pub const ID_PREFIX: &str = "user-shell-";
/// What the tool line is called in the front ends.
const TOOL: &str = "bash";

/// Runs `command` to its end (or until `cancel`), then ends like a prompt with Done.
pub async fn run(agent: &mut Agent, command: &str, cancel: &CancellationToken) -> TurnSummary {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = format!("{ID_PREFIX}{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let events = agent.exec.events.clone();
    events.send(AgentEvent::PromptStart {
        text: format!("!{command}"),
    });
    let bash = crate::tools::bash::Bash;
    let input = json!({ "command": command });
    events.send(AgentEvent::ToolUse {
        id: id.clone(),
        name: TOOL.into(),
        input: input.clone(),
        safe: false,
        summary: bash.summary(&input),
        preview: None,
    });
    events.send(AgentEvent::ToolStart {
        id: id.clone(),
        name: TOOL.into(),
    });
    let started = std::time::Instant::now();
    let token = cancel.child_token();
    let progress_events = events.clone();
    let progress_id = id.clone();
    let ctx = ToolContext {
        workspace: agent.exec.workspace.clone(),
        cancel: token.clone(),
        progress: Arc::new(move |chunk| {
            progress_events.send(AgentEvent::ToolProgress {
                id: progress_id.clone(),
                chunk,
            })
        }),
        max_output_bytes: agent.exec.max_output_bytes,
        http: agent.exec.http.clone(),
        sandbox: super::sandbox_call::for_call(&agent.exec, &id, TOOL, &input, &token),
        call_id: id.clone(),
        jobs: Some(agent.exec.jobs.clone()),
        files: agent.exec.files.clone(),
    };
    let output = bash.run(input, ctx).await;
    let stopped = cancel.is_cancelled();
    let output = super::tool_call::cut_output(output, agent.exec.max_output_bytes);
    let outcome = match (stopped, output.is_error) {
        (true, _) => ToolOutcome::Cancelled,
        (false, true) => ToolOutcome::Error,
        (false, false) => ToolOutcome::Ok,
    };
    events.send(AgentEvent::ToolEnd {
        id,
        name: TOOL.into(),
        is_error: output.is_error,
        outcome,
        duration_ms: started.elapsed().as_millis() as u64,
        output: output.content.clone(),
    });
    agent.push(Message::user_text(for_the_model(command, &output, stopped)));
    let model = agent.settings.model.clone();
    let summary = TurnSummary {
        reason: if stopped {
            Terminal::AbortedTools
        } else {
            Terminal::Completed
        },
        turns: 0,
        usage: Default::default(),
        text: String::new(),
        transitions: Vec::new(),
        error: None,
        cost_usd: agent.context.tree_cost(),
        context_tokens: super::context::prepare::current(agent, &model).0,
    };
    events.send(AgentEvent::Done(summary.clone()));
    summary
}

/// The user message the model reads: what ran, and what it printed.
pub fn for_the_model(command: &str, output: &ToolOutput, stopped: bool) -> String {
    crate::message::markers::shell::render(command, &output.content, stopped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::markers::{Marker, parse};

    #[test]
    fn the_model_reads_the_command_and_its_output() {
        let text = for_the_model("ls", &ToolOutput::ok("a.txt\nb.txt\n"), false);
        assert!(matches!(
            parse(&text),
            Some(Marker::Shell { command, output }) if command == "!ls" && output == "a.txt\nb.txt"
        ));
    }
}
