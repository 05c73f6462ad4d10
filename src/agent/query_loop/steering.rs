//! The loop's part in steering (issue 27): which tools a request offers in the current
//! approval mode, and the end of a headless plan-mode run once the plan is handed over;
//! and steering a running turn (issue 40): the user's words joining at a tool boundary,
//! once the `user_prompt_submit` hooks let them through.

use tokio_util::sync::CancellationToken;

use super::super::Agent;
use super::super::hook_calls::{self, PromptCheck};
use crate::hooks::HookEvent;
use crate::message::ContentBlock;
use crate::protocol::AgentEvent;
use crate::protocol::approval_mode::ApprovalMode;
use crate::protocol::steer::SteerFate;
use crate::provider::ToolSpec;
use crate::tools::exit_plan_mode::EXIT_PLAN_MODE;

/// The tools of the next request: `exit_plan_mode` only in plan mode; deferred MCP tools
/// only once found (appended at the end, so the list never reorders).
pub(super) fn offered_tools(agent: &Agent) -> Vec<ToolSpec> {
    let plan = agent.exec.policy.mode() == ApprovalMode::Plan;
    let registry = &agent.exec.registry;
    let mut specs =
        crate::mcp::defer::offered(registry.spec_list(), registry.deferral().map(|d| &**d));
    specs.retain(|s| plan || s.name != EXIT_PLAN_MODE);
    specs
}

/// The model of the next request: `[models] plan` while in plan mode, else the main one.
pub(super) fn request_model(agent: &Agent) -> String {
    let mode = agent.exec.policy.mode();
    agent
        .settings
        .routes
        .for_request(mode, &agent.settings.model)
        .to_string()
}

/// The plan `exit_plan_mode` handed over in the reply just closed, when the run must end
/// with it: headless, still in plan mode (nobody approved it). In the TUI the user answered
/// the plan before the tool ran, so the slot is only cleared.
pub(super) fn plan_ready(agent: &Agent) -> Option<String> {
    let plan = agent.plan.lock().ok().and_then(|mut p| p.take())?;
    let policy = &agent.exec.policy;
    (!policy.is_interactive() && policy.mode() == ApprovalMode::Plan).then_some(plan)
}

/// The texts the user steered with, if they join the user message closing this reply: only
/// after a tool step the loop goes on from (the message holds the step's results and the
/// next request follows), never when the turn ends there (a final answer, an abort, the
/// last allowed turn): then they stay in the inbox for the agent task.
pub(super) fn joins_now(
    agent: &Agent,
    next: &super::decide::Step,
    message: &[ContentBlock],
    turn: u32,
    cancel: &CancellationToken,
) -> Vec<String> {
    use crate::protocol::Transition;
    let goes_on = *next == super::decide::Step::Continue(Transition::NextTurn)
        && turn < agent.settings.max_turns
        && !cancel.is_cancelled();
    let after_tools = message
        .iter()
        .any(|b| matches!(b, ContentBlock::ToolResult { .. }));
    if goes_on && after_tools {
        agent.steer.take()
    } else {
        Vec::new()
    }
}

/// Steered words pass the `user_prompt_submit` hooks as a typed prompt does, so a guard
/// cannot be walked around by typing while a turn runs: an allowed text joins, its hooks'
/// context after it; a blocked one goes back to the user with the hook's reason. Ctrl+C
/// while the hooks run puts every text not refused back in the inbox, which the abort then
/// hands back: nothing joins a message no request follows.
pub(super) async fn screened(
    agent: &Agent,
    texts: Vec<String>,
    cancel: &CancellationToken,
) -> (Vec<String>, Vec<ContentBlock>) {
    let hooks = &agent.exec.hooks;
    if texts.is_empty() || !hooks.wants(HookEvent::UserPromptSubmit, None) {
        let blocks = texts
            .iter()
            .map(|t| ContentBlock::text(t.as_str()))
            .collect();
        return (texts, blocks);
    }
    let events = &agent.exec.events;
    let (mut joined, mut blocks) = (Vec::new(), Vec::new());
    let mut waiting = texts.into_iter();
    while let Some(text) = waiting.next() {
        let check = hook_calls::user_prompt_submit(hooks, events, &text, cancel).await;
        if cancel.is_cancelled() {
            let back = joined.into_iter().chain([text]).chain(waiting).collect();
            agent.steer.put_back(back);
            return (Vec::new(), Vec::new());
        }
        match check {
            PromptCheck::Blocked(reason) => {
                let notice = format!(
                    "not sent, handed back to you: a user_prompt_submit hook blocked a message \
                     sent during the turn: {reason}"
                );
                events.send(AgentEvent::Notice { text: notice });
                let fate = SteerFate::Returned;
                events.send(AgentEvent::Steer { text, fate });
            }
            PromptCheck::Send(context) => {
                blocks.push(ContentBlock::text(text.as_str()));
                blocks.extend(
                    context.map(|c| ContentBlock::text(format!("[user_prompt_submit hook]\n{c}"))),
                );
                joined.push(text);
            }
        }
    }
    (joined, blocks)
}

/// The steered texts are in history now: front ends hear where they joined, and the state
/// block a compaction writes counts them among the user's requests.
pub(super) fn joined(agent: &mut Agent, texts: Vec<String>) {
    for text in texts {
        agent.facts.record_request(&text);
        agent.exec.events.send(AgentEvent::Steer {
            text,
            fate: SteerFate::Joined,
        });
    }
}
