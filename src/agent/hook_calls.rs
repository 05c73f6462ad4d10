//! Where the loop calls the user's hooks (DESIGN.md §11): what each event is told on stdin,
//! the events the front ends see, and how a decision changes the call, prompt or turn.
//!
//! The hooks themselves (config, process, decision) live in `crate::hooks`; the run's set
//! and its state in [`super::hook_env`]; this file only connects them to the loop.

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use super::hook_env::HookEnv;
use crate::hooks::{HookDecision, HookEvent};
use crate::message::markers::tool_results::not_run;
use crate::protocol::events::EventSink;
use crate::tools::ToolOutput;

/// What `pre_tool_use` decided about one call.
pub enum PreTool {
    /// Ask the policy as usual.
    Ask,
    /// The hook said `allow`: it answers the approval question (the mode's refusals, such
    /// as read-only, still stand).
    Allowed,
    /// Not run: this is the call's is_error result.
    Refused(ToolOutput),
}

/// What the hooks decided, and the input a hook's `updatedInput` gives the call instead
/// (not yet checked against the tool's input type).
pub async fn pre_tool_use(
    hooks: &HookEnv,
    events: &EventSink,
    name: &str,
    input: &Value,
    cancel: &CancellationToken,
) -> (PreTool, Option<Value>) {
    if !hooks.wants(HookEvent::PreToolUse, Some(name)) {
        return (PreTool::Ask, None);
    }
    let mut fields = Map::new();
    fields.insert("tool_name".into(), name.into());
    fields.insert("tool_input".into(), input.clone());
    let out = hooks
        .run(events, HookEvent::PreToolUse, Some(name), fields, cancel)
        .await;
    let reason = out.reason().unwrap_or("no reason given");
    let decided = match out.decision() {
        HookDecision::Deny => PreTool::Refused(ToolOutput::error(not_run(
            name,
            &format!("a pre_tool_use hook blocked it: {reason}"),
        ))),
        HookDecision::Stop => PreTool::Refused(ToolOutput::error(not_run(
            name,
            &format!("a pre_tool_use hook stopped the turn: {reason}"),
        ))),
        HookDecision::Allow => PreTool::Allowed,
        HookDecision::None => PreTool::Ask,
    };
    (decided, out.updated_input)
}

/// `session_start` (SessionStart): told the `source` (startup, resume, clear, compact); what
/// its hooks print becomes context for the model.
pub async fn session_start(
    hooks: &HookEnv,
    events: &EventSink,
    source: &str,
    cancel: &CancellationToken,
) -> Option<String> {
    if !hooks.wants(HookEvent::SessionStart, Some(source)) {
        return None;
    }
    let mut fields = Map::new();
    fields.insert("source".into(), source.into());
    hooks
        .run(
            events,
            HookEvent::SessionStart,
            Some(source),
            fields,
            cancel,
        )
        .await
        .context_text()
}

/// `session_end` (SessionEnd): told the `reason`; nothing it says changes anything.
pub async fn session_end(hooks: &HookEnv, events: &EventSink, reason: &str) {
    if !hooks.wants(HookEvent::SessionEnd, Some(reason)) {
        return;
    }
    let mut fields = Map::new();
    fields.insert("reason".into(), reason.into());
    hooks
        .run(
            events,
            HookEvent::SessionEnd,
            Some(reason),
            fields,
            &CancellationToken::new(),
        )
        .await;
}

/// What `permission_request` answered for a question about to be asked.
pub enum PermissionAnswer {
    /// Nobody answered: ask the person.
    Ask,
    Allow,
    Deny(String),
}

/// `permission_request` (PermissionRequest): before the person is asked, a hook may answer
/// allow or deny as they would. Only for calls that would be asked (never beyond a mode's
/// or a deny rule's refusal).
pub async fn permission_request(
    hooks: &HookEnv,
    events: &EventSink,
    name: &str,
    input: &Value,
    cancel: &CancellationToken,
) -> PermissionAnswer {
    if !hooks.wants(HookEvent::PermissionRequest, Some(name)) {
        return PermissionAnswer::Ask;
    }
    let mut fields = Map::new();
    fields.insert("tool_name".into(), name.into());
    fields.insert("tool_input".into(), input.clone());
    let out = hooks
        .run(
            events,
            HookEvent::PermissionRequest,
            Some(name),
            fields,
            cancel,
        )
        .await;
    match out.decision() {
        HookDecision::Allow => PermissionAnswer::Allow,
        HookDecision::Deny | HookDecision::Stop => PermissionAnswer::Deny(not_run(
            name,
            &format!(
                "a permission_request hook refused it: {}",
                out.reason().unwrap_or("no reason given")
            ),
        )),
        HookDecision::None => PermissionAnswer::Ask,
    }
}

/// `post_compact` (PostCompact): told the trigger once the history is compacted; it
/// informs. The next prompt tells session_start with `compact`.
pub async fn post_compact(hooks: &HookEnv, events: &EventSink, trigger: &str) {
    hooks.compacted();
    if !hooks.wants(HookEvent::PostCompact, Some(trigger)) {
        return;
    }
    let mut fields = Map::new();
    fields.insert("trigger".into(), trigger.into());
    hooks
        .run(
            events,
            HookEvent::PostCompact,
            Some(trigger),
            fields,
            &CancellationToken::new(),
        )
        .await;
}

