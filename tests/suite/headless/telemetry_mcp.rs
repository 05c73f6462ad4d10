//! Issue 43's "tooloop passes its own context to the MCP servers it starts": an MCP server
//! starts before any prompt, so each `tools/call` carries the W3C trace context in its
//! request's `params._meta.traceparent` (the MCP trace-context convention). The real binary,
//! headless, against the mock model, the real fixture server (which logs the `_meta` it got)
//! and the OTLP collector; with telemetry off, no traceparent reaches the server.

use crate::support;

use std::path::Path;

use serde_json::json;
use support::otlp::{Behaviour, Collector};
use support::{MockServer, ReplyBuilder, assert_valid_history, mcp_fixture};

const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";

/// The model calls the fixture's read-only `slow_read` once, then answers.
fn script(server: &MockServer) {
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_mcp", "mcp__fx__slow_read", json!({"ms": 10}))
            .usage(20, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("read it").usage(30, 4).build());
}

/// A config with the fixture as server `fx`, its calls logged to `log`.
fn config(dir: &Path, log: &Path, telemetry: bool) -> std::path::PathBuf {
    let text = format!(
        "[telemetry]\nenabled = {telemetry}\n\n[mcp.servers.fx]\ncommand = {:?}\n\
         env = {{ MCP_FIXTURE_LOG = {:?} }}\n",
        mcp_fixture().display().to_string(),
        log.display().to_string(),
    );
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The `_meta.traceparent` values the fixture saw for `slow_read` ("none" when absent).
fn seen(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("traceparent slow_read "))
        .map(str::to_string)
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn an_mcp_tool_call_carries_its_span_as_meta_traceparent() {
    let collector = Collector::start(Behaviour::Accept);
    let server = MockServer::start();
    script(&server);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fixture.log");
    let config = config(dir.path(), &log, true);
    let workspace = tempfile::tempdir().unwrap();
    let run = support::headless_with_config(
        &server,
        "read with the server",
        &config,
        workspace.path(),
        &["--no-session"],
    )
    .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint())
    // The caller's trace: tooloop's spans, and so the MCP call, belong to it.
    .env("TRACEPARENT", &format!("00-{TRACE_ID}-b7ad6b7169203331-01"))
    .run();
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_valid_history(run.result());
    let seen = seen(&log);
    assert_eq!(seen.len(), 1, "one call: {seen:?}");
    let parts: Vec<&str> = seen[0].split('-').collect();
    assert_eq!(parts.len(), 4, "a W3C traceparent: {:?}", seen[0]);
    assert_eq!((parts[0], parts[3]), ("00", "01"), "{:?}", seen[0]);
    assert_eq!(parts[1], TRACE_ID);
    let spans = collector.spans();
    let mut parent: Vec<&str> = spans
        .iter()
        .filter(|s| hex(&s.span_id) == parts[2])
        .map(|s| {
            assert_eq!(hex(&s.trace_id), parts[1]);
            s.name.as_str()
        })
        .collect();
    parent.dedup();
    // The call's own `execute_tool` span, even for a read-only call that starts mid-stream
    // (its span id is minted from the call id, so the request never waits for telemetry).
    assert!(
        parent == ["execute_tool mcp__fx__slow_read"],
        "the traceparent's span {} among {:?}",
        parts[2],
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
}

#[test]
fn with_telemetry_off_an_mcp_tool_call_carries_no_traceparent() {
    let server = MockServer::start();
    script(&server);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fixture.log");
    let config = config(dir.path(), &log, false);
    let workspace = tempfile::tempdir().unwrap();
    let run = support::headless_with_config(
        &server,
        "read with the server",
        &config,
        workspace.path(),
        &["--no-session"],
    )
    // An inherited TRACEPARENT does not turn telemetry on, nor reach the request.
    .env("TRACEPARENT", &format!("00-{TRACE_ID}-b7ad6b7169203331-01"))
    .run();
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_valid_history(run.result());
    assert_eq!(seen(&log), ["none"]);
}
