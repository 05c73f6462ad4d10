//! The loop's steps that belong to the user's extensions (DESIGN.md §11): MCP tools join
//! before the first request, the prompt passes `user_prompt_submit`, and the turn ends only
//! when the `stop` hooks let it.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::super::Agent;
use super::super::hook_calls::{self, PromptCheck, StopCheck};
use super::Flow;
use crate::hooks::MAX_STOP_CONTINUATIONS;
use crate::message::{ContentBlock, Message};
use crate::protocol::{AgentEvent, Terminal, Transition};

/// Waits for MCP servers still starting (each bounded by its startup timeout; Ctrl+C stops
/// the wait) and adds the tools of those that started, once, before the first request that
/// follows. Later requests see the same tool list, so the prompt cache keeps its prefix.
pub(super) async fn join_mcp_tools(agent: &mut Agent, cancel: &CancellationToken) {
    let Some(mcp) = agent.mcp.clone() else { return };
    if agent.mcp_joined {
        return;
    }
    if !wait_for_servers(agent, &mcp, cancel).await {
        return;
    }
    let tools = mcp.tools();
    let (mut registry, errors) = agent.exec.registry.with_tools(tools.clone());
    let errors = errors
        .into_iter()
        .map(|e| e.to_string())
        .chain(mcp.take_left_out());
    for e in errors {
        tracing::warn!("MCP tool left out: {e}");
        agent.exec.events.send(AgentEvent::Notice {
            text: format!("MCP tool left out: {e}"),
        });
    }
    let window = agent
        .context
        .limits(&agent.settings.model, agent.settings.max_tokens)
        .window;
    // Only tools that joined can be deferred (one left out above is not there to find).
    let joined: Vec<_> = tools
        .into_iter()
        .filter(|t| {
            registry
                .get(t.name())
                .is_some_and(|r| Arc::ptr_eq(&r.tool, t))
        })
        .collect();
    if let Some(deferral) = mcp.deferral(&joined, window) {
        // Anthropic loads found tools itself (tool_reference), so `tools` never changes.
        let deferral = Arc::new(if agent.provider.loads_deferred_tools() {
            deferral.by_reference()
        } else {
            deferral
        });
        let search = crate::mcp::tool_search::ToolSearch::new(deferral.clone());
        let (with_search, error) = registry.with_builtin(Arc::new(search));
        match error {
            // A tool of that name is there already (an MCP server's): deferring would leave
            // the model no way to find the rest.
            Some(e) => agent.exec.events.send(AgentEvent::Notice {
                text: format!("MCP tools are not deferred: {e}"),
            }),
            None => registry = with_search.with_deferral(deferral),
        }
    }
    agent.exec.registry = Arc::new(registry);
    agent.mcp_joined = true;
}

/// Waits for the MCP servers still starting (each bounded by its startup timeout), saying
/// so; false when Ctrl+C stopped the wait.
pub(super) async fn wait_for_servers(
    agent: &Agent,
    mcp: &crate::mcp::McpManager,
    cancel: &CancellationToken,
) -> bool {
    let pending = mcp.pending();
    if pending.is_empty() {
        return true;
    }
    let many = if pending.len() == 1 { "" } else { "s" };
    agent.exec.events.send(AgentEvent::Notice {
        text: format!("waiting for MCP server{many} {}", pending.join(", ")),
    });
    tokio::select! {
        biased;
        _ = cancel.cancelled() => false,
        _ = mcp.wait_started() => true,
    }
}

/// Before every request: a server that sent `notifications/tools/list_changed` has its tools
/// listed again, and the request offers the new list (the one time the tool list changes
/// mid-session without a compaction: the server changed it).
pub(super) async fn refresh_mcp_tools(agent: &mut Agent) {
    let Some(mcp) = agent.mcp.clone() else { return };
    if !agent.mcp_joined {
        return;
    }
    // rmcp runs notification handlers as tasks of their own: let one that arrived with the
    // last tool result set its flag first.
    tokio::task::yield_now().await;
    for (server, tools) in mcp.refresh().await {
        let prefix = format!("mcp__{server}__");
        let count = tools.len();
        let without = agent.exec.registry.subset(|n| !n.starts_with(&prefix));
        let (mut next, errors) = without.with_tools(tools);
        if let Some(d) = agent.exec.registry.deferral() {
            next = next.with_deferral(d.clone());
        }
        agent.exec.registry = Arc::new(next);
        let errors = errors
            .into_iter()
            .map(|e| e.to_string())
            .chain(mcp.take_left_out());
        for e in errors {
            agent.exec.events.send(AgentEvent::Notice {
                text: format!("MCP tool left out: {e}"),
            });
        }
        agent.exec.events.send(AgentEvent::Notice {
            text: format!("MCP server {server} changed its tools: {count} now"),
        });
    }
}

