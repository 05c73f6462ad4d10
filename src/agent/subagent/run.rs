//! One `task` call: wait for a slot, build the child agent, run its loop to the end under the
//! call's cancellation token, and turn how it ended into the call's result.

use std::sync::Arc;

use serde_json::Value;
use tokio::time::Instant;

use super::definitions::AgentDefinition;
use crate::agent::context::ContextState;
use crate::agent::context::ledger::Ledger;
use crate::agent::tool_call::cut_output;
use crate::agent::{Agent, LoopSettings};
use crate::message::markers::INTERRUPTED;
use crate::message::{ContentBlock, Role};
use crate::protocol::subagent::{AgentInfo, AgentReport};
use crate::protocol::{AgentEvent, Terminal, TurnSummary};
use crate::provider::{SystemPart, SystemPrompt};
use crate::tools::{ToolContext, ToolOutput};

/// Room kept for the figures line (with its worktree) when the child's text is cut to the
/// output limit.
const FIGURES_ROOM: usize = 400;

/// The agent a `task` tool belongs to: where its children start from.
pub(super) struct Owner {
    pub hub: Arc<super::Subagents>,
    /// The depth of the children it starts (1: children of the top-level agent).
    pub depth: u32,
    /// Its node in the tree's accounts.
    pub ledger: Arc<Ledger>,
    /// Its event sink (children's start and end go out through it).
    pub events: crate::protocol::events::EventSink,
    /// `[agents] max_parallel` slots for its children.
    pub slots: Arc<tokio::sync::Semaphore>,
}

pub(super) async fn run_task(tool: &Owner, input: Value, ctx: ToolContext) -> ToolOutput {
    let hub = &tool.hub;
    let field = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or("");
    let (description, prompt) = (field("description"), field("prompt"));
    let name = input
        .get("agent")
        .and_then(Value::as_str)
        .unwrap_or("general");
    let Some(def) = hub.definition(name) else {
        let names: Vec<&str> = hub.definitions.iter().map(|d| d.name.as_str()).collect();
        return ToolOutput::error(format!(
            "Error: no agent named {name:?}. Available agents: {}",
            names.join(", ")
        ));
    };
    if prompt.trim().is_empty() {
        return ToolOutput::error("Error: the task's prompt is empty; say what the agent must do");
    }
    // At most max_parallel children of one agent at once; the others wait here, visibly.
    let _slot = match tool.slots.clone().try_acquire_owned() {
        Ok(permit) => permit,
        Err(_) => {
            (ctx.progress)(format!(
                "queued: {} subagents are running (at most {} at once)",
                hub.limits.max_parallel, hub.limits.max_parallel
            ));
            tokio::select! {
                biased;
                _ = ctx.cancel.cancelled() => return ToolOutput::error(INTERRUPTED),
                permit = tool.slots.clone().acquire_owned() => match permit {
                    Ok(p) => p,
                    Err(_) => return ToolOutput::error(INTERRUPTED),
                },
            }
        }
    };
    let agent_id = hub.next_id();
    let isolated =
        def.worktree || input.get("isolation").and_then(Value::as_str) == Some("worktree");
    let worktree = if isolated {
        match super::worktree::create(hub, &ctx, &agent_id).await {
            Ok(wt) => Some(wt),
            Err(e) => return ToolOutput::error(format!("Error: isolation worktree: {e}")),
        }
    } else {
        None
    };
    let ledger = Ledger::child(&tool.ledger);
    let mut child = match child_agent(tool, def, &agent_id, &ctx, &ledger, worktree.as_ref()) {
        Ok(child) => child,
        Err(e) => {
            // Nothing ran in it: finishing removes it again.
            super::worktree::finish(worktree, String::new()).await;
            return ToolOutput::error(format!("Error: isolation worktree: {e}"));
        }
    };
    let info = AgentInfo {
        agent_id: agent_id.clone(),
        parent_tool_use_id: ctx.call_id.clone(),
        parent_agent_id: tool.events.agent_id().map(str::to_string),
        agent: def.name.clone(),
        description: description.to_string(),
        model: child.settings.model.clone(),
    };
    child.observer = hub.recorder(&info);
    tool.events.send(AgentEvent::AgentStart(info));
    let hooks = child.exec.hooks.clone();
    crate::agent::hook_calls::subagent(
        &hooks,
        &tool.events,
        crate::hooks::HookEvent::SubagentStart,
        &def.name,
        &agent_id,
        &ctx.cancel,
    )
    .await;
    let started = Instant::now();
    let summary = child.run_prompt(prompt, &ctx.cancel).await;
    crate::agent::hook_calls::subagent(
        &hooks,
        &tool.events,
        crate::hooks::HookEvent::SubagentStop,
        &def.name,
        &agent_id,
        &ctx.cancel,
    )
    .await;
    // Its changes committed on its branch (kept), or worktree and branch removed.
    let message = format!("tooloop: agent {agent_id} ({}): {description}", def.name);
    let worktree = super::worktree::finish(worktree, message).await;
    let elapsed = started.elapsed();
    let tools = tool_calls(&child);
    let report = AgentReport {
        agent_id,
        parent_tool_use_id: ctx.call_id.clone(),
        agent: def.name.clone(),
        reason: summary.reason,
        turns: summary.turns,
        tools,
        usage: summary.usage,
        cost_usd: ledger.tree().cost_usd(),
        duration_ms: elapsed.as_millis() as u64,
    };
    tool.events.send(AgentEvent::AgentEnd(report.clone()));
    result(
        &child,
        &summary,
        &report,
        worktree.as_ref().map(|o| o.summary()),
        ctx.max_output_bytes,
    )
}

