//! History invariants (DESIGN.md §4) around thinking, in process through the engine against
//! the API-faithful mock: an abort in the middle of a thinking block, then a tool loop with
//! thinking, then a switch of model, then a compaction and another thinking tool loop.
//! Every message the agent kept passes
//! `validate_history`, no kept assistant message ends in thinking, and the mock accepted
//! every request (it refuses dropped, edited or trailing thinking with the API's wording).

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use serde_json::json;
use tokio::sync::mpsc;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::message::{ContentBlock, Role, validate_history};
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal};
use tooloop::provider::anthropic::AnthropicProvider;

use support::*;

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

fn config(workspace: &Path, server: &MockServer) -> Config {
    let ws = workspace.to_string_lossy().into_owned();
    let base = server.anthropic_base();
    let cli = Cli::try_parse_from([
        "tooloop",
        "--provider",
        "anthropic",
        "--base-url",
        base.as_str(),
        "--workspace",
        ws.as_str(),
        "--approval",
        "yolo",
        "--thinking",
        "2048",
        "--no-session",
    ])
    .expect("cli");
    Config::resolve_with(&cli, &NoEnv, &FileConfig::default()).expect("config")
}

async fn until(
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    stop: impl Fn(&AgentEvent) -> bool,
) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    while let Some(e) = rx.recv().await {
        let done = stop(&e);
        seen.push(e);
        if done {
            return seen;
        }
    }
    panic!("the agent stopped early: {seen:?}");
}

fn done(e: &AgentEvent) -> bool {
    matches!(e, AgentEvent::Done(_))
}

#[tokio::test]
async fn abort_mid_thinking_then_a_thinking_tool_loop_keeps_the_history_valid() {
    let server = MockServer::start();
    let tmp = tempfile::tempdir().expect("tmp");
    // Large enough that the compaction in step 4 takes 30 % off (a short conversation is
    // left as it is).
    let filler = "the quick brown fox jumps over the lazy dog; ".repeat(2) + "\n";
    std::fs::write(
        tmp.path().join("a.txt"),
        format!("hello\n{}", filler.repeat(400)),
    )
    .expect("write");
    let cfg = config(tmp.path(), &server);
    let engine = tooloop::engine::start_with(
        &cfg,
        tooloop::engine::FrontEnd::Headless,
        tooloop::engine::Overrides {
            provider: Some(Arc::new(
                AnthropicProvider::new(&server.anthropic_base(), "test-key".into())
                    .expect("provider"),
            )),
            sessions_dir: None,
            tools: None,
        },
    )
    .expect("engine");
    let mut rx = engine.events;
    let control = engine.control;
    // The mock counts tokens as the API does, so the compaction sees the real size.
    server.set_context_window(200_000);

    // 1. The stream stops (gated) after two thinking deltas; Ctrl+C there.
    let gate = Gate::new();
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Let me think about this for quite a while longer")
            .text("never shown")
            .build()
            .gate_event(5, &gate),
    );
    assert!(control.send(AgentCommand::Submit {
        text: "first".into()
    }));
    until(&mut rx, |e| matches!(e, AgentEvent::ThinkingDelta { .. })).await;
    assert!(control.send(AgentCommand::Abort));
    let events = until(&mut rx, done).await;
    let Some(AgentEvent::Done(summary)) = events.last() else {
        unreachable!()
    };
    assert_eq!(summary.reason, Terminal::AbortedStreaming);
    gate.open();

    // 2. A tool loop with thinking before each tool call, interleaved thinking after the
    //    result, then the answer.
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Read the file first.")
            .tool_use("toolu_1", "read_file", json!({"path": "a.txt"}))
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("It says hello.")
            .redacted_thinking(&support::anthropic_thinking::redacted_data("r1"))
            .text("The file says hello.")
            .build(),
    );
    assert!(control.send(AgentCommand::Submit {
        text: "second".into()
    }));
    let events = until(&mut rx, done).await;
    let Some(AgentEvent::Done(summary)) = events.last() else {
        unreachable!()
    };
    assert_eq!(summary.reason, Terminal::Completed, "{events:?}");

    // 3. Another model for the next prompt: the history still goes back as it was.
    assert!(control.send(AgentCommand::SetModel {
        model: "claude-opus-4-5".into()
    }));
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Short.")
            .text("ok")
            .build(),
    );
    assert!(control.send(AgentCommand::Submit {
        text: "third".into()
    }));
    until(&mut rx, done).await;

    // 4. A compaction (manual, as /compact), then a thinking tool loop on the compacted
    //    history: the summary request and both loop requests are accepted.
    server.enqueue(
        ReplyBuilder::new()
            .text("Summary: the user asked about a.txt; it says hello.")
            .build(),
    );
    assert!(control.send(AgentCommand::Compact { instructions: None }));
    let compacted = until(&mut rx, |e| {
        matches!(
            e,
            AgentEvent::Compacted { .. } | AgentEvent::Error { .. } | AgentEvent::Notice { .. }
        )
    })
    .await;
    assert!(
        matches!(compacted.last(), Some(AgentEvent::Compacted { .. })),
        "{:?}",
        compacted.last()
    );
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Read it again.")
            .tool_use("toolu_2", "read_file", json!({"path": "a.txt"}))
            .build(),
    );
    server.enqueue(
        ReplyBuilder::new()
            .signed_thinking("Still hello.")
            .text("Still hello.")
            .build(),
    );
    assert!(control.send(AgentCommand::Submit {
        text: "fourth".into()
    }));
    let events = until(&mut rx, done).await;
    let Some(AgentEvent::Done(summary)) = events.last() else {
        unreachable!()
    };
    assert_eq!(summary.reason, Terminal::Completed, "{events:?}");

    let agent = control
        .stop(Duration::from_secs(5))
        .await
        .expect("the agent stops");
    let history = agent.history.shared();
    validate_history(history).expect("history invariants");
    for (i, m) in history.iter().enumerate() {
        if m.role == Role::Assistant {
            assert!(
                !matches!(
                    m.content.last(),
                    Some(ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. })
                ),
                "message {i} ends in thinking: {m:?}"
            );
        }
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 7, "one request per reply, none refused");
    assert_eq!(
        server.accepted().len(),
        7,
        "the mock accepted every request"
    );
    // The tool loop's second request carried the thinking back byte for byte, first.
    let loop_req = &requests[2].body;
    let messages = loop_req["messages"].as_array().expect("messages");
    let asked = &messages[messages.len() - 2]["content"];
    assert_eq!(asked[0]["type"], "thinking");
    assert_eq!(asked[0]["thinking"], "Read the file first.");
    assert_eq!(loop_req["thinking"]["budget_tokens"], 2048);
    assert_eq!(requests[3].body["model"], "claude-opus-4-5");
}
