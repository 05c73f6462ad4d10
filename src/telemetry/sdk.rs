//! The OpenTelemetry SDK as the standard `OTEL_*` variables configure it: an OTLP
//! http/protobuf exporter per signal, the SDK's batch span processor (its own thread, a
//! bounded queue that drops when full) and periodic metric reader (its own thread).
//!
//! Only built when telemetry is on. Whatever here cannot be set up is one sentence for the
//! user and a run without telemetry, never a failed start.

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry::trace::TraceContextExt;
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;

/// The providers of one run; either may export nothing (`OTEL_TRACES_EXPORTER=none`, …).
pub struct Sdk {
    pub traces: SdkTracerProvider,
    pub metrics: SdkMeterProvider,
    /// The caller's span (a valid `TRACEPARENT`), or the empty context.
    pub parent: Context,
    /// What the user should hear (at most one sentence per problem, joined into one notice).
    pub notes: Vec<String>,
}

/// The variables that choose the wire protocol, signal-specific first.
const PROTOCOL_VARS: [&str; 3] = [
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
];

/// Why telemetry stays off, in the one sentence the user sees.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(
        "telemetry is off: {var}={value:?} is not supported; this build exports OTLP over \
         http/protobuf only (a collector's port 4318)"
    )]
    Protocol { var: &'static str, value: String },
    #[error("telemetry is off: {signal}: {source}")]
    Exporter {
        signal: &'static str,
        source: opentelemetry_otlp::ExporterBuildError,
    },
}

/// Builds the SDK from `env`.
pub fn build(
    env: &dyn Fn(&str) -> Option<String>,
    resource: Vec<KeyValue>,
) -> Result<Sdk, SetupError> {
    for var in PROTOCOL_VARS {
        if let Some(value) = env(var)
            && value.trim() != "http/protobuf"
        {
            return Err(SetupError::Protocol { var, value });
        }
    }
    // reqwest 0.13 (shared with rmcp) is built without a provider of its own: ring, as
    // the rest of tooloop's TLS.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut notes = Vec::new();
    let traces_on = exporter_wanted(env, "OTEL_TRACES_EXPORTER", &mut notes);
    let metrics_on = exporter_wanted(env, "OTEL_METRICS_EXPORTER", &mut notes);
    // Resource::builder reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; ours come
    // after, except a service name the user set.
    let mut builder = Resource::builder();
    if env("OTEL_SERVICE_NAME").is_none() {
        builder = builder.with_service_name("tooloop");
    }
    let resource = builder.with_attributes(resource).build();
    // A signal that is off still gets a provider, without exporter or thread: its spans
    // and points are made and dropped, and the observer needs no second path.
    let traces = if traces_on {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build()
            .map_err(|source| SetupError::Exporter {
                signal: "traces",
                source,
            })?;
        SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.clone())
            .build()
    } else {
        SdkTracerProvider::builder().build()
    };
    let metrics = if metrics_on {
        let built = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build();
        let exporter = match built {
            Ok(e) => e,
            Err(e) => {
                // The tracer provider's thread would otherwise outlive this answer.
                let _ = traces.shutdown_with_timeout(Duration::from_millis(100));
                return Err(SetupError::Exporter {
                    signal: "metrics",
                    source: e,
                });
            }
        };
        SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter).build())
            .with_resource(resource)
            .build()
    } else {
        SdkMeterProvider::builder().build()
    };
    let (parent, note) = parent_context(env);
    notes.extend(note);
    Ok(Sdk {
        traces,
        metrics,
        parent,
        notes,
    })
}

/// `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER`: unset or `otlp` exports, `none` does
/// not; any other exporter is not built in (said, and that signal is off).
fn exporter_wanted(
    env: &dyn Fn(&str) -> Option<String>,
    var: &str,
    notes: &mut Vec<String>,
) -> bool {
    match env(var).map(|v| v.trim().to_ascii_lowercase()) {
        None => true,
        Some(v) if v == "otlp" => true,
        Some(v) if v == "none" => false,
        Some(v) => {
            notes.push(format!(
                "{var}={v:?} is not supported (only otlp or none); that signal is off"
            ));
            false
        }
    }
}

/// The caller's trace from `TRACEPARENT` (and `TRACESTATE`), W3C trace context. A value
/// that does not parse is said once; tooloop's spans then start their own trace.
pub fn parent_context(env: &dyn Fn(&str) -> Option<String>) -> (Context, Option<String>) {
    use opentelemetry::propagation::TextMapPropagator;
    let Some(traceparent) = env("TRACEPARENT") else {
        return (Context::new(), None);
    };
    let mut carrier = HashMap::new();
    carrier.insert("traceparent".to_string(), traceparent.trim().to_string());
    if let Some(state) = env("TRACESTATE") {
        carrier.insert("tracestate".to_string(), state);
    }
    let propagator = opentelemetry_sdk::propagation::TraceContextPropagator::new();
    let cx = propagator.extract(&carrier);
    if cx.span().span_context().is_valid() {
        (cx, None)
    } else {
        (
            Context::new(),
            Some(
                "TRACEPARENT is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>); \
                 tooloop's spans start a trace of their own"
                    .into(),
            ),
        )
    }
}

/// The `traceparent` header value of a span context (for the processes tooloop starts).
pub fn traceparent(cx: &opentelemetry::trace::SpanContext) -> Option<String> {
    cx.is_valid().then(|| {
        format!(
            "00-{}-{}-{:02x}",
            cx.trace_id(),
            cx.span_id(),
            cx.trace_flags().to_u8()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_valid_traceparent_becomes_the_parent_and_goes_out_unchanged() {
        let value = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let (cx, note) = parent_context(&env_of(&[(
            "TRACEPARENT",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        )]));
        assert_eq!(note, None);
        let span = cx.span();
        assert_eq!(traceparent(span.span_context()).as_deref(), Some(value));
    }

    #[test]
    fn a_malformed_traceparent_is_one_note_and_no_parent() {
        for bad in [
            "",
            "garbage",
            "00-xyz-abc-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
        ] {
            let vars: &'static [(&'static str, &'static str)] =
                Box::leak(vec![("TRACEPARENT", bad)].into_boxed_slice());
            let (cx, note) = parent_context(&env_of(vars));
            assert!(!cx.span().span_context().is_valid(), "{bad:?}");
            assert!(note.is_some(), "{bad:?}");
        }
    }

    #[test]
    fn grpc_is_refused_in_one_sentence() {
        let err = build(
            &env_of(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]),
            Vec::new(),
        )
        .err()
        .expect("grpc is not built in")
        .to_string();
        assert!(err.contains("http/protobuf"), "{err}");
    }
}
