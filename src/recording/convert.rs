//! A recorded line back into the [`AgentEvent`] it was, for replays.
//!
//! The core's small enums (Terminal, Transition, Trigger, ToolOutcome) only serialize; their
//! names are matched here so the core needs no Deserialize for a reader of old files.

use std::sync::Arc;

use serde_json::Value;

use super::entry::Kind;
use crate::agent::context::{Compaction, ContextStatus, Trigger};
use crate::agent::protocol::approval::Preview;
use crate::agent::protocol::status::{ServerState, ServerStatus};
use crate::agent::protocol::{
    AgentEvent, AgentInfo, AgentReport, Terminal, ToolOutcome, Transition, TurnSummary,
};
use crate::hooks::{HookDecision, HookEvent, HookReport};
use crate::provider::{RequestBody, Usage};

impl Kind {
    /// The event this line recorded; None for the header and for lines that do not parse
    /// into one (a damaged or newer file: skipped, never a panic).
    pub fn to_event(&self) -> Option<AgentEvent> {
        use AgentEvent as E;
        Some(match self.clone() {
            Kind::Header { .. } => return None,
            Kind::PromptStart { text } => E::PromptStart { text },
            Kind::TurnStart { turn } => E::TurnStart { turn },
            Kind::Request {
                turn,
                attempt,
                model,
                body,
                ..
            } => E::RequestStart {
                turn,
                attempt,
                model,
                body: Arc::new(RequestBody::from(body)),
            },
            Kind::RequestFailed { status, body } => E::RequestFailed { status, body },
            Kind::Retry {
                attempt,
                delay_ms,
                error,
            } => E::Retry {
                attempt,
                delay_ms,
                error,
            },
            Kind::Sse { event, data, .. } => E::RawSse {
                event: event.into(),
                data,
            },
            Kind::TextDelta { text } => E::TextDelta { text },
            Kind::ThinkingDelta { text } => E::ThinkingDelta { text },
            Kind::ToolUseStreaming { id, name } => E::ToolUseStreaming { id, name },
            Kind::ToolUse {
                id,
                name,
                input,
                safe,
                summary,
                preview,
            } => E::ToolUse {
                id,
                name,
                input,
                safe,
                summary,
                preview: preview.as_ref().and_then(preview_from),
            },
            Kind::PermissionRequest {
                id,
                tool,
                input,
                summary,
                preview,
                why,
            } => E::PermissionRequest {
                id,
                tool,
                input,
                summary,
                preview: preview.as_ref().and_then(preview_from),
                why,
            },
            Kind::Permission {
                id,
                name,
                allowed,
                rule,
            } => E::Permission {
                id,
                name,
                allowed,
                rule,
            },
            Kind::ApprovalChanged { mode } => E::ApprovalChanged { mode },
            Kind::PlanReady { plan } => E::PlanReady { plan },
            Kind::ToolStart { id, name } => E::ToolStart { id, name },
            Kind::ToolProgress { id, chunk } => E::ToolProgress { id, chunk },
            Kind::ToolEnd {
                id,
                name,
                is_error,
                outcome,
                duration_ms,
                output,
            } => E::ToolEnd {
                id,
                name,
                is_error,
                outcome: outcome_from(&outcome, is_error),
                duration_ms,
                output,
            },
            Kind::StreamEnd { turn, stop_reason } => E::StreamEnd { turn, stop_reason },
            Kind::Usage { usage } => E::Usage(usage),
            Kind::Message { index, message } => E::Message {
                index,
                message: Arc::new(message),
            },
            Kind::Notice { text } => E::Notice { text },
            Kind::ServerBlock { block } => E::ServerBlock { block },
            Kind::Discarded { reason } => E::Discarded { reason },
            Kind::Error { message } => E::Error { message },
            Kind::HistoryReset {
                messages,
                summaries,
            } => E::HistoryReset {
                messages: messages.into_iter().map(Arc::new).collect(),
                summaries,
            },
            Kind::EarlierHistory { messages } => E::EarlierHistory { messages },
            Kind::ToolTimings { timings } => E::ToolTimings { timings },
            Kind::Session { id } => E::Session { id },
            Kind::Compacted { info, messages } => E::Compacted {
                info: compaction_from(&info)?,
                messages,
            },
            Kind::Context { status } => E::Context(ContextStatus {
                context_tokens: u64_of(&status, "context_tokens"),
                window: u64_of(&status, "window"),
                cost_usd: status.get("cost_usd").and_then(Value::as_f64),
                cache_read_share: status.get("cache_read_share").and_then(Value::as_f64),
            }),
            Kind::HookStart { id, event, command } => E::HookStart {
                id,
                event: hook_event_from(&event)?,
                command,
            },
            Kind::HookEnd { id, report } => E::HookEnd {
                id,
                report: HookReport {
                    event: hook_event_from(str_of(&report, "event"))?,
                    command: str_of(&report, "command").to_string(),
                    exit: report.get("exit").and_then(Value::as_i64).map(|e| e as i32),
                    duration_ms: u64_of(&report, "duration_ms"),
                    decision: [
                        HookDecision::None,
                        HookDecision::Allow,
                        HookDecision::Deny,
                        HookDecision::Stop,
                    ]
                    .into_iter()
                    .find(|d| d.as_str() == str_of(&report, "decision"))?,
                    reason: opt_string(&report, "reason"),
                },
            },
            Kind::Todos { todos } => E::Todos { todos },
            Kind::Mcp { status } => E::Mcp(ServerStatus {
                server: str_of(&status, "server").to_string(),
                state: [
                    ServerState::Starting,
                    ServerState::Ready,
                    ServerState::Failed,
                ]
                .into_iter()
                .find(|s| {
                    serde_json::to_value(s)
                        .ok()
                        .as_ref()
                        .and_then(Value::as_str)
                        == Some(str_of(&status, "state"))
                })?,
                tools: status
                    .get("tools")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|t| t.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
                error: opt_string(&status, "error"),
            }),
            Kind::ModelChanged { model } => E::ModelChanged { model },
            Kind::Background { event } => E::Background(serde_json::from_value(event).ok()?),
            Kind::Done { summary } => E::Done(summary_from(&summary)?),
            Kind::AgentStart { info } => E::AgentStart(AgentInfo {
                agent_id: str_of(&info, "agent_id").to_string(),
                parent_tool_use_id: str_of(&info, "parent_tool_use_id").to_string(),
                parent_agent_id: opt_string(&info, "parent_agent_id"),
                agent: str_of(&info, "agent").to_string(),
                description: str_of(&info, "description").to_string(),
                model: str_of(&info, "model").to_string(),
            }),
            Kind::AgentEnd { report } => E::AgentEnd(report_from(&report)?),
            Kind::Subagent {
                agent_id,
                parent_tool_use_id,
                event,
            } => E::Subagent {
                agent_id: agent_id.into(),
                parent_tool_use_id: parent_tool_use_id.into(),
                event: Box::new(event.to_event()?),
            },
        })
    }
}

