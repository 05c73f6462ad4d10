//! The agent's events as spans and metric points (the GenAI conventions' names).
//!
//! `invoke_agent tooloop` per prompt; under it `chat MODEL` per model request (retries are
//! events on it: the conventions' span covers the logical operation), `execute_tool NAME`
//! per tool call, `execute_hook EVENT` per hook and `compaction` per compaction; a
//! subagent's `invoke_agent NAME` sits under the `execute_tool task` call that started it,
//! its own requests and tools under it. Times are taken when an event arrives here.

mod chat;
mod tool_calls;

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::SdkTracer;
use serde_json::json;

use super::metrics::{Instruments, common};
use super::settings::Settings;
use crate::protocol::{AgentEvent, Terminal};
use crate::provider::Usage;
use chat::{Chat, error_type, usage_attributes};
use tool_calls::ToolCall;

/// Who is running, for attributes.
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    pub provider: String,
    pub model: String,
    pub server_address: Option<String>,
    pub server_port: Option<i64>,
    pub session: String,
}

/// None: the top-level agent; Some: a subagent's id.
type Agent = Option<String>;

struct AgentSpan {
    cx: Context,
    chat: Option<Chat>,
    /// The model's text, kept only with log_prompts.
    text: String,
}

pub struct Observer {
    tracer: SdkTracer,
    metrics: Instruments,
    settings: Settings,
    run: RunInfo,
    parent: Context,
    agents: HashMap<Agent, AgentSpan>,
    tools: HashMap<(Agent, String), ToolCall>,
    hooks: HashMap<String, Context>,
    last_cost: f64,
}

impl Observer {
    pub fn new(
        tracer: SdkTracer,
        metrics: Instruments,
        settings: Settings,
        run: RunInfo,
        parent: Context,
    ) -> Self {
        Observer {
            tracer,
            metrics,
            settings,
            run,
            parent,
            agents: HashMap::new(),
            tools: HashMap::new(),
            hooks: HashMap::new(),
            last_cost: 0.0,
        }
    }

    /// The top-level prompt's span context, for the processes tooloop starts.
    pub fn prompt_context(&self) -> Option<String> {
        let agent = self.agents.get(&None)?;
        super::sdk::traceparent(agent.cx.span().span_context())
    }

    /// `gen_ai.conversation.id`: the session, when there is one (not with --no-session).
    fn conversation(&self) -> Option<KeyValue> {
        (!self.run.session.is_empty())
            .then(|| KeyValue::new("gen_ai.conversation.id", self.run.session.clone()))
    }

    fn common(&self, model: &str) -> Vec<KeyValue> {
        common(&self.run.session, &self.run.provider, model)
    }

    fn start(
        &self,
        name: String,
        parent: &Context,
        kind: SpanKind,
        attrs: Vec<KeyValue>,
    ) -> Context {
        let span = self
            .tracer
            .span_builder(name)
            .with_kind(kind)
            .with_attributes(attrs)
            .start_with_context(&self.tracer, parent);
        parent.with_span(span)
    }

    /// The span new work of `agent` goes under.
    fn parent_of(&self, agent: &Agent) -> Context {
        self.agents
            .get(agent)
            .map_or_else(|| self.parent.clone(), |a| a.cx.clone())
    }

