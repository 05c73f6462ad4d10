//! The history is shared, not copied: the front end gets the agent's own messages, and each
//! request is encoded once — the bytes the provider sends are the bytes the JSON pane gets.

use crate::support;

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use support::harness::harness;
use tooloop::cli::ToolExec;
use tooloop::protocol::{AgentEvent, Terminal};
use tooloop::provider::scripted::ReplyBuilder;

#[tokio::test(start_paused = true)]
async fn messages_and_request_bodies_are_shared_not_copied() {
    let tool = |id: &str| {
        ReplyBuilder::new()
            .text(0, "looking")
            .tool(0, 5, id, "wait", json!({"tag": id}))
            .end(10, "tool_use")
    };
    let replies = vec![
        tool("t1"),
        tool("t2"),
        ReplyBuilder::new().text(5, "done").end(10, "end_turn"),
    ];
    let mut h = harness(replies, &[("wait", true, 5)], ToolExec::Streaming);
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(s.reason, Terminal::Completed);
    h.settle().await;
    h.assert_valid();

    let events = h.events();
    // Every appended message reached the front end as the history's own allocation.
    for (_, e) in &events {
        if let AgentEvent::Message { index, message } = e {
            assert!(
                Arc::ptr_eq(message, &h.agent.history[*index]),
                "message {index} was copied"
            );
        }
    }
    // One encoding per request: the front end's body is the very buffer that was sent.
    let shown: Vec<_> = events
        .iter()
        .filter_map(|(_, e)| match e {
            AgentEvent::RequestStart { body, .. } => Some(body.clone()),
            _ => None,
        })
        .collect();
    let sent = h.provider.bodies();
    assert_eq!(shown.len(), 3);
    assert_eq!(sent.len(), 3);
    let requests = h.provider.requests();
    for (i, (shown, sent)) in shown.iter().zip(&sent).enumerate() {
        assert_eq!(
            shown.bytes().as_ptr(),
            sent.as_ptr(),
            "the body was encoded twice"
        );
        let messages = shown.json()["messages"].as_array().map(Vec::len);
        assert_eq!(messages, Some(requests[i].len()));
    }
    // Byte-stable: each request's body starts with the previous one's, up to its messages.
    for pair in sent.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let open = a.len() - 2; // without the closing "]}"
        assert_eq!(
            &a[..open],
            &b[..open],
            "a later body rewrote an earlier part"
        );
    }
}