/// Before every request: a SKILL.md that changed, appeared or went since the last one is
/// used from this request on (the `skill` tool is rebuilt with the new listing).
pub(super) fn refresh_skills(agent: &mut Agent) {
    let Some(state) = agent.skills.as_mut() else {
        return;
    };
    let Some(notices) = state.refresh() else {
        return;
    };
    for text in notices {
        agent.exec.events.send(AgentEvent::Notice { text });
    }
    let tool = state.tool();
    let without = agent
        .exec
        .registry
        .subset(|n| n != crate::skills::tool::NAME);
    let next = match tool {
        Some(t) => without.with_builtin(t).0,
        None => without,
    };
    agent.exec.registry = Arc::new(next);
}

/// Before every request: a changed hooks or permissions section of Claude Code's settings
/// files is said (once), not applied (`/hooks` shows it for the user to accept).
pub(super) fn check_settings(agent: &mut Agent) {
    let Some(watch) = agent.settings_watch.as_ref() else {
        return;
    };
    let told = watch.lock().unwrap_or_else(|p| p.into_inner()).check();
    for text in told {
        agent.exec.events.send(AgentEvent::Notice { text });
    }
}

/// `user_prompt_submit`: the message the prompt becomes, or why it is not sent.
pub(super) async fn prompt_message(
    agent: &Agent,
    prompt: &str,
    cancel: &CancellationToken,
) -> Result<Message, String> {
    let hooks = &agent.exec.hooks;
    let mut blocks = vec![ContentBlock::text(prompt)];
    // SessionStart: before the session's first prompt (or the first after /new); what its
    // hooks print reaches the model with that prompt.
    if let Some(source) = hooks.take_session_start(!agent.history.is_empty())
        && let Some(context) =
            hook_calls::session_start(hooks, &agent.exec.events, source, cancel).await
    {
        blocks.push(ContentBlock::text(format!(
            "[session_start hook]\n{context}"
        )));
    }
    if hooks.wants(crate::hooks::HookEvent::UserPromptSubmit, None) {
        match hook_calls::user_prompt_submit(hooks, &agent.exec.events, prompt, cancel).await {
            PromptCheck::Send(None) => {}
            PromptCheck::Send(Some(context)) => blocks.push(ContentBlock::text(format!(
                "[user_prompt_submit hook]\n{context}"
            ))),
            PromptCheck::Blocked(reason) => {
                return Err(format!(
                    "the prompt was not sent: a user_prompt_submit hook blocked it: {reason}"
                ));
            }
        }
    }
    // After the hooks let the prompt through: only then are the skill's tools granted.
    if let Some(block) = super::skill_command::expand(agent, prompt) {
        blocks.insert(1, block);
    }
    Ok(if blocks.len() == 1 {
        Message::user_text(prompt)
    } else {
        Message::user(blocks)
    })
}

/// The model stopped asking for tools: the `stop` hooks may send it back to work, at most
/// [`MAX_STOP_CONTINUATIONS`] times in a row.
pub(super) async fn on_stop(
    agent: &mut Agent,
    continuations: &mut u32,
    message: Option<String>,
    cancel: &CancellationToken,
) -> Flow {
    let hooks = agent.exec.hooks.clone();
    if !hooks.wants(crate::hooks::HookEvent::Stop, None) {
        return Flow::End(Terminal::Completed, message);
    }
    let events = agent.exec.events.clone();
    match hook_calls::stop(&hooks, &events, *continuations > 0, cancel).await {
        StopCheck::End => Flow::End(Terminal::Completed, message),
        StopCheck::Stop(reason) => Flow::End(Terminal::HookStopped, Some(reason)),
        StopCheck::Continue(_) if *continuations >= MAX_STOP_CONTINUATIONS => {
            let text = format!(
                "a stop hook blocked the end of the turn {} times in a row; stopping here",
                *continuations + 1
            );
            events.send(AgentEvent::Notice { text: text.clone() });
            Flow::End(Terminal::StopHookPrevented, Some(text))
        }
        StopCheck::Continue(reason) => {
            *continuations += 1;
            agent.push(Message::user_text(format!("Stop hook feedback:\n{reason}")));
            Flow::Continue(Transition::StopHook)
        }
    }
}

/// A `stop` answered by any hook during this step ends the turn.
pub(super) fn stopped_by_hook(agent: &Agent) -> Option<Flow> {
    agent
        .exec
        .hooks
        .take_stop()
        .map(|reason| Flow::End(Terminal::HookStopped, Some(reason)))
}