    /// Takes one event as it arrives.
    pub fn observe(&mut self, event: &AgentEvent) {
        let (who, inner) = event.unwrapped();
        let agent: Agent = who.map(|(id, _)| id.to_string());
        match inner {
            AgentEvent::PromptStart { text } if agent.is_none() => self.prompt_start(text),
            AgentEvent::Session { id } => self.run.session = id.clone(),
            AgentEvent::ModelChanged { model } if agent.is_none() => self.run.model = model.clone(),
            AgentEvent::AgentStart(info) => self.agent_start(info),
            AgentEvent::AgentEnd(report) => {
                let key = Some(report.agent_id.clone());
                self.close_agent(&key, report.reason, &report.usage, None);
            }
            AgentEvent::Done(summary) if agent.is_none() => {
                self.close_agent(
                    &None,
                    summary.reason,
                    &summary.usage,
                    summary.error.as_deref(),
                );
                if let Some(cost) = summary.cost_usd {
                    // The session's cost so far; lower than before after a new conversation.
                    let spent = if cost >= self.last_cost {
                        cost - self.last_cost
                    } else {
                        cost
                    };
                    if spent > 0.0 {
                        let model = self.run.model.clone();
                        self.metrics.cost.add(spent, &self.common(&model));
                    }
                    self.last_cost = cost;
                }
            }
            AgentEvent::RequestStart { attempt, model, .. } => {
                self.request_start(&agent, *attempt, model)
            }
            AgentEvent::RequestFailed { status, .. } => {
                if let Some(chat) = self.chat(&agent) {
                    chat.status = Some(*status);
                }
            }
            AgentEvent::Retry {
                attempt,
                delay_ms,
                error,
                ..
            } => {
                if let Some(chat) = self.chat(&agent) {
                    chat.cx.span().add_event(
                        "retry",
                        vec![
                            KeyValue::new("tooloop.retry.attempt", i64::from(*attempt)),
                            KeyValue::new("tooloop.retry.delay_ms", *delay_ms as i64),
                            KeyValue::new("error.type", error_type(chat.status)),
                        ],
                    );
                    chat.failed = false;
                }
                let _ = error;
            }
            AgentEvent::Error { .. } => {
                if let Some(chat) = self.chat(&agent) {
                    chat.failed = true;
                }
            }
            AgentEvent::RawSse { .. }
            | AgentEvent::ThinkingDelta { .. }
            | AgentEvent::ToolUseStreaming { .. } => self.first_chunk(&agent),
            AgentEvent::TextDelta { text } => {
                self.first_chunk(&agent);
                if self.settings.log_prompts
                    && let Some(a) = self.agents.get_mut(&agent)
                {
                    a.text.push_str(text);
                }
            }
            AgentEvent::StreamEnd {
                stop_reason, usage, ..
            } => self.request_end(&agent, stop_reason.as_deref(), usage.as_ref()),
            AgentEvent::ToolUse {
                id,
                name,
                input,
                preview,
                ..
            } => self.tool_start(agent, id, name, input, preview.as_ref()),
            AgentEvent::Permission {
                id,
                name,
                allowed,
                rule,
            } => {
                let decision = if *allowed { "approved" } else { "denied" };
                let source = rule.as_ref().map_or("mode", |r| r.source.as_str());
                if let Some(call) = self.tools.get_mut(&(agent.clone(), id.clone())) {
                    call.decided = true;
                    let span = call.cx.span();
                    span.set_attribute(KeyValue::new("tooloop.tool.decision", decision));
                    span.set_attribute(KeyValue::new(
                        "tooloop.tool.decision.source",
                        source.to_string(),
                    ));
                    if let Some(r) = rule {
                        span.set_attribute(KeyValue::new(
                            "tooloop.tool.decision.rule",
                            r.rule.clone(),
                        ));
                    }
                }
                let mut attrs = self.common(&self.run.model.clone());
                attrs.push(KeyValue::new("gen_ai.tool.name", name.clone()));
                attrs.push(KeyValue::new("tooloop.tool.decision", decision));
                attrs.push(KeyValue::new(
                    "tooloop.tool.decision.source",
                    source.to_string(),
                ));
                self.metrics.approvals.add(1, &attrs);
            }
            AgentEvent::ToolStart { id, .. } => {
                if let Some(call) = self.tools.get_mut(&(agent, id.clone()))
                    && !call.decided
                {
                    // Started without a question: a call the policy lets run as it is.
                    let span = call.cx.span();
                    span.set_attribute(KeyValue::new("tooloop.tool.decision", "approved"));
                    span.set_attribute(KeyValue::new(
                        "tooloop.tool.decision.source",
                        "no_consent_needed",
                    ));
                }
            }
            AgentEvent::ToolEnd {
                id,
                name,
                outcome,
                output,
                ..
            } => {
                let Some(call) = self.tools.remove(&(agent, id.clone())) else {
                    return;
                };
                let span = call.cx.span();
                span.set_attribute(KeyValue::new("tooloop.tool.outcome", outcome.as_str()));
                if outcome.is_error() {
                    span.set_attribute(KeyValue::new("error.type", outcome.as_str()));
                    span.set_status(Status::error(outcome.as_str()));
                } else if call.lines != (0, 0) {
                    let mut attrs = self.common(&self.run.model.clone());
                    attrs.push(KeyValue::new("gen_ai.tool.name", name.clone()));
                    for (kind, n) in [("added", call.lines.0), ("removed", call.lines.1)] {
                        let mut a = attrs.clone();
                        a.push(KeyValue::new("tooloop.lines.type", kind));
                        self.metrics.lines_changed.add(n, &a);
                    }
                }
                if self.settings.log_tool_content {
                    span.set_attribute(KeyValue::new("gen_ai.tool.call.result", output.clone()));
                }
                span.end();
                let mut attrs = self.common(&self.run.model.clone());
                attrs.push(KeyValue::new("gen_ai.tool.name", call.name));
                attrs.push(KeyValue::new("tooloop.tool.outcome", outcome.as_str()));
                self.metrics.tool_calls.add(1, &attrs);
            }
            AgentEvent::HookStart { id, event, command } => {
                let mut attrs = vec![KeyValue::new("tooloop.hook.event", event.as_str())];
                if self.settings.log_tool_content {
                    attrs.push(KeyValue::new("tooloop.hook.command", command.clone()));
                }
                let parent = self.parent_of(&agent);
                let cx = self.start(
                    format!("execute_hook {}", event.as_str()),
                    &parent,
                    SpanKind::Internal,
                    attrs,
                );
                self.hooks.insert(hook_key(&agent, id), cx);
            }
            AgentEvent::HookEnd { id, report } => {
                let Some(cx) = self.hooks.remove(&hook_key(&agent, id)) else {
                    return;
                };
                let span = cx.span();
                if let Some(code) = report.exit {
                    span.set_attribute(KeyValue::new("process.exit.code", i64::from(code)));
                }
                span.set_attribute(KeyValue::new(
                    "tooloop.hook.decision",
                    format!("{:?}", report.decision).to_lowercase(),
                ));
                if report.exit != Some(0) {
                    span.set_attribute(KeyValue::new(
                        "error.type",
                        if report.exit.is_none() {
                            "killed"
                        } else {
                            "exit_code"
                        },
                    ));
                }
                span.end();
            }
            AgentEvent::Compacted { info, .. } => {
                let trigger = format!("{:?}", info.trigger).to_lowercase();
                let parent = self.parent_of(&agent);
                let cx = self.start(
                    "compaction".into(),
                    &parent,
                    SpanKind::Internal,
                    vec![
                        KeyValue::new("tooloop.compaction.trigger", trigger.clone()),
                        KeyValue::new("tooloop.compaction.pre_tokens", info.pre_tokens as i64),
                        KeyValue::new("tooloop.compaction.post_tokens", info.post_tokens as i64),
                    ],
                );
                cx.span().end();
                let mut attrs = self.common(&self.run.model.clone());
                attrs.push(KeyValue::new("tooloop.compaction.trigger", trigger));
                self.metrics.compactions.add(1, &attrs);
            }
            _ => {}
        }
    }

