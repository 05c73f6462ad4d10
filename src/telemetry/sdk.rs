//! The OpenTelemetry SDK as the standard `OTEL_*` variables configure it: an OTLP exporter
//! per signal (http/protobuf by default, http/json or gRPC when the protocol variables ask),
//! the SDK's batch span processor (its own thread, a bounded queue that drops when full) and
//! periodic metric reader (its own thread).
//!
//! Only built when telemetry is on. Whatever here cannot be set up is one sentence for the
//! user and a run without telemetry, never a failed start.

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry::trace::TraceContextExt;
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{
    Protocol, RetryPolicy, WithExportConfig, WithHttpConfig, WithTonicConfig,
};
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

/// The wire protocol of one signal: its own variable first, then the common one
/// (`http/protobuf` when neither is set, as the specification says).
fn protocol_of(
    env: &dyn Fn(&str) -> Option<String>,
    signal_var: &'static str,
) -> Result<Protocol, SetupError> {
    for var in [signal_var, "OTEL_EXPORTER_OTLP_PROTOCOL"] {
        if let Some(value) = env(var) {
            return match value.trim() {
                "http/protobuf" => Ok(Protocol::HttpBinary),
                "http/json" => Ok(Protocol::HttpJson),
                "grpc" => Ok(Protocol::Grpc),
                _ => Err(SetupError::Protocol { var, value }),
            };
        }
    }
    Ok(Protocol::HttpBinary)
}

/// gRPC over TLS for an `https://` endpoint, verified against the same web PKI roots as
/// tooloop's other HTTPS (tonic's default TLS config trusts no root at all).
fn grpc_tls(
    env: &dyn Fn(&str) -> Option<String>,
    signal_endpoint_var: &str,
) -> Option<opentelemetry_otlp::tonic_types::transport::ClientTlsConfig> {
    let endpoint = env(signal_endpoint_var).or_else(|| env("OTEL_EXPORTER_OTLP_ENDPOINT"))?;
    endpoint.trim().starts_with("https://").then(|| {
        opentelemetry_otlp::tonic_types::transport::ClientTlsConfig::new().with_webpki_roots()
    })
}

/// Retries with a short backoff: an export that failed is tried twice more within about
/// 200 ms, so a collector that is down delays the exit (whose flush waits for the retries)
/// by that much, not by the SDK's default backoff of up to 1.6 s a step.
fn retry_policy() -> RetryPolicy {
    RetryPolicy::recommended()
        .with_max_retries(2)
        .with_initial_delay(Duration::from_millis(50))
        .with_max_delay(Duration::from_millis(150))
        .with_max_jitter(Duration::from_millis(10))
}

/// Why telemetry stays off, in the one sentence the user sees.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(
        "telemetry is off: {var}={value:?} is not an OTLP protocol (grpc, http/protobuf or \
         http/json)"
    )]
    Protocol { var: &'static str, value: String },
    #[error("telemetry is off: {signal}: {source}")]
    Exporter {
        signal: &'static str,
        source: opentelemetry_otlp::ExporterBuildError,
    },
}

/// One signal's exporter over its protocol: gRPC through tonic (its channel starts its
/// worker on the runtime this runs in; the SDK's export thread drives its futures from
/// outside it), with TLS for an `https://` endpoint, or HTTP with protobuf or JSON bodies;
/// the short retries either way. A macro: the span and metric builders share no trait.
macro_rules! exporter {
    ($builder:expr, $protocol:expr, $tls:expr) => {
        match $protocol {
            Protocol::Grpc => {
                let tonic = $builder.with_tonic().with_retry_policy(retry_policy());
                match $tls {
                    Some(tls) => tonic.with_tls_config(tls).build(),
                    None => tonic.build(),
                }
            }
            http => $builder
                .with_http()
                .with_protocol(http)
                .with_retry_policy(retry_policy())
                .build(),
        }
    };
}

/// Builds the SDK from `env`.
pub fn build(
    env: &dyn Fn(&str) -> Option<String>,
    resource: Vec<KeyValue>,
) -> Result<Sdk, SetupError> {
    let traces_protocol = protocol_of(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")?;
    let metrics_protocol = protocol_of(env, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")?;
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
        let built = exporter!(
            opentelemetry_otlp::SpanExporter::builder(),
            traces_protocol,
            grpc_tls(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        );
        let exporter = built.map_err(|source| SetupError::Exporter {
            signal: "traces",
            source,
        })?;
        SdkTracerProvider::builder()
            .with_id_generator(super::ids::Ids::default())
            .with_batch_exporter(exporter)
            .with_resource(resource.clone())
            .build()
    } else {
        SdkTracerProvider::builder()
            .with_id_generator(super::ids::Ids::default())
            .build()
    };
    let metrics = if metrics_on {
        let built = exporter!(
            opentelemetry_otlp::MetricExporter::builder(),
            metrics_protocol,
            grpc_tls(env, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
        );
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
    fn each_signal_takes_its_own_protocol_then_the_common_one() {
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/json"),
        ]);
        assert_eq!(
            protocol_of(&env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL").unwrap(),
            Protocol::Grpc
        );
        assert_eq!(
            protocol_of(&env, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL").unwrap(),
            Protocol::HttpJson
        );
        assert_eq!(
            protocol_of(&env_of(&[]), "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL").unwrap(),
            Protocol::HttpBinary
        );
    }

    #[test]
    fn an_unknown_protocol_is_refused_in_one_sentence_naming_the_variable() {
        let err = build(
            &env_of(&[("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "carrier-pigeon")]),
            Vec::new(),
        )
        .err()
        .expect("not a protocol")
        .to_string();
        assert!(
            err.contains("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") && err.contains("grpc"),
            "{err}"
        );
    }
}