/// `subagent_start` / `subagent_stop` (SubagentStart / SubagentStop): told the agent's
/// type and id; their matcher is on the agent type. They inform; they decide nothing.
pub async fn subagent(
    hooks: &HookEnv,
    events: &EventSink,
    event: HookEvent,
    agent_type: &str,
    agent_id: &str,
    cancel: &CancellationToken,
) {
    if !hooks.wants(event, Some(agent_type)) {
        return;
    }
    let mut fields = Map::new();
    fields.insert("agent_type".into(), agent_type.into());
    fields.insert("agent_id".into(), agent_id.into());
    if event == HookEvent::SubagentStop {
        fields.insert("stop_hook_active".into(), false.into());
    }
    hooks
        .run(events, event, Some(agent_type), fields, cancel)
        .await;
}

/// `post_tool_use`: its context is appended to the result the model sees; a deny turns the
/// result into an error carrying the reason.
pub async fn post_tool_use(
    hooks: &HookEnv,
    events: &EventSink,
    name: &str,
    input: Option<Value>,
    mut output: ToolOutput,
    cancel: &CancellationToken,
) -> ToolOutput {
    let Some(input) = input else { return output };
    if output.is_error && hooks.wants(HookEvent::PostToolUseFailure, Some(name)) {
        let mut fields = Map::new();
        fields.insert("tool_name".into(), name.into());
        fields.insert("tool_input".into(), input.clone());
        fields.insert("error".into(), output.content.clone().into());
        let out = hooks
            .run(
                events,
                HookEvent::PostToolUseFailure,
                Some(name),
                fields,
                cancel,
            )
            .await;
        if let Some(context) = out.context_text() {
            output
                .content
                .push_str(&format!("\n[post_tool_use_failure hook]\n{context}"));
        }
    }
    let mut fields = Map::new();
    fields.insert("tool_name".into(), name.into());
    fields.insert("tool_input".into(), input);
    fields.insert("tool_output".into(), output.content.clone().into());
    fields.insert("is_error".into(), output.is_error.into());
    let out = hooks
        .run(events, HookEvent::PostToolUse, Some(name), fields, cancel)
        .await;
    if matches!(out.decision(), HookDecision::Deny | HookDecision::Stop) {
        output.is_error = true;
        output.content.push_str(&format!(
            "\n[post_tool_use hook: {}]",
            out.reason().unwrap_or("blocked")
        ));
    }
    if let Some(context) = out.context_text() {
        output
            .content
            .push_str(&format!("\n[post_tool_use hook]\n{context}"));
    }
    output
}

/// What `user_prompt_submit` decided.
pub enum PromptCheck {
    /// Send it, with the hooks' context (if any) as a second text block.
    Send(Option<String>),
    /// Not sent; the hook's reason (the caller says what was not sent).
    Blocked(String),
}

pub async fn user_prompt_submit(
    hooks: &HookEnv,
    events: &EventSink,
    prompt: &str,
    cancel: &CancellationToken,
) -> PromptCheck {
    let mut fields = Map::new();
    fields.insert("prompt".into(), prompt.into());
    let out = hooks
        .run(events, HookEvent::UserPromptSubmit, None, fields, cancel)
        .await;
    match out.decision() {
        HookDecision::Deny | HookDecision::Stop => {
            PromptCheck::Blocked(out.reason().unwrap_or("no reason given").to_string())
        }
        _ => PromptCheck::Send(out.context_text()),
    }
}

/// What `stop` decided when the model stopped asking for tools.
pub enum StopCheck {
    /// Let the turn end.
    End,
    /// Send the model back to work with this reason.
    Continue(String),
    /// `"decision": "stop"`.
    Stop(String),
}

pub async fn stop(
    hooks: &HookEnv,
    events: &EventSink,
    active: bool,
    cancel: &CancellationToken,
) -> StopCheck {
    let mut fields = Map::new();
    fields.insert("stop_hook_active".into(), active.into());
    let out = hooks
        .run(events, HookEvent::Stop, None, fields, cancel)
        .await;
    match out.decision() {
        HookDecision::Deny => StopCheck::Continue(
            out.reason()
                .unwrap_or("a stop hook asked you to go on")
                .to_string(),
        ),
        HookDecision::Stop => StopCheck::Stop(hooks.take_stop().unwrap_or_default()),
        _ => StopCheck::End,
    }
}

/// What `pre_compact` decided.
pub enum PreCompact {
    /// Compact, with the hooks' context (if any) added to the summary request.
    Go(Option<String>),
    /// Do not (honoured for a manual compaction only); the reason.
    Deny(String),
}

/// `pre_compact`: told the `trigger` (auto, reactive, manual) and the context's size.
pub async fn pre_compact(
    hooks: &HookEnv,
    events: &EventSink,
    trigger: &str,
    pre_tokens: u64,
    cancel: &CancellationToken,
) -> PreCompact {
    if !hooks.wants(HookEvent::PreCompact, None) {
        return PreCompact::Go(None);
    }
    let mut fields = Map::new();
    fields.insert("trigger".into(), trigger.into());
    fields.insert("pre_tokens".into(), pre_tokens.into());
    let out = hooks
        .run(events, HookEvent::PreCompact, None, fields, cancel)
        .await;
    match out.decision() {
        HookDecision::Deny | HookDecision::Stop => {
            PreCompact::Deny(out.reason().unwrap_or("no reason given").to_string())
        }
        _ => PreCompact::Go(out.context_text()),
    }
}