/// A recorded `agent_end` back into the report.
pub fn report_from(v: &Value) -> Option<AgentReport> {
    Some(AgentReport {
        agent_id: str_of(v, "agent_id").to_string(),
        parent_tool_use_id: str_of(v, "parent_tool_use_id").to_string(),
        agent: str_of(v, "agent").to_string(),
        reason: terminal_from(str_of(v, "reason"))?,
        turns: u64_of(v, "turns") as u32,
        tools: u64_of(v, "tools") as u32,
        usage: serde_json::from_value::<Usage>(v.get("usage")?.clone()).unwrap_or_default(),
        cost_usd: v.get("cost_usd").and_then(Value::as_f64),
        duration_ms: u64_of(v, "duration_ms"),
    })
}

fn u64_of(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn opt_string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A recorded `Done` back into the summary the front ends print.
pub fn summary_from(v: &Value) -> Option<TurnSummary> {
    Some(TurnSummary {
        reason: terminal_from(str_of(v, "reason"))?,
        turns: u64_of(v, "turns") as u32,
        usage: serde_json::from_value::<Usage>(v.get("usage")?.clone()).unwrap_or_default(),
        text: str_of(v, "text").to_string(),
        transitions: v
            .get("transitions")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|t| transition_from(t.as_str()?))
                    .collect()
            })
            .unwrap_or_default(),
        error: opt_string(v, "error"),
        cost_usd: v.get("cost_usd").and_then(Value::as_f64),
        context_tokens: u64_of(v, "context_tokens"),
    })
}

