//! An approved plan survives compaction by construction (issue 28): in plan mode the model
//! hands its plan over with `exit_plan_mode`, the user approves it (as the TUI's box does),
//! and `/compact` — with a summary that forgets everything — carries the plan into the
//! state block of the new context. A plan the user sent back is not carried: it was never
//! approved.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tooloop::engine::FrontEnd;
use tooloop::message::validate_history;
use tooloop::protocol::approval::Decision;
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal};
use tooloop::provider::anthropic::AnthropicProvider;

use support::compaction::*;
use support::*;

const PLAN: &str =
    "# Plan\n\n1. Rename `a` to `alpha` in src/lib.rs\n2. 运行测试 and fix what fails";
const FORGETFUL: &str = "Some work happened.";

/// Plan mode, interactive, over the mock; the model's replies are queued by the caller.
fn plan_engine(server: &MockServer, tmp: &tempfile::TempDir) -> tooloop::engine::Engine {
    // The mock counts tokens as the API does (else it reports 10 per request).
    server.set_context_window(200_000);
    server.enable_prompt_cache();
    let provider =
        AnthropicProvider::new(&server.anthropic_base(), "test-key".into()).expect("provider");
    engine_in_mode(
        tmp.path(),
        Arc::new(provider),
        200_000,
        "",
        "plan",
        FrontEnd::Interactive,
    )
}

/// Sends `prompt`, answers the plan box with `decision`, waits for the end of the turn.
async fn plan_turn(
    control: &tooloop::engine::Control,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    prompt: &str,
    decision: Decision,
) {
    assert!(control.send(AgentCommand::Submit {
        text: prompt.into()
    }));
    let asked = until(rx, |e| matches!(e, AgentEvent::PermissionRequest { .. })).await;
    let Some(AgentEvent::PermissionRequest { id, tool, .. }) = asked.last() else {
        unreachable!()
    };
    assert_eq!(tool, "exit_plan_mode");
    assert!(control.send(AgentCommand::PermissionReply {
        id: id.clone(),
        decision,
    }));
    let events = until(rx, done).await;
    let Some(AgentEvent::Done(summary)) = events.last() else {
        unreachable!()
    };
    assert_eq!(summary.reason, Terminal::Completed, "{:?}", summary.error);
}

async fn compact(
    control: &tooloop::engine::Control,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
) -> String {
    assert!(control.send(AgentCommand::Compact { instructions: None }));
    let events = until(rx, |e| {
        matches!(
            e,
            AgentEvent::Compacted { .. } | AgentEvent::Notice { .. } | AgentEvent::Error { .. }
        )
    })
    .await;
    match events.into_iter().last() {
        Some(AgentEvent::Compacted { info, .. }) => info.state,
        other => panic!("expected a compaction, got {other:?}"),
    }
}

/// A prompt answered by 24 reads of big.txt: enough conversation for `/compact` to have
/// something to replace (read-only, so plan mode runs it too).
async fn read_a_while(
    server: &MockServer,
    control: &tooloop::engine::Control,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    tag: &str,
) {
    for i in 0..24 {
        server.enqueue(
            ReplyBuilder::new()
                .text("Reading.")
                .tool_use(
                    &format!("toolu_{tag}{i}"),
                    "read_file",
                    json!({"path": "big.txt"}),
                )
                .build(),
        );
    }
    server.enqueue(text_reply("Read."));
    assert!(control.send(AgentCommand::Submit {
        text: "Read big.txt a few times.".into()
    }));
    until(rx, done).await;
}

fn plan_reply(id: &str, plan: &str) -> Reply {
    ReplyBuilder::new()
        .text("Here is my plan.")
        .tool_use(id, "exit_plan_mode", json!({ "plan": plan }))
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_plan_is_in_the_state_block_after_compaction() {
    let server = MockServer::start();
    server.enqueue(plan_reply("toolu_plan", PLAN));
    server.enqueue(text_reply("Starting on step 1."));
    let tmp = workspace();
    let engine = plan_engine(&server, &tmp);
    let mut rx = engine.events;
    let control = engine.control;

    plan_turn(
        &control,
        &mut rx,
        "Plan the rename first.",
        Decision::ApprovePlan {
            mode: ApprovalMode::Yolo,
        },
    )
    .await;
    read_a_while(&server, &control, &mut rx, "r").await;
    server.enqueue(text_reply(FORGETFUL));
    let state = compact(&control, &mut rx).await;
    assert!(
        state.contains(&format!("## Approved plan\n{PLAN}")),
        "the approved plan is carried over:\n{state}"
    );
    assert!(state.contains("## Approval mode\nyolo"), "{state}");

    // The request after the compaction carries it, though the summary forgot everything.
    server.enqueue(text_reply("On it."));
    assert!(control.send(AgentCommand::Submit {
        text: "Go on.".into()
    }));
    until(&mut rx, done).await;
    let last = server.requests().last().expect("a request").body.clone();
    let t = texts(&last);
    assert!(t.contains(FORGETFUL), "{t}");
    assert!(t.contains(PLAN), "the plan is in the new context:\n{t}");
    for (i, r) in server.requests().iter().enumerate() {
        assert!(r.rejected.is_none(), "request {i}: {:?}", r.rejected);
    }
    let agent = control.stop(Duration::from_secs(5)).await.expect("stops");
    validate_history(agent.history.shared()).expect("history invariants");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_sent_back_is_not_carried_but_the_next_approved_one_is() {
    let server = MockServer::start();
    let first = "# Plan\n\n1. Delete everything";
    server.enqueue(plan_reply("toolu_p1", first));
    server.enqueue(text_reply("I will keep planning."));
    let tmp = workspace();
    let engine = plan_engine(&server, &tmp);
    let mut rx = engine.events;
    let control = engine.control;

    plan_turn(
        &control,
        &mut rx,
        "Plan it.",
        Decision::Deny {
            reason: Some("too drastic".into()),
        },
    )
    .await;
    read_a_while(&server, &control, &mut rx, "a").await;
    server.enqueue(text_reply(FORGETFUL));
    let state = compact(&control, &mut rx).await;
    assert!(
        !state.contains("## Approved plan"),
        "a refused plan is no approved plan:\n{state}"
    );
    assert!(state.contains("## Approval mode\nplan"), "{state}");

    server.enqueue(plan_reply("toolu_p2", PLAN));
    server.enqueue(text_reply("Starting."));
    plan_turn(
        &control,
        &mut rx,
        "Plan it again, gently.",
        Decision::ApprovePlan {
            mode: ApprovalMode::AutoEdit,
        },
    )
    .await;
    server.enqueue(text_reply(FORGETFUL));
    let state = compact(&control, &mut rx).await;
    assert!(
        state.contains(&format!("## Approved plan\n{PLAN}")),
        "{state}"
    );
    assert!(!state.contains("Delete everything"), "{state}");
    let agent = control.stop(Duration::from_secs(5)).await.expect("stops");
    validate_history(agent.history.shared()).expect("history invariants");
}
