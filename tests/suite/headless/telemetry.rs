//! OpenTelemetry export (issue 43) from the real binary, headless, against the validating
//! mock Anthropic server and an OTLP/HTTP collector that decodes with the official schema:
//! spans nest (prompt → request / tool → subagent → its request) under the GenAI names,
//! token sums equal `result.usage`, no prompt text without the switch; nothing at all is
//! sent when telemetry is off; a collector that is down, refuses, stalls or answers garbage,
//! or malformed `OTEL_*` / `TRACEPARENT` values, leave the run as it is without telemetry.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::otlp::{Behaviour, Collector, Span, dead_endpoint};
use support::{MockServer, Recorded, ReplyBuilder, Run, Tooloop, assert_valid_history};

const PROMPT: &str = "SECRET-PROMPT-TEXT: what time is it, and look around";
const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN: &str = "b7ad6b7169203331";

fn first_text(req: &Recorded) -> String {
    match &req.body["messages"][0]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(b) => b.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// Parent: `task` (explore) and `get_current_time` in one reply, then an answer; the child
/// answers at once. Each reply has its own usage.
pub(crate) fn script(server: &MockServer) {
    server.respond_with(|req| {
        let turn = req.body["messages"].as_array().map_or(0, Vec::len);
        if first_text(req).starts_with("child:") {
            return ReplyBuilder::new().text("child report").usage(50, 7).build();
        }
        match turn {
            1 => ReplyBuilder::new()
                .tool_use(
                    "toolu_task",
                    "task",
                    json!({"description": "look", "prompt": "child: look around", "agent": "explore"}),
                )
                .tool_use("toolu_time", "get_current_time", json!({}))
                .usage(100, 20)
                .build(),
            _ => ReplyBuilder::new().text("It is now.").usage(300, 11).build(),
        }
    });
}

pub(crate) fn run(server: &MockServer, env: &[(&str, &str)]) -> Run {
    let base = server.anthropic_base();
    let mut t = Tooloop::new(&[
        "-p",
        PROMPT,
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-mock",
        "--output-format",
        "stream-json",
        "--no-session",
    ])
    .env("ANTHROPIC_API_KEY", "sk-ant-telemetry-test")
    .timeout(Duration::from_secs(60));
    for (k, v) in env {
        t = t.env(k, v);
    }
    t.run()
}

pub(crate) fn on(collector_endpoint: &str) -> Vec<(&'static str, String)> {
    vec![
        ("TOOLOOP_TELEMETRY", "1".into()),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", collector_endpoint.into()),
    ]
}

/// The notices of a run (stream-json's `notice` lines) that contain `needle`.
pub(crate) fn notices(run: &Run, needle: &str) -> usize {
    run.of_type("notice")
        .iter()
        .filter(|l| l["text"].as_str().unwrap_or_default().contains(needle))
        .count()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn one<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    let found: Vec<&Span> = spans.iter().filter(|s| s.name == name).collect();
    assert_eq!(found.len(), 1, "one {name:?} in {:?}", names(spans));
    found[0]
}

pub(crate) fn names(spans: &[Span]) -> Vec<String> {
    spans.iter().map(|s| s.name.clone()).collect()
}

pub(crate) fn as_env<'a>(v: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    v.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn spans_nest_under_the_callers_trace_with_the_genai_names_and_the_usage_adds_up() {
    let collector = Collector::start(Behaviour::Accept);
    let server = MockServer::start();
    script(&server);
    let mut env = on(&collector.endpoint());
    env.push(("TRACEPARENT", format!("00-{TRACE_ID}-{PARENT_SPAN}-01")));
    let run = run(&server, &as_env(&env));
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_valid_history(run.result());
    assert!(
        collector.undecodable().is_empty(),
        "{:?}",
        collector.undecodable()
    );
    assert_eq!(notices(&run, "telemetry"), 0, "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);

    let spans = collector.spans();
    let root = one(&spans, "invoke_agent tooloop");
    assert_eq!(hex(&root.trace_id), TRACE_ID, "the caller's trace");
    assert_eq!(hex(&root.parent_span_id), PARENT_SPAN, "the caller's span");
    assert!(
        spans.iter().all(|s| hex(&s.trace_id) == TRACE_ID),
        "one trace"
    );
    assert_eq!(
        root.str("gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(root.str("gen_ai.agent.name").as_deref(), Some("tooloop"));
    assert_eq!(
        root.str("gen_ai.provider.name").as_deref(),
        Some("anthropic")
    );
    assert_eq!(
        root.str("tooloop.terminal_reason").as_deref(),
        Some("completed")
    );
    assert!(
        root.resource
            .get("service.name")
            .is_some_and(|v| format!("{v:?}").contains("\"tooloop\"")),
        "{:?}",
        root.resource
    );

    // The prompt's two requests and two tools sit directly under it.
    let chats: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "chat claude-mock")
        .collect();
    let top_chats: Vec<&&Span> = chats
        .iter()
        .filter(|s| s.parent_span_id == root.span_id)
        .collect();
    assert_eq!(top_chats.len(), 2, "{:?}", names(&spans));
    for c in &chats {
        assert_eq!(c.str("gen_ai.operation.name").as_deref(), Some("chat"));
        assert_eq!(
            c.str("gen_ai.request.model").as_deref(),
            Some("claude-mock")
        );
        assert_eq!(c.str("server.address").as_deref(), Some("127.0.0.1"));
        assert!(c.int("server.port").is_some_and(|p| p > 0));
        assert!(
            c.double("gen_ai.response.time_to_first_chunk")
                .is_some_and(|t| t >= 0.0)
        );
        assert!(c.str("gen_ai.response.finish_reasons").is_some());
        assert_eq!(c.kind, 3, "SPAN_KIND_CLIENT");
        assert!(c.end_ns >= c.start_ns);
    }
    let task = one(&spans, "execute_tool task");
    let time = one(&spans, "execute_tool get_current_time");
    for (tool, id) in [(task, "toolu_task"), (time, "toolu_time")] {
        assert_eq!(tool.parent_span_id, root.span_id);
        assert_eq!(
            tool.str("gen_ai.operation.name").as_deref(),
            Some("execute_tool")
        );
        assert_eq!(tool.str("gen_ai.tool.call.id").as_deref(), Some(id));
        assert_eq!(tool.str("tooloop.tool.outcome").as_deref(), Some("ok"));
        assert!(
            tool.str("tooloop.tool.decision").is_some(),
            "{:?}",
            tool.attrs
        );
        assert!(tool.str("gen_ai.tool.call.arguments").is_none());
        assert!(tool.str("gen_ai.tool.call.result").is_none());
    }
    // The subagent under its task call, its request under it.
    let child = one(&spans, "invoke_agent explore");
    assert_eq!(child.parent_span_id, task.span_id);
    assert_eq!(child.str("gen_ai.agent.name").as_deref(), Some("explore"));
    let child_chats: Vec<&&Span> = chats
        .iter()
        .filter(|s| s.parent_span_id == child.span_id)
        .collect();
    assert_eq!(child_chats.len(), 1);
    assert_eq!(chats.len(), 3);

    // Token sums over the requests equal the result's (input counts cached tokens, as the
    // conventions say).
    let usage = &run.result()["usage"];
    let sum = |key: &str| chats.iter().map(|c| c.int(key).unwrap_or(-1)).sum::<i64>();
    let n = |key: &str| usage[key].as_i64().unwrap_or(0);
    assert_eq!(
        sum("gen_ai.usage.output_tokens"),
        n("output_tokens"),
        "{usage}"
    );
    assert_eq!(
        sum("gen_ai.usage.input_tokens"),
        n("input_tokens") + n("cache_read_tokens") + n("cache_write_tokens"),
        "{usage}"
    );
    assert_eq!(sum("gen_ai.usage.output_tokens"), 20 + 7 + 11);
    assert_eq!(root.int("gen_ai.usage.output_tokens"), Some(38));

    // No content without the switches: not the prompt, not the model's text.
    let everything = format!("{:?}", spans.iter().map(|s| &s.attrs).collect::<Vec<_>>());
    assert!(!everything.contains("SECRET-PROMPT-TEXT"));
    assert!(!everything.contains("It is now"));
    assert!(!everything.contains("sk-ant-telemetry-test"));

    // Metrics: the conventions' instruments with their buckets, and tooloop's own.
    let metrics = collector.metrics();
    let metric = |name: &str| {
        metrics.iter().find(|m| m.name == name).unwrap_or_else(|| {
            panic!(
                "{name} in {:?}",
                metrics.iter().map(|m| &m.name).collect::<Vec<_>>()
            )
        })
    };
    use opentelemetry_proto::tonic::metrics::v1::metric::Data;
    let Some(Data::Histogram(tokens)) = &metric("gen_ai.client.token.usage").data else {
        panic!("token usage is a histogram");
    };
    let bounds = &tokens.data_points[0].explicit_bounds;
    assert_eq!(bounds.first(), Some(&1.0));
    assert_eq!(bounds.last(), Some(&67108864.0));
    let recorded: f64 = tokens
        .data_points
        .iter()
        .map(|p| p.sum.unwrap_or(0.0))
        .sum();
    assert_eq!(
        recorded as i64,
        sum("gen_ai.usage.output_tokens") + sum("gen_ai.usage.input_tokens")
    );
    let Some(Data::Histogram(duration)) = &metric("gen_ai.client.operation.duration").data else {
        panic!("duration is a histogram");
    };
    assert_eq!(duration.data_points[0].explicit_bounds.first(), Some(&0.01));
    assert_eq!(duration.data_points[0].explicit_bounds.last(), Some(&81.92));
    assert_eq!(metric("gen_ai.client.token.usage").unit, "{token}");
    assert_eq!(metric("gen_ai.client.operation.duration").unit, "s");
    let Some(Data::Sum(calls)) = &metric("tooloop.tool.calls").data else {
        panic!("tool calls is a sum");
    };
    let total: i64 = calls
        .data_points
        .iter()
        .map(|p| match p.value {
            Some(opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(n)) => n,
            _ => 0,
        })
        .sum();
    assert_eq!(total, 2, "task and get_current_time");
}

/// A run whose config file is `config_text` (telemetry turned on there), exporting to
/// `collector`; the workspace is returned so what the run wrote can be read.
fn with_config(
    server: &MockServer,
    collector: &Collector,
    config_text: &str,
) -> (Run, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text).unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let run =
        support::headless_with_config(server, PROMPT, &config, workspace.path(), &["--no-session"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint())
            .run();
    (run, workspace)
}

#[test]
fn the_switches_put_prompts_and_tool_content_on_the_spans() {
    let collector = Collector::start(Behaviour::Accept);
    let server = MockServer::start();
    script(&server);
    // The user's config turns it on (no TOOLOOP_TELEMETRY here).
    let (run, _workspace) = with_config(
        &server,
        &collector,
        "[telemetry]\nenabled = true\nlog_prompts = true\nlog_tool_content = true\n",
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let spans = collector.spans();
    let root = one(&spans, "invoke_agent tooloop");
    assert!(
        root.str("gen_ai.input.messages")
            .unwrap_or_default()
            .contains("SECRET-PROMPT-TEXT")
    );
    assert!(
        root.str("gen_ai.output.messages")
            .unwrap_or_default()
            .contains("It is now.")
    );
    let time = one(&spans, "execute_tool get_current_time");
    assert_eq!(
        time.str("gen_ai.tool.call.arguments").as_deref(),
        Some("{}")
    );
    assert!(
        time.str("gen_ai.tool.call.result")
            .is_some_and(|r| !r.is_empty())
    );
}

#[test]
fn nothing_is_exported_when_telemetry_is_off() {
    let collector = Collector::start(Behaviour::Accept);
    let server = MockServer::start();
    script(&server);
    // Everything a collector needs is there, except the switch.
    let endpoint = collector.endpoint();
    let run = run(
        &server,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            ("TOOLOOP_TELEMETRY_LOG_PROMPTS", "1"),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(collector.connections(), 0, "no connection at all");
    // And off beats on: the variable says 0 over a config that says true.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[telemetry]\nenabled = true\n").unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let run =
        support::headless_with_config(&server, "hi", &config, workspace.path(), &["--no-session"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
            .env("TOOLOOP_TELEMETRY", "0")
            .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(collector.connections(), 0, "no connection at all");
}

/// Whole-process time of a run of the script.
fn timed(server: &MockServer, env: &[(&str, &str)]) -> (Run, Duration) {
    let started = Instant::now();
    let run = run(server, env);
    (run, started.elapsed())
}

#[test]
fn a_collector_that_is_down_refuses_stalls_or_answers_garbage_changes_nothing() {
    let server = MockServer::start();
    script(&server);
    let (baseline, off) = timed(&server, &[]);
    assert_eq!(baseline.code, Some(0));
    let expected = baseline.result()["text"].clone();
    let collectors = [
        (None, "down"),
        (Some(Collector::start(Behaviour::Refuse)), "refusing"),
        (Some(Collector::start(Behaviour::Stall)), "stalled"),
        (Some(Collector::start(Behaviour::Garbage)), "garbage"),
    ];
    for (collector, what) in &collectors {
        let endpoint = collector
            .as_ref()
            .map_or_else(dead_endpoint, Collector::endpoint);
        let env = on(&endpoint);
        let (run, took) = timed(&server, &as_env(&env));
        assert_eq!(run.code, Some(0), "{what}: {}", run.stderr);
        assert_valid_history(run.result());
        assert_eq!(run.result()["text"], expected, "{what}");
        assert_eq!(notices(&run, "telemetry"), 0, "{what}: {}", run.stdout);
        assert!(run.stderr.is_empty(), "{what}: {}", run.stderr);
        // The exit waits one second at most for the last export: a stalled collector
        // uses all of it; one that is down or refusing costs the two short retries
        // (~200 ms). The rest is slack for the SDK's start on a loaded machine.
        let limit = if *what == "stalled" { 1800 } else { 900 };
        assert!(
            took < off + Duration::from_millis(limit),
            "{what}: {took:?} with telemetry, {off:?} without"
        );
    }
}

#[test]
fn malformed_settings_are_one_notice_and_the_session_runs() {
    let collector = Collector::start(Behaviour::Accept);
    let server = MockServer::start();
    script(&server);
    let endpoint = collector.endpoint();
    let cases: [(&str, &str, &str); 4] = [
        (
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "carrier-pigeon",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
        ),
        (
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "-*/ not a url",
            "telemetry is off",
        ),
        ("TRACEPARENT", "00-not-a-trace-01", "TRACEPARENT"),
        ("OTEL_TRACES_EXPORTER", "zipkin", "OTEL_TRACES_EXPORTER"),
    ];
    for (key, value, said) in cases {
        let mut env = vec![
            ("TOOLOOP_TELEMETRY", "1"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ];
        env.retain(|(k, _)| *k != key);
        env.push((key, value));
        let run = run(&server, &env);
        assert_eq!(run.code, Some(0), "{key}={value}: {}", run.stderr);
        assert_valid_history(run.result());
        let all: Vec<&Value> = run.of_type("notice");
        assert_eq!(notices(&run, said), 1, "{key}={value}: {all:?}");
        assert_eq!(all.len(), 1, "one notice at most: {all:?}");
        assert!(run.stderr.is_empty(), "{key}={value}: {}", run.stderr);
    }
    // The bad TRACEPARENT run still exported, as a trace of its own.
    let roots: Vec<Span> = collector
        .spans()
        .into_iter()
        .filter(|s| s.name == "invoke_agent tooloop")
        .collect();
    assert!(
        roots.iter().any(|r| r.parent_span_id.is_empty()),
        "{roots:?}"
    );
}

#[test]
fn hooks_receive_the_prompts_trace_context() {
    let collector = Collector::start(Behaviour::Accept);
    let server = MockServer::start();
    script(&server);
    let (run, workspace) = with_config(
        &server,
        &collector,
        "[telemetry]\nenabled = true\n\n[[hooks.pre_tool_use]]\nmatcher = \"get_current_time\"\n\
         command = \"printf '%s' \\\"$TRACEPARENT\\\" > traceparent.txt\"\n",
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let seen = std::fs::read_to_string(workspace.path().join("traceparent.txt")).unwrap();
    let spans = collector.spans();
    let root = one(&spans, "invoke_agent tooloop");
    assert_eq!(
        seen,
        format!("00-{}-{}-01", hex(&root.trace_id), hex(&root.span_id))
    );
    let hook = one(&spans, "execute_hook pre_tool_use");
    assert_eq!(hook.parent_span_id, root.span_id);
}
