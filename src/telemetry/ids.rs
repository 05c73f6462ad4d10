//! Span ids: random, as the SDK makes them, except for the one span a caller asks for by
//! id. A tool call's `execute_tool` span takes an id minted from the call id
//! (`child_trace_context::span_id_for_call`), so the requests the call makes (an MCP
//! server's `params._meta.traceparent`) can name their parent span before telemetry has
//! seen the call start: no waiting, no table of running calls.
//!
//! The request travels by thread: every span is started on the telemetry tap's task, one
//! at a time, and the SDK asks the generator for the span id inside `start`.

use std::cell::Cell;

use opentelemetry::trace::{SpanId, TraceId};
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator};

thread_local! {
    static NEXT_SPAN_ID: Cell<Option<SpanId>> = const { Cell::new(None) };
}

/// Runs `start` (which starts one span) so that span gets `span_id`.
pub fn with_span_id<T>(span_id: [u8; 8], start: impl FnOnce() -> T) -> T {
    NEXT_SPAN_ID.with(|next| next.set(Some(SpanId::from_bytes(span_id))));
    let out = start();
    // A provider that is shut down starts no span and asks for no id: nothing may linger
    // for the next span.
    NEXT_SPAN_ID.with(|next| next.set(None));
    out
}

#[derive(Debug, Default)]
pub struct Ids {
    random: RandomIdGenerator,
}

impl IdGenerator for Ids {
    fn new_trace_id(&self) -> TraceId {
        self.random.new_trace_id()
    }

    fn new_span_id(&self) -> SpanId {
        NEXT_SPAN_ID
            .with(Cell::take)
            .unwrap_or_else(|| self.random.new_span_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{TraceContextExt, Tracer, TracerProvider};

    #[test]
    fn the_asked_span_gets_the_id_and_the_next_one_a_random_id() {
        let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_id_generator(Ids::default())
            .build();
        let tracer = provider.tracer("test");
        let want = [1, 2, 3, 4, 5, 6, 7, 8];
        let asked = with_span_id(want, || tracer.start("asked"));
        let other = tracer.start("other");
        use opentelemetry::trace::Span as _;
        assert_eq!(asked.span_context().span_id(), SpanId::from_bytes(want));
        assert_ne!(other.span_context().span_id(), SpanId::from_bytes(want));
        let cx = opentelemetry::Context::current_with_span(other);
        assert!(cx.span().span_context().is_valid());
    }
}
