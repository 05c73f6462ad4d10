//! The query loop's paths: follow-up, max_turns, max_tokens recovery, retries before the
//! first byte, failures mid-stream, model fallback. Every test checks the invariants.

use crate::support;

use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use support::harness::harness;
use tooloop::agent::query_loop::MAX_TOKENS_RESUME;
use tooloop::cli::ToolExec;
use tooloop::message::ContentBlock;
use tooloop::protocol::{AgentEvent, Terminal, Transition};
use tooloop::provider::ProviderError;
use tooloop::provider::scripted::{Reply, ReplyBuilder};

fn http(status: u16, kind: &str, retry_after: Option<Duration>) -> ProviderError {
    ProviderError::Http {
        status,
        error_type: Some(kind.into()),
        message: format!("{kind} message"),
        retry_after,
        should_retry: None,
        body: String::new(),
    }
}

fn tool_reply(id: &str) -> Reply {
    ReplyBuilder::new()
        .tool(0, 10, id, "wait", json!({"tag": id}))
        .end(20, "tool_use")
}

fn text_reply(text: &str) -> Reply {
    ReplyBuilder::new().text(5, text).end(10, "end_turn")
}

#[tokio::test(start_paused = true)]
async fn follow_up_comes_from_tool_use_blocks_not_stop_reason() {
    let replies = vec![
        ReplyBuilder::new()
            .text(0, "checking")
            .tool(0, 10, "t1", "wait", json!({"tag": "a"}))
            .end(20, "end_turn"),
        text_reply("done"),
    ];
    let mut h = harness(replies, &[("wait", true, 10)], ToolExec::Streaming);
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(s.reason, Terminal::Completed);
    assert_eq!(s.turns, 2);
    assert_eq!(s.transitions, vec![Transition::NextTurn]);
    assert_eq!(s.text, "done");
    // The whole history is sent each turn, all blocks of the assistant message kept.
    let second = &h.provider.requests()[1];
    assert_eq!(second.len(), 3);
    assert_eq!(second[1].content.len(), 2);
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn max_turns_stops_with_a_visible_notice() {
    let replies = vec![tool_reply("t1"), tool_reply("t2"), tool_reply("t3")];
    let mut h = harness(replies, &[("wait", true, 10)], ToolExec::Streaming);
    h.agent.settings.max_turns = 2;
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::MaxTurns);
    assert_eq!(s.turns, 2);
    assert_eq!(h.provider.requests().len(), 2);
    assert!(h.events().iter().any(|(_, e)| matches!(e,
        AgentEvent::Notice { text } if text.contains("Stopped after 2 turns"))));
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn max_tokens_drops_a_truncated_tool_use_and_resumes() {
    // A tool_use whose JSON was cut by the limit.
    let cut = || {
        ReplyBuilder::new()
            .text(0, "part one")
            .raw_tool(0, 0, "cut", "wait", "{\"ta")
            .end(10, "max_tokens")
    };
    let mut h = harness(
        vec![cut(), text_reply("part two")],
        &[("wait", true, 10)],
        ToolExec::Streaming,
    );
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(s.reason, Terminal::Completed);
    assert_eq!(s.transitions, vec![Transition::MaxTokensRecovery]);
    assert_eq!(
        h.agent.history[1].content,
        vec![ContentBlock::text("part one")]
    );
    assert_eq!(
        h.agent.history[2].content,
        vec![ContentBlock::text(MAX_TOKENS_RESUME)]
    );
    h.assert_valid();

    let mut h = harness(
        vec![cut(), cut(), cut(), cut()],
        &[("wait", true, 10)],
        ToolExec::Streaming,
    );
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(s.reason, Terminal::MaxOutputTokens);
    assert_eq!(h.provider.requests().len(), 4);
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn invalid_tool_json_is_answered_with_an_error_the_model_can_act_on() {
    let steps = ReplyBuilder::new()
        .raw_tool(0, 0, "bad", "wait", "{not json")
        .end(10, "tool_use");
    let mut h = harness(
        vec![steps, text_reply("ok")],
        &[("wait", true, 10)],
        ToolExec::Streaming,
    );
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(s.reason, Terminal::Completed);
    match &h.agent.history[2].content[0] {
        ContentBlock::ToolResult {
            content,
            is_error: true,
            ..
        } => {
            assert!(
                content.contains("not valid JSON") && content.contains("{not json"),
                "{content}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(h.runs.lock().expect("runs").is_empty());
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn retries_before_the_first_byte_honour_retry_after() {
    let replies = vec![
        Reply::Fail(
            Duration::ZERO,
            http(529, "overloaded_error", Some(Duration::from_millis(250))),
        ),
        Reply::Fail(
            Duration::ZERO,
            http(429, "rate_limit_error", Some(Duration::from_millis(400))),
        ),
        text_reply("finally"),
    ];
    let mut h = harness(replies, &[], ToolExec::Streaming);
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::Completed);
    assert_eq!(h.request_times(), vec![0, 250, 650]);
    let retries: Vec<(u32, u64)> = h
        .events()
        .iter()
        .filter_map(|(_, e)| match e {
            AgentEvent::Retry {
                attempt, delay_ms, ..
            } => Some((*attempt, *delay_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(retries, vec![(2, 250), (3, 400)]);
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn backoff_grows_without_retry_after() {
    let replies = vec![
        Reply::Fail(Duration::ZERO, http(503, "api_error", None)),
        Reply::Fail(Duration::ZERO, http(503, "api_error", None)),
        Reply::Fail(Duration::ZERO, http(503, "api_error", None)),
        text_reply("ok"),
    ];
    let mut h = harness(replies, &[], ToolExec::Streaming);
    h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    let t = h.request_times();
    let gaps: Vec<u64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps.len(), 3);
    assert!((500..=625).contains(&gaps[0]), "{gaps:?}");
    assert!((1000..=1250).contains(&gaps[1]), "{gaps:?}");
    assert!((2000..=2500).contains(&gaps[2]), "{gaps:?}");
}

/// A constant HTTP 500: each retry says which of how many (issue #41 item 10): the front
/// ends number them "retry 3 of 7" from the event alone.
#[tokio::test(start_paused = true)]
async fn each_retry_says_how_many_attempts_there_are_in_all() {
    let replies = (0..8)
        .map(|_| Reply::Fail(Duration::ZERO, http(500, "api_error", None)))
        .collect();
    let mut h = harness(replies, &[], ToolExec::Streaming);
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::ModelError);
    let retries: Vec<(u32, u32)> = h
        .events()
        .iter()
        .filter_map(|(_, e)| match e {
            AgentEvent::Retry {
                attempt,
                max_attempts,
                ..
            } => Some((*attempt, *max_attempts)),
            _ => None,
        })
        .collect();
    assert_eq!(retries, (2..=8).map(|a| (a, 8)).collect::<Vec<_>>());
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn auth_and_bad_request_errors_are_not_retried() {
    for (status, kind, want) in [
        (401, "authentication_error", "API key"),
        (
            400,
            "invalid_request_error",
            "invalid_request_error message",
        ),
    ] {
        let mut h = harness(
            vec![Reply::Fail(Duration::ZERO, http(status, kind, None))],
            &[],
            ToolExec::Streaming,
        );
        let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
        assert_eq!(s.reason, Terminal::ModelError);
        assert!(
            s.error.as_deref().unwrap_or("").contains(want),
            "{:?}",
            s.error
        );
        assert_eq!(h.provider.requests().len(), 1);
        h.assert_valid();
    }
    let mut h = harness(
        vec![Reply::Fail(
            Duration::ZERO,
            http(413, "request_too_large", None),
        )],
        &[],
        ToolExec::Streaming,
    );
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(s.reason, Terminal::PromptTooLong);
}

#[tokio::test(start_paused = true)]
async fn a_mid_stream_failure_keeps_complete_blocks_and_never_reruns_a_tool() {
    let overloaded = ProviderError::Stream {
        error_type: "overloaded_error".into(),
        message: "Overloaded".into(),
    };
    let replies = vec![
        ReplyBuilder::new()
            .text(0, "Reading.")
            .tool(0, 10, "t1", "wait", json!({"tag": "once"}))
            .partial_text(20, "and then")
            .fail(30, overloaded),
        text_reply("answer"),
    ];
    let mut h = harness(replies, &[("wait", true, 100)], ToolExec::Streaming);
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::Completed, "{:?}", s.error);
    assert_eq!(s.transitions, vec![Transition::Retry]);
    assert_eq!(
        *h.runs.lock().expect("runs"),
        vec!["once"],
        "the tool ran exactly once"
    );
    let kept = &h.agent.history[1].content;
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert!(
        matches!(&kept[2], ContentBlock::Text { text, .. } if text.starts_with("and then") && text.contains("[reply cut off"))
    );
    // The retried request carried the tool's result, so the model will not ask again.
    let retried = &h.provider.requests()[1];
    assert!(
        matches!(&retried[2].content[0], ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == "t1")
    );
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn a_stream_that_ends_without_message_stop_is_never_success() {
    let replies = vec![ReplyBuilder::new().text(0, "cut").stall_until(10)];
    let mut h = harness(replies, &[], ToolExec::Streaming);
    h.agent.settings.retry.max_attempts = 1;
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(s.reason, Terminal::ModelError);
    assert!(
        s.error.as_deref().unwrap_or("").contains("message_stop"),
        "{:?}",
        s.error
    );
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn an_idle_stream_times_out_and_is_retried() {
    let replies = vec![
        ReplyBuilder::new()
            .partial_text(0, "hm")
            .stall_until(1_000_000),
        text_reply("back"),
    ];
    let mut h = harness(replies, &[], ToolExec::Streaming);
    h.agent.settings.idle_timeout = Duration::from_secs(5);
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::Completed);
    assert_eq!(h.request_times()[0], 0);
    assert!(h.request_times()[1] >= 5000);
    h.assert_valid();
}

#[tokio::test(start_paused = true)]
async fn three_overloads_switch_to_the_fallback_model() {
    let over = || {
        Reply::Fail(
            Duration::ZERO,
            http(529, "overloaded_error", Some(Duration::from_millis(10))),
        )
    };
    let mut h = harness(
        vec![over(), over(), over(), text_reply("from fallback")],
        &[],
        ToolExec::Streaming,
    );
    h.agent.settings.fallback_model = Some("small-model".into());
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::Completed);
    assert!(s.transitions.contains(&Transition::FallbackModel));
    let models: Vec<String> = h
        .events()
        .iter()
        .filter_map(|(_, e)| match e {
            AgentEvent::RequestStart { model, .. } => Some(model.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        models,
        vec!["test-model", "test-model", "test-model", "small-model"]
    );
}

#[tokio::test(start_paused = true)]
async fn falling_back_mid_stream_discards_the_partial_text_of_the_failed_attempt() {
    let over = || {
        Reply::Fail(
            Duration::ZERO,
            http(529, "overloaded_error", Some(Duration::from_millis(10))),
        )
    };
    let mid = ReplyBuilder::new().partial_text(0, "half a thought").fail(
        10,
        ProviderError::Stream {
            error_type: "overloaded_error".into(),
            message: "Overloaded".into(),
        },
    );
    let mut h = harness(
        vec![over(), over(), mid, text_reply("fresh")],
        &[],
        ToolExec::Streaming,
    );
    h.agent.settings.fallback_model = Some("small-model".into());
    let s = h.agent.run_prompt("go", &CancellationToken::new()).await;
    h.settle().await;
    assert_eq!(s.reason, Terminal::Completed);
    assert!(
        h.events()
            .iter()
            .any(|(_, e)| matches!(e, AgentEvent::Discarded { .. }))
    );
    assert!(
        !serde_json::to_string(&h.agent.history)
            .expect("json")
            .contains("half a thought")
    );
    assert_eq!(s.text, "fresh");
    h.assert_valid();
}

/// A prompt whose request failed is not sent again with the next one: the next prompt takes
/// its place in the history (roles still alternate); one that got an answer stays.
#[tokio::test(start_paused = true)]
async fn a_failed_prompt_is_replaced_by_the_next_one() {
    let replies = vec![
        Reply::Fail(Duration::ZERO, http(404, "not_found_error", None)),
        Reply::Fail(Duration::ZERO, http(401, "authentication_error", None)),
        text_reply("answered"),
        text_reply("answered too"),
    ];
    let mut h = harness(replies, &[], ToolExec::Streaming);
    for prompt in ["hello 404", "hello 401"] {
        let s = h.agent.run_prompt(prompt, &CancellationToken::new()).await;
        assert_eq!(s.reason, Terminal::ModelError);
    }
    h.agent.run_prompt("hi", &CancellationToken::new()).await;
    h.agent
        .run_prompt("and more", &CancellationToken::new())
        .await;
    h.settle().await;
    let texts: Vec<String> = h.agent.history.iter().map(|m| m.text()).collect();
    assert_eq!(texts, vec!["hi", "answered", "and more", "answered too"]);
    let sent: Vec<String> = h.provider.requests()[1..]
        .iter()
        .map(|r| r[0].text())
        .collect();
    assert_eq!(
        sent,
        vec!["hello 401", "hi", "hi"],
        "no failed prompt is sent again"
    );
    h.assert_valid();
}
