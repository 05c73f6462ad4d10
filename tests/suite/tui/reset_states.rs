//! A history reset that brings back calls the screen already showed (a rewind, /undo, /fork
//! then rewind) keeps how they ended: a cancelled call stays cancelled, a denied one denied,
//! each with its duration, even when the reset carries no timings for them (issue 29).

use crate::support;

use serde_json::json;
use support::tui::*;
use tokio::time::Instant;
use tooloop::message::{ContentBlock, Message};
use tooloop::protocol::{AgentEvent, Terminal, ToolOutcome};
use tooloop::tui::tool_calls::ToolState;

fn call(id: &str, command: &str) -> ContentBlock {
    ContentBlock::ToolUse {
        id: id.into(),
        name: "bash".into(),
        input: json!({"command": command}),
    }
}

#[tokio::test(start_paused = true)]
async fn cancelled_and_denied_calls_keep_their_state_through_a_reset() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    let (sleep, rm) = (json!({"command": "sleep 9"}), json!({"command": "rm x"}));
    app.on_agent(tool_use("c1", "bash", sleep), now);
    app.on_agent(tool_use("d1", "bash", rm.clone()), now);
    app.on_agent(permission_request("d1", "bash", rm), now);
    app.on_agent(
        AgentEvent::Permission {
            id: "d1".into(),
            name: "bash".into(),
            allowed: false,
            rule: None,
        },
        now,
    );
    app.on_agent(
        tool_end("d1", "bash", ToolOutcome::Error, 0, "The user declined"),
        now,
    );
    app.on_agent(
        tool_end("c1", "bash", ToolOutcome::Cancelled, 1500, "cancelled"),
        now,
    );
    app.on_agent(done(Terminal::AbortedTools), now);
    let state = |app: &tooloop::tui::app::App, id: &str| {
        app.panes
            .tool_calls
            .get(id)
            .map(|c| (c.state, c.duration_ms))
    };
    assert_eq!(state(&app, "c1"), Some((ToolState::Cancelled, Some(1500))));
    assert_eq!(state(&app, "d1").map(|s| s.0), Some(ToolState::Denied));

    // What a rewind to before a later prompt sends: the same calls, their results errors.
    let history = vec![
        Message::user_text("clean up"),
        Message::assistant(vec![call("c1", "sleep 9"), call("d1", "rm x")]),
        Message::user(vec![
            ContentBlock::tool_result("c1", "cancelled", true),
            ContentBlock::tool_result("d1", "The user declined", true),
        ]),
    ];
    app.on_agent(history_reset(history), now);
    assert_eq!(state(&app, "c1"), Some((ToolState::Cancelled, Some(1500))));
    assert_eq!(state(&app, "d1").map(|s| s.0), Some(ToolState::Denied));
    let screen = render_text(&mut app, 100, 30, now);
    assert!(screen.contains("cancelled"), "{screen}");
    assert!(screen.contains("denied"), "{screen}");
    assert!(!screen.contains(" error"), "{screen}");
}