    fn chat(&mut self, agent: &Agent) -> Option<&mut Chat> {
        self.agents.get_mut(agent)?.chat.as_mut()
    }

    fn prompt_start(&mut self, text: &str) {
        // A prompt that did not end (the agent task stopped mid-turn) ends here.
        self.close_agent(&None, Terminal::AbortedStreaming, &Usage::default(), None);
        let mut attrs = vec![
            KeyValue::new("gen_ai.operation.name", "invoke_agent"),
            KeyValue::new("gen_ai.agent.name", "tooloop"),
            KeyValue::new("gen_ai.provider.name", self.run.provider.clone()),
            KeyValue::new("gen_ai.request.model", self.run.model.clone()),
        ];
        attrs.extend(self.conversation());
        if self.settings.log_prompts {
            attrs.push(KeyValue::new(
                "gen_ai.input.messages",
                messages("user", text),
            ));
        }
        let parent = self.parent.clone();
        let cx = self.start(
            "invoke_agent tooloop".into(),
            &parent,
            SpanKind::Internal,
            attrs,
        );
        self.agents.insert(
            None,
            AgentSpan {
                cx,
                chat: None,
                text: String::new(),
            },
        );
    }

    fn agent_start(&mut self, info: &crate::protocol::subagent::AgentInfo) {
        let parent_agent: Agent = info.parent_agent_id.clone();
        let parent = self
            .tools
            .get(&(parent_agent.clone(), info.parent_tool_use_id.clone()))
            .map(|t| t.cx.clone())
            .unwrap_or_else(|| self.parent_of(&parent_agent));
        let mut attrs = vec![
            KeyValue::new("gen_ai.operation.name", "invoke_agent"),
            KeyValue::new("gen_ai.agent.name", info.agent.clone()),
            KeyValue::new("gen_ai.agent.id", info.agent_id.clone()),
            KeyValue::new("gen_ai.provider.name", self.run.provider.clone()),
            KeyValue::new("gen_ai.request.model", info.model.clone()),
        ];
        attrs.extend(self.conversation());
        if self.settings.log_prompts {
            attrs.push(KeyValue::new(
                "gen_ai.agent.description",
                info.description.clone(),
            ));
        }
        let cx = self.start(
            format!("invoke_agent {}", info.agent),
            &parent,
            SpanKind::Internal,
            attrs,
        );
        let span = AgentSpan {
            cx,
            chat: None,
            text: String::new(),
        };
        self.agents.insert(Some(info.agent_id.clone()), span);
    }