/// The child: the parent's provider and policy, its own history, system prompt, context
/// state (a node under the parent's ledger), hooks and tools. It works where its parent
/// works, or in its own worktree.
fn child_agent(
    tool: &Owner,
    def: &AgentDefinition,
    agent_id: &str,
    ctx: &ToolContext,
    ledger: &Arc<Ledger>,
    worktree: Option<&crate::worktree::Worktree>,
) -> std::io::Result<Agent> {
    let hub = &tool.hub;
    let events = hub.exec.events.tagged(agent_id, &ctx.call_id);
    let registry = hub.tools_for(def, tool.depth, ledger, &events);
    let mut exec = hub.exec.clone();
    exec.registry = Arc::new(registry);
    exec.events = events;
    exec.hooks = Arc::new(hub.exec.hooks.for_subagent());
    let mut system = system_prompt(def, &hub.settings.system);
    let root = match worktree {
        Some(wt) => wt.workspace.clone(),
        None => ctx.workspace.root().to_path_buf(),
    };
    if root != hub.exec.workspace.root() {
        super::worktree::reroot(&mut exec, &mut system, &root, ctx, worktree)?;
    }
    let settings = LoopSettings {
        model: def.model.clone().unwrap_or_else(|| {
            // The built-in explore agent is a small job (`[models] small`).
            let main = &hub.settings.model;
            match def.source {
                None if def.name == "explore" => hub.settings.routes.small(main).to_string(),
                _ => main.clone(),
            }
        }),
        system,
        max_turns: def.max_turns.unwrap_or(hub.limits.max_turns),
        ..hub.settings.clone()
    };
    let mut child = Agent::new(hub.provider.clone(), exec, settings);
    child.context = ContextState::new(hub.context.clone());
    child.context.ledger = ledger.clone();
    Ok(child)
}

/// The definition's prompt, then the parent's environment and project instructions (the
/// child works in the same workspace under the same rules).
fn system_prompt(def: &AgentDefinition, parent: &SystemPrompt) -> SystemPrompt {
    let mut parts = vec![SystemPart {
        name: "base",
        text: def.prompt.clone(),
    }];
    parts.extend(
        parent
            .parts()
            .iter()
            .filter(|p| p.name == "environment" || p.name == "instructions")
            .cloned(),
    );
    SystemPrompt::new(parts)
}

fn tool_calls(child: &Agent) -> u32 {
    child
        .history
        .iter()
        .flat_map(|m| &m.content)
        .filter(|b| matches!(b, ContentBlock::ToolUse { .. }))
        .count() as u32
}

/// The call's result: the child's final text, cut like any tool output, then the figures
/// line. A child that did not complete is an error saying why, with what text it had.
fn result(
    child: &Agent,
    summary: &TurnSummary,
    r: &AgentReport,
    worktree: Option<String>,
    limit: usize,
) -> ToolOutput {
    let text = if summary.reason == Terminal::Completed {
        summary.text.clone()
    } else {
        last_text(child)
    };
    let tokens = r.usage.total_input() + r.usage.output_tokens;
    let figures = format!(
        "(agent {} · {} turns · {} tools · {} tokens · {:.1}s{})",
        r.agent,
        r.turns,
        r.tools,
        tokens,
        r.duration_ms as f64 / 1000.0,
        worktree.map(|w| format!(" · {w}")).unwrap_or_default()
    );
    let text = cut_output(ToolOutput::ok(text), limit.saturating_sub(FIGURES_ROOM)).content;
    let body = |head: String| {
        let mut out = head;
        if !text.trim().is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(text.trim_end());
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&figures);
        out
    };
    let why = summary.error.as_deref().unwrap_or("");
    match summary.reason {
        Terminal::Completed if text.trim().is_empty() => {
            ToolOutput::ok(body("(the agent ended without a final message)".into()))
        }
        Terminal::Completed => ToolOutput::ok(body(String::new())),
        Terminal::AbortedStreaming | Terminal::AbortedTools => ToolOutput::error(body(format!(
            "{INTERRUPTED}: agent {} was stopped before it finished; its text so far:",
            r.agent
        ))),
        Terminal::MaxTurns => ToolOutput::error(body(format!(
            "agent {} reached its limit of {} turns before finishing; its text so far:",
            r.agent, r.turns
        ))),
        reason => ToolOutput::error(body(format!(
            "agent {} failed ({}){}{}",
            r.agent,
            reason.as_str(),
            if why.is_empty() { "" } else { ": " },
            why
        ))),
    }
}

/// The child's last non-empty assistant text (a stopped child's partial answer).
fn last_text(child: &Agent) -> String {
    child
        .history
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.text())
        .find(|t| !t.trim().is_empty())
        .unwrap_or_default()
}
