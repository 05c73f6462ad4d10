//! Steering a running turn in the real TUI (issue 40), at 80x24 against the mock server:
//! text typed while step 1 is still streaming shows "steering · sent with the next request",
//! then joins the request after step 1 and appears in the conversation.

use crate::support;

use serde_json::json;
use support::*;

use super::mock::Screen;

#[test]
fn text_typed_during_a_turn_steers_it_at_80x24() {
    let server = MockServer::start();
    // Step 1: a safe tool call whose reply's end waits for the gate, so the turn is still
    // in step 1 while the user types.
    let gate = Gate::new();
    let mut step1 = tool_reply(&[("toolu_t", "get_current_time", json!({}))]);
    if let Body::Sse { events, .. } = &mut step1.body {
        let last = events.len() - 1;
        events[last] = events[last].clone().gated(&gate);
    }
    server.enqueue(step1);
    server.enqueue(text_reply("Using the other file, then."));
    let Some(s) = Screen::start("steer", 80, 24, &server, &[]) else {
        eprintln!("tmux not installed: skipped");
        return;
    };
    s.wait_text("Enter");
    s.send_line("what time is it");
    s.wait_text("get_current_time");
    s.send_line("use the other file");
    let screen = s.wait_text("steering · sent with the next request");
    assert_eq!(server.accepted().len(), 1, "{screen}");
    gate.open();
    let screen = s.wait_text("Using the other file, then.");
    assert!(screen.contains("use the other file"), "{screen}");
    let requests = server.accepted();
    assert_eq!(requests.len(), 2, "no extra request");
    let last = requests[1].body["messages"]
        .as_array()
        .and_then(|m| m.last().cloned())
        .expect("last message");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][1]["text"], "use the other file");
    assert!(!screen.contains("steering ·"), "the note is gone: {screen}");
}
