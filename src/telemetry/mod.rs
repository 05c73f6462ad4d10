//! OpenTelemetry traces and metrics with the GenAI semantic conventions (issue 43).
//!
//! Off by default: with telemetry off, [`start`] hands the event channel back untouched
//! and nothing of the SDK is built (no thread, no client, no allocation). On, it is one
//! more consumer of the agent's events, like `--trace` and `--record`: a task between the
//! agent and the front end turns each event into spans and metric points ([`spans`]), and
//! the SDK's own threads batch and export them. The loop never waits on it: the SDK's span
//! queue is bounded and drops (and counts, in the log) when the collector is slow or down,
//! and [`TelemetryTap::shutdown`] gives the final flush one second at most.

pub mod settings;

mod ids;
mod metrics;
mod sdk;
mod spans;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::protocol::AgentEvent;
use crate::protocol::events::EventSink;
pub use spans::RunInfo;

/// The longest the exit waits for the last export (the limit).
pub const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(1);

/// A running exporter: the observer the tap task feeds, and the SDK's providers.
pub struct TelemetryTap {
    observer: Arc<Mutex<spans::Observer>>,
    traces: opentelemetry_sdk::trace::SdkTracerProvider,
    metrics: opentelemetry_sdk::metrics::SdkMeterProvider,
}

/// Puts telemetry on the event channel when `settings` ask for it; otherwise returns
/// `events` as it is. A problem with the `OTEL_*` variables or `TRACEPARENT` is one notice
/// on `notices`, and the run goes on (without telemetry if it cannot export).
pub fn start(
    settings: settings::Settings,
    run: RunInfo,
    notices: &EventSink,
    events: UnboundedReceiver<AgentEvent>,
) -> (UnboundedReceiver<AgentEvent>, Option<TelemetryTap>) {
    if !settings.enabled {
        return (events, None);
    }
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let resource = vec![KeyValue::new("service.version", env!("CARGO_PKG_VERSION"))];
    let sdk = match sdk::build(&env, resource) {
        Ok(sdk) => sdk,
        Err(e) => {
            let text = e.to_string();
            tracing::warn!("{text}");
            notices.send(AgentEvent::Notice { text });
            return (events, None);
        }
    };
    if !sdk.notes.is_empty() {
        let text = format!("telemetry: {}", sdk.notes.join("; "));
        tracing::warn!("{text}");
        notices.send(AgentEvent::Notice { text });
    }
    tracing::info!(
        "telemetry on: OTLP (protocol from OTEL_EXPORTER_OTLP_*PROTOCOL, http/protobuf by default)"
    );
    let tracer = sdk.traces.tracer("tooloop");
    let meter = sdk.metrics.meter("tooloop");
    let observer = spans::Observer::new(
        tracer,
        metrics::Instruments::new(&meter),
        settings,
        run,
        sdk.parent,
    );
    let observer = Arc::new(Mutex::new(observer));
    let shared = observer.clone();
    let (tx, rx) = unbounded_channel();
    let mut events = events;
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if let Ok(mut o) = shared.lock() {
                o.observe(&event);
                // A prompt's span opens or closes: the processes started from now on get
                // its context (or none).
                if matches!(event, AgentEvent::PromptStart { .. } | AgentEvent::Done(_)) {
                    crate::child_trace_context::set(o.prompt_context());
                }
            }
            if tx.send(event).is_err() {
                break;
            }
        }
    });
    (
        rx,
        Some(TelemetryTap {
            observer,
            traces: sdk.traces,
            metrics: sdk.metrics,
        }),
    )
}

impl TelemetryTap {
    /// Ends what is still open and flushes, waiting [`SHUTDOWN_DEADLINE`] at most: the
    /// SDK's shutdown blocks (up to its export timeout with a stalled collector), so it
    /// runs on a thread of its own that the process may leave behind.
    pub async fn shutdown(self) {
        if let Ok(mut o) = self.observer.lock() {
            o.close_all();
        }
        crate::child_trace_context::set(None);
        let (done, finished) = tokio::sync::oneshot::channel();
        let TelemetryTap {
            traces, metrics, ..
        } = self;
        let spawned = std::thread::Builder::new()
            .name("telemetry-flush".into())
            .spawn(move || {
                // Side by side: each gets the whole deadline, and the exit waits once.
                let metrics_thread = std::thread::spawn(move || {
                    let _ = metrics.shutdown_with_timeout(SHUTDOWN_DEADLINE);
                });
                if let Err(e) = traces.shutdown_with_timeout(SHUTDOWN_DEADLINE) {
                    tracing::warn!("telemetry: traces at shutdown: {e}");
                }
                let _ = metrics_thread.join();
                let _ = done.send(());
            });
        if spawned.is_ok()
            && tokio::time::timeout(SHUTDOWN_DEADLINE, finished)
                .await
                .is_err()
        {
            tracing::warn!(
                "telemetry: the last export did not finish within {SHUTDOWN_DEADLINE:?}; left behind"
            );
        }
    }
}