    /// Ends `agent`'s span (and whatever of it is still open) with its totals.
    fn close_agent(&mut self, agent: &Agent, reason: Terminal, usage: &Usage, error: Option<&str>) {
        self.request_end(agent, None, None);
        let open: Vec<_> = self
            .tools
            .keys()
            .filter(|(a, _)| a == agent)
            .cloned()
            .collect();
        for key in open {
            if let Some(call) = self.tools.remove(&key) {
                call.cx
                    .span()
                    .set_attribute(KeyValue::new("tooloop.tool.outcome", "unfinished"));
                call.cx.span().end();
            }
        }
        let Some(a) = self.agents.remove(agent) else {
            return;
        };
        let span = a.cx.span();
        span.set_attributes(usage_attributes(usage));
        span.set_attribute(KeyValue::new("tooloop.terminal_reason", reason.as_str()));
        if matches!(reason, Terminal::ModelError) {
            span.set_attribute(KeyValue::new("error.type", reason.as_str()));
            span.set_status(Status::error(error.unwrap_or("model error").to_string()));
        }
        if self.settings.log_prompts && !a.text.is_empty() {
            span.set_attribute(KeyValue::new(
                "gen_ai.output.messages",
                messages("assistant", &a.text),
            ));
        }
        span.end();
    }

    /// Ends everything still open (the session is ending) at the time it is now.
    pub fn close_all(&mut self) {
        let agents: Vec<Agent> = self
            .agents
            .keys()
            .filter(|a| a.is_some())
            .cloned()
            .collect();
        for a in agents {
            self.close_agent(&a, Terminal::AbortedStreaming, &Usage::default(), None);
        }
        self.close_agent(&None, Terminal::AbortedStreaming, &Usage::default(), None);
        for (_, cx) in self.hooks.drain() {
            cx.span()
                .end_with_timestamp(SystemTime::now() + Duration::ZERO);
        }
    }
}

fn hook_key(agent: &Agent, id: &str) -> String {
    match agent {
        Some(a) => format!("{a}/{id}"),
        None => id.to_string(),
    }
}

/// A message in the conventions' `gen_ai.input.messages` / `output.messages` JSON shape.
fn messages(role: &str, text: &str) -> String {
    json!([{"role": role, "parts": [{"type": "text", "content": text}]}]).to_string()
}
