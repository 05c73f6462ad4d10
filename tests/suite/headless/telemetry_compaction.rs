//! Token sums on the spans still equal `result.usage` when automatic compaction spends
//! summary requests in the middle of a run: each summary request is a `chat` span of its
//! own, beside a `compaction` span.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use support::otlp::{Behaviour, Collector};
use support::{MockServer, ReplyBuilder, Tooloop, assert_valid_history, text_reply};

const MODEL: &str = "claude-mock";
const TURNS: usize = 60;

#[test]
fn token_sums_hold_across_automatic_compactions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let notes: String = (0..30)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    std::fs::write(dir.path().join("notes.txt"), notes).expect("notes");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[models.\"{MODEL}\"]\ncontext_window = 20000\nmax_output_tokens = 2048\n\
             price_input = 3.0\nprice_output = 15.0\n"
        ),
    )
    .expect("config");
    let server = MockServer::start();
    server.set_context_window(20_000);
    let work = Arc::new(AtomicUsize::new(0));
    server.respond_with(move |req| {
        // A summary request is the one without tools.
        if req.body.get("tools").is_none() {
            return ReplyBuilder::new()
                .text("Summary: notes.txt was read again and again; keep reading.")
                .usage(900, 40)
                .build();
        }
        let i = work.fetch_add(1, Ordering::SeqCst);
        if i + 1 < TURNS {
            ReplyBuilder::new()
                .tool_use(
                    &format!("toolu_{i:04}"),
                    "read_file",
                    json!({"path": "notes.txt"}),
                )
                .usage(1000 + i as u64, 9)
                .build()
        } else {
            text_reply("done")
        }
    });
    let collector = Collector::start(Behaviour::Accept);
    let base = server.anthropic_base();
    let config = config.to_str().unwrap().to_string();
    let turns = TURNS.to_string();
    let run = Tooloop::new(&[
        "-p",
        "Read notes.txt again and again.",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        MODEL,
        "--output-format",
        "stream-json",
        "--max-tokens",
        "2048",
        "--config",
        &config,
        "--max-turns",
        &turns,
        "--no-session",
    ])
    .env("ANTHROPIC_API_KEY", "sk-ant-telemetry-test")
    .env("TOOLOOP_TELEMETRY", "1")
    .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint())
    .workspace(dir.path())
    .timeout(Duration::from_secs(120))
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let result = run.result();
    assert_valid_history(result);
    let compactions = run.of_type("compact").len();
    assert!(compactions > 0, "the run never compacted");

    let spans = collector.spans();
    assert_eq!(
        spans.iter().filter(|s| s.name == "compaction").count(),
        compactions
    );
    let chats: Vec<_> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat "))
        .collect();
    assert_eq!(
        chats.len(),
        server.requests().len(),
        "one chat span a request"
    );
    let sum = |key: &str| chats.iter().map(|c| c.int(key).unwrap_or(-1)).sum::<i64>();
    let usage = &result["usage"];
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
    // The summaries' own tokens are in both.
    assert!(n("output_tokens") >= (TURNS as i64 - 1) * 9 + compactions as i64 * 40);
}