pub fn terminal_from(s: &str) -> Option<Terminal> {
    use Terminal as T;
    [
        T::Completed,
        T::AbortedStreaming,
        T::AbortedTools,
        T::MaxTurns,
        T::ModelError,
        T::PromptTooLong,
        T::MaxOutputTokens,
        T::BudgetExceeded,
        T::BlockingLimit,
        T::HookStopped,
        T::StopHookPrevented,
    ]
    .into_iter()
    .find(|t| t.as_str() == s)
}

fn transition_from(s: &str) -> Option<Transition> {
    use Transition as T;
    [
        T::NextTurn,
        T::MaxTokensRecovery,
        T::Retry,
        T::FallbackModel,
        T::ReactiveCompact,
        T::StopHook,
    ]
    .into_iter()
    .find(|t| {
        serde_json::to_value(t)
            .ok()
            .as_ref()
            .and_then(Value::as_str)
            == Some(s)
    })
}

fn hook_event_from(s: &str) -> Option<HookEvent> {
    [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::PreCompact,
    ]
    .into_iter()
    .find(|e| e.as_str() == s)
}

fn outcome_from(s: &str, is_error: bool) -> ToolOutcome {
    [ToolOutcome::Ok, ToolOutcome::Error, ToolOutcome::Cancelled]
        .into_iter()
        .find(|o| o.as_str() == s)
        .unwrap_or(if is_error {
            ToolOutcome::Error
        } else {
            ToolOutcome::Ok
        })
}

fn compaction_from(v: &Value) -> Option<Compaction> {
    let trigger = [
        Trigger::Auto,
        Trigger::Reactive,
        Trigger::Manual,
        Trigger::Micro,
    ]
    .into_iter()
    .find(|t| t.as_str() == str_of(v, "trigger"))?;
    Some(Compaction {
        trigger,
        pre_tokens: u64_of(v, "pre_tokens"),
        post_tokens: u64_of(v, "post_tokens"),
        messages_before: u64_of(v, "messages_before") as usize,
        messages_after: u64_of(v, "messages_after") as usize,
        summary: str_of(v, "summary").to_string(),
        state: str_of(v, "state").to_string(),
        // Recordings from before state blocks have no `kept`: all zero.
        kept: v
            .get("kept")
            .and_then(|k| serde_json::from_value(k.clone()).ok())
            .unwrap_or_default(),
    })
}

fn preview_from(v: &Value) -> Option<Preview> {
    Some(match str_of(v, "kind") {
        "command" => Preview::Command {
            text: str_of(v, "text").to_string(),
            note: opt_string(v, "note"),
        },
        "diff" => Preview::Diff {
            path: str_of(v, "path").to_string(),
            unified_diff: str_of(v, "unified_diff").to_string(),
            note: opt_string(v, "note"),
        },
        "plan" => Preview::Plan {
            markdown: str_of(v, "markdown").to_string(),
        },
        "new_file" => Preview::NewFile {
            path: str_of(v, "path").to_string(),
            content: str_of(v, "content").to_string(),
        },
        _ => return None,
    })
}
