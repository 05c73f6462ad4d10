//! The other two OTLP wires the standard protocol variables choose: gRPC (tonic, HTTP/2 to
//! a receiver that decodes with the official schema) and http/json carry the same spans
//! and metrics as the default http/protobuf.

use crate::support;

use super::telemetry::{as_env, names, notices, on, run, script};
use support::otlp::{Behaviour, Collector};
use support::{MockServer, assert_valid_history};

#[test]
fn grpc_exports_the_same_spans_and_metrics() {
    let collector = Collector::start_grpc(Behaviour::Accept);
    let server = MockServer::start();
    script(&server);
    let mut env = on(&collector.endpoint());
    env.push(("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc".into()));
    let run = run(&server, &as_env(&env));
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_valid_history(run.result());
    assert_eq!(notices(&run, "telemetry"), 0, "{}", run.stdout);
    assert!(
        collector.undecodable().is_empty(),
        "{:?}",
        collector.undecodable()
    );
    let spans = collector.spans();
    let mut got = names(&spans);
    got.sort();
    got.dedup();
    for want in [
        "invoke_agent tooloop",
        "invoke_agent explore",
        "chat claude-mock",
        "execute_tool task",
        "execute_tool get_current_time",
    ] {
        assert!(got.iter().any(|n| n == want), "{want} not in {got:?}");
    }
    // Token sums over the requests equal the result's, as over http/protobuf.
    let usage = &run.result()["usage"];
    let out: i64 = spans
        .iter()
        .filter(|s| s.name.starts_with("chat "))
        .map(|s| s.int("gen_ai.usage.output_tokens").unwrap_or(-1))
        .sum();
    assert_eq!(out, usage["output_tokens"].as_i64().unwrap(), "{usage}");
    assert_eq!(out, 20 + 7 + 11);
    let metrics: Vec<String> = collector.metrics().iter().map(|m| m.name.clone()).collect();
    assert!(
        metrics.iter().any(|m| m == "gen_ai.client.token.usage"),
        "{metrics:?}"
    );
}

#[test]
fn http_json_exports_otlp_json() {
    let collector = Collector::start(Behaviour::Accept);
    let server = MockServer::start();
    script(&server);
    let mut env = on(&collector.endpoint());
    env.push(("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json".into()));
    let run = run(&server, &as_env(&env));
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(notices(&run, "telemetry"), 0, "{}", run.stdout);
    assert!(
        collector.undecodable().is_empty(),
        "{:?}",
        collector.undecodable()
    );
    assert!(collector.spans().is_empty(), "protobuf was sent");
    let bodies = collector.json();
    let span_names: Vec<String> = bodies
        .iter()
        .filter_map(|b| b["resourceSpans"].as_array())
        .flatten()
        .filter_map(|rs| rs["scopeSpans"].as_array())
        .flatten()
        .filter_map(|ss| ss["spans"].as_array())
        .flatten()
        .filter_map(|s| s["name"].as_str().map(String::from))
        .collect();
    assert!(
        span_names.iter().any(|n| n == "invoke_agent tooloop")
            && span_names.iter().any(|n| n == "chat claude-mock"),
        "{span_names:?}"
    );
    let metric_names: Vec<&str> = bodies
        .iter()
        .filter_map(|b| b["resourceMetrics"].as_array())
        .flatten()
        .filter_map(|rm| rm["scopeMetrics"].as_array())
        .flatten()
        .filter_map(|sm| sm["metrics"].as_array())
        .flatten()
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert!(
        metric_names.contains(&"gen_ai.client.operation.duration"),
        "{metric_names:?}"
    );
}
