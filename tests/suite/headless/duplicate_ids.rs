//! Model output is untrusted: a reply that reuses a tool_use id (within the reply, or one
//! from an earlier turn) must not break the history or crash; the duplicates get fresh ids.

use crate::support;

use serde_json::json;
use support::*;

#[test]
fn reused_tool_use_ids_get_fresh_ones_and_the_history_stays_valid() {
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "get_current_time", json!({}))
            .tool_use("toolu_1", "get_current_time", json!({"timezone": "UTC"}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "get_current_time", json!({}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "time please",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
        "--model",
        "claude-mock",
    ])
    .env("ANTHROPIC_API_KEY", "sk-ant-dup")
    .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.result()["reason"], "completed");
    // Every request was accepted by the mock, which refuses duplicate ids as the API does.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests.iter().all(|r| r.rejected.is_none()),
        "{:?}",
        requests.last().map(|r| &r.rejected)
    );
    let ids: Vec<String> = run
        .of_type("tool_use")
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["toolu_1", "toolu_1_2", "toolu_1_3"]);
    assert_valid_history(run.result());
}
