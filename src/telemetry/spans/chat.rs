//! A model request's span (`chat MODEL`) and its metric points: one span per request,
//! covering its retries (the conventions' span is the logical operation), ended by the
//! stream's end with the response's own usage, or by a failure with `error.type`.

use std::time::Instant;

use opentelemetry::trace::{SpanKind, Status, TraceContextExt};
use opentelemetry::{Context, KeyValue};

use super::{Agent, AgentSpan, Observer};
use crate::provider::Usage;
use crate::telemetry::metrics::common;

pub(super) struct Chat {
    pub(super) cx: Context,
    pub(super) started: Instant,
    pub(super) first_chunk: bool,
    pub(super) model: String,
    /// The HTTP status of the last refused attempt.
    pub(super) status: Option<u16>,
    pub(super) failed: bool,
}

impl Observer {
    pub(super) fn request_start(&mut self, agent: &Agent, attempt: u32, model: &str) {
        if self.chat(agent).is_some() {
            // Another attempt of the same request: the span covers all of them.
            if let Some(chat) = self.chat(agent) {
                chat.cx.span().set_attribute(KeyValue::new(
                    "tooloop.request.attempts",
                    i64::from(attempt),
                ));
            }
            return;
        }
        let mut attrs = vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.provider.name", self.run.provider.clone()),
            KeyValue::new("gen_ai.request.model", model.to_string()),
        ];
        if let Some(host) = &self.run.server_address {
            attrs.push(KeyValue::new("server.address", host.clone()));
        }
        if let Some(port) = self.run.server_port {
            attrs.push(KeyValue::new("server.port", port));
        }
        let parent = self.parent_of(agent);
        let cx = self.start(format!("chat {model}"), &parent, SpanKind::Client, attrs);
        let chat = Chat {
            cx,
            started: Instant::now(),
            first_chunk: false,
            model: model.to_string(),
            status: None,
            failed: false,
        };
        match self.agents.get_mut(agent) {
            Some(a) => a.chat = Some(chat),
            // A request outside any prompt (`/compact`): its span stands alone.
            None => {
                let cx = chat.cx.clone();
                self.agents.insert(
                    agent.clone(),
                    AgentSpan {
                        cx,
                        chat: Some(chat),
                        text: String::new(),
                    },
                );
            }
        }
    }

    pub(super) fn first_chunk(&mut self, agent: &Agent) {
        let Some(chat) = self.agents.get_mut(agent).and_then(|a| a.chat.as_mut()) else {
            return;
        };
        if chat.first_chunk {
            return;
        }
        chat.first_chunk = true;
        let secs = chat.started.elapsed().as_secs_f64();
        chat.cx
            .span()
            .set_attribute(KeyValue::new("gen_ai.response.time_to_first_chunk", secs));
        let mut attrs = common(&self.run.session, &self.run.provider, &chat.model);
        attrs.push(KeyValue::new("gen_ai.operation.name", "chat"));
        self.metrics.time_to_first_chunk.record(secs, &attrs);
    }

    /// Ends `agent`'s open request: `usage` and `stop_reason` when its stream finished.
    pub(super) fn request_end(
        &mut self,
        agent: &Agent,
        stop_reason: Option<&str>,
        usage: Option<&Usage>,
    ) {
        let Some(a) = self.agents.get_mut(agent) else {
            return;
        };
        let Some(chat) = a.chat.take() else { return };
        let standalone = a.cx.span().span_context() == chat.cx.span().span_context();
        let span = chat.cx.span();
        span.set_attribute(KeyValue::new("gen_ai.response.model", chat.model.clone()));
        if let Some(reason) = stop_reason {
            span.set_attribute(KeyValue::new(
                "gen_ai.response.finish_reasons",
                opentelemetry::Value::Array(
                    vec![opentelemetry::StringValue::from(reason.to_string())].into(),
                ),
            ));
        }
        let mut attrs = common(&self.run.session, &self.run.provider, &chat.model);
        attrs.push(KeyValue::new("gen_ai.operation.name", "chat"));
        if let Some(u) = usage {
            span.set_attributes(usage_attributes(u));
            for (kind, n) in [("input", input_tokens(u)), ("output", u.output_tokens)] {
                let mut a = attrs.clone();
                a.push(KeyValue::new("gen_ai.token.type", kind));
                self.metrics.token_usage.record(n, &a);
            }
        } else {
            let kind = if chat.failed || chat.status.is_some() {
                error_type(chat.status)
            } else {
                "cancelled".into()
            };
            span.set_attribute(KeyValue::new("error.type", kind.clone()));
            span.set_status(Status::error(kind.clone()));
            attrs.push(KeyValue::new("error.type", kind));
        }
        self.metrics
            .duration
            .record(chat.started.elapsed().as_secs_f64(), &attrs);
        span.end();
        if standalone {
            self.agents.remove(agent);
        }
    }
}
/// Input tokens as the conventions count them: cached ones included (the providers' own
/// `input_tokens` leaves out what was read from or written to the cache).
pub(super) fn input_tokens(u: &Usage) -> u64 {
    u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
}

pub(super) fn usage_attributes(u: &Usage) -> Vec<KeyValue> {
    vec![
        KeyValue::new("gen_ai.usage.input_tokens", input_tokens(u) as i64),
        KeyValue::new("gen_ai.usage.output_tokens", u.output_tokens as i64),
        KeyValue::new(
            "gen_ai.usage.cache_read.input_tokens",
            u.cache_read_tokens as i64,
        ),
        KeyValue::new(
            "gen_ai.usage.cache_creation.input_tokens",
            u.cache_write_tokens as i64,
        ),
    ]
}

/// `error.type` of a failed request: the HTTP status when the server refused it.
pub(super) fn error_type(status: Option<u16>) -> String {
    status.map_or_else(|| "stream_error".to_string(), |s| s.to_string())
}
