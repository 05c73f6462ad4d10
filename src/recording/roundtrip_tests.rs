//! Every [`AgentEvent`] variant survives a recording: event → line → JSON → line → event.
//!
//! The recorded form is the event's own serde form, so every variant has one; [`variant`]
//! below is exhaustive, and the test fails until a new variant has an example here that
//! round-trips.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;

use super::entry::{Entry, Kind};
use crate::hooks::{HookDecision, HookEvent, HookReport};
use crate::message::{ContentBlock, Message};
use crate::protocol::approval::Preview;
use crate::protocol::compaction::{Compaction, ContextStatus, Trigger};
use crate::protocol::status::{ServerState, ServerStatus};
use crate::protocol::{AgentEvent as E, Terminal, ToolOutcome, Transition, TurnSummary};
use crate::provider::{RequestBody, Usage};

/// How many variants [`E`] has. A new variant needs an arm in [`variant`] (the match is
/// exhaustive) with the next number, this count raised, and an example in [`examples`].
const VARIANTS: usize = 43;

fn variant(e: &E) -> usize {
    match e {
        E::PromptStart { .. } => 0,
        E::TurnStart { .. } => 1,
        E::RequestStart { .. } => 2,
        E::RequestFailed { .. } => 3,
        E::Retry { .. } => 4,
        E::TextDelta { .. } => 5,
        E::ThinkingDelta { .. } => 6,
        E::ToolUseStreaming { .. } => 7,
        E::ToolUse { .. } => 8,
        E::PermissionRequest { .. } => 9,
        E::Permission { .. } => 10,
        E::ToolStart { .. } => 11,
        E::ToolProgress { .. } => 12,
        E::ToolEnd { .. } => 13,
        E::StreamEnd { .. } => 14,
        E::RawSse { .. } => 15,
        E::Usage(_) => 16,
        E::Message { .. } => 17,
        E::Notice { .. } => 18,
        E::Discarded { .. } => 19,
        E::Error { .. } => 20,
        E::HistoryReset { .. } => 21,
        E::EarlierHistory { .. } => 22,
        E::Session { .. } => 23,
        E::ModelChanged { .. } => 24,
        E::Compacted { .. } => 25,
        E::Context(_) => 26,
        E::HookStart { .. } => 27,
        E::HookEnd { .. } => 28,
        E::Mcp(_) => 29,
        E::Done(_) => 30,
        E::ToolTimings { .. } => 31,
        E::Background(_) => 33,
        E::Todos { .. } => 32,
        E::ServerBlock { .. } => 33,
        E::AgentStart(_) => 34,
        E::AgentEnd(_) => 35,
        E::Subagent { .. } => 36,
        E::ApprovalChanged { .. } => 37,
        E::PlanReady { .. } => 38,
        E::PromptNotSent { .. } => 39,
        E::Steer { .. } => 40,
        E::RulesChanged { .. } => 41,
        E::ResumedSubagents { .. } => 42,
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: 120,
        output_tokens: 30,
        cache_read_tokens: 100,
        cache_write_tokens: 7,
        ..Default::default()
    }
}

fn assistant() -> Message {
    Message::assistant(vec![
        ContentBlock::text("Looking."),
        ContentBlock::ToolUse {
            id: "toolu_1".into(),
            name: "bash".into(),
            input: json!({"command": "ls -la"}),
        },
    ])
}

fn examples() -> Vec<E> {
    let tool_use = |preview| E::ToolUse {
        id: "toolu_1".into(),
        name: "edit_file".into(),
        input: json!({"path": "a.rs"}),
        safe: false,
        summary: "a.rs".into(),
        preview,
    };
    vec![
        E::PromptStart {
            text: "fix it 修".into(),
        },
        E::TurnStart { turn: 2 },
        E::ApprovalChanged {
            mode: crate::protocol::approval_mode::ApprovalMode::Plan,
        },
        E::PlanReady {
            plan: "# Plan\n1. 读".into(),
        },
        E::RulesChanged {
            rules: vec![crate::protocol::approval::RuleLine {
                kind: "deny".into(),
                rule: "bash(rm:*)".into(),
                source: ".claude/settings.json".into(),
            }],
            unused: vec![".claude/settings.json: allow WebSearch (no such tool)".into()],
        },
        E::PromptNotSent {
            text: "你好 hello".into(),
        },
        E::Steer {
            text: "use b.rs 改".into(),
            fate: crate::protocol::steer::SteerFate::Joined,
        },
        E::Todos {
            todos: vec![crate::todo::TodoItem {
                content: "写测试".into(),
                status: crate::todo::TodoStatus::InProgress,
            }],
        },
        E::RequestStart {
            turn: 2,
            attempt: 3,
            model: "claude-mock".into(),
            body: Arc::new(RequestBody::from(json!({
                "model": "claude-mock",
                "messages": [{"role": "user", "content": "hi"}],
                "stream": true,
            }))),
        },
        E::RequestFailed {
            status: 529,
            body: r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
                .into(),
        },
        E::Retry {
            attempt: 2,
            max_attempts: 8,
            delay_ms: 500,
            error: "HTTP 529 overloaded_error: Overloaded".into(),
        },
        E::TextDelta {
            text: "Hel\u{1b}[31mlo".into(),
        },
        E::ThinkingDelta { text: "hmm".into() },
        E::ToolUseStreaming {
            id: "toolu_1".into(),
            name: "bash".into(),
        },
        tool_use(Some(Preview::Diff {
            path: "a.rs".into(),
            unified_diff: "-a\n+b\n".into(),
            note: Some("whitespace".into()),
        })),
        tool_use(Some(Preview::NewFile {
            path: "b.rs".into(),
            content: "fn main() {}".into(),
        })),
        tool_use(None),
        E::PermissionRequest {
            id: "toolu_1".into(),
            tool: "bash".into(),
            input: json!({"command": "rm -rf target"}),
            summary: "rm -rf target".into(),
            preview: Some(Preview::Command {
                text: "rm -rf target".into(),
                note: None,
            }),
            why: Default::default(),
        },
        E::Permission {
            id: "toolu_1".into(),
            name: "bash".into(),
            allowed: false,
            rule: None,
        },
        E::ToolStart {
            id: "toolu_1".into(),
            name: "bash".into(),
        },
        E::ToolProgress {
            id: "toolu_1".into(),
            chunk: "line\n".into(),
        },
        E::ToolEnd {
            id: "toolu_1".into(),
            name: "bash".into(),
            is_error: true,
            outcome: ToolOutcome::Cancelled,
            duration_ms: 812,
            output: "interrupted".into(),
        },
        E::StreamEnd {
            turn: 2,
            stop_reason: Some("tool_use".into()),
            usage: None,
        },
        E::RawSse {
            event: Cow::Borrowed("message_start"),
            data: r#"{"type":"message_start"}"#.into(),
        },
        E::Usage(usage()),
        E::Message {
            index: 1,
            message: Arc::new(assistant()),
        },
        E::Notice {
            text: "switching to the fallback model".into(),
        },
        E::ServerBlock {
            block: serde_json::json!({"type": "server_tool_use", "id": "srvtoolu_1",
                "name": "web_search", "input": {"query": "q"}}),
        },
        E::Discarded {
            reason: "fallback".into(),
        },
        E::Error {
            message: "stream interrupted".into(),
        },
        E::HistoryReset {
            messages: vec![Arc::new(Message::user_text("hi")), Arc::new(assistant())],
            summaries: HashMap::from([("toolu_1".to_string(), "ls -la".to_string())]),
        },
        E::EarlierHistory {
            messages: vec![Message::user_text("before")],
            summaries: HashMap::from([("toolu_0".to_string(), "src".to_string())]),
        },
        E::ResumedSubagents {
            agents: vec![crate::protocol::status::ResumedSubagent {
                info: crate::protocol::subagent::AgentInfo {
                    agent_id: "a1".into(),
                    parent_tool_use_id: "toolu_1".into(),
                    parent_agent_id: None,
                    agent: "explore".into(),
                    description: "find the parser".into(),
                    model: String::new(),
                },
                messages: vec![Message::user_text("find it")],
                summaries: HashMap::from([("c1".to_string(), "src".to_string())]),
                timings: HashMap::new(),
                end: Some(crate::protocol::status::AgentEnded {
                    reason: Terminal::Completed,
                    turns: 2,
                    usage: usage(),
                }),
            }],
        },
        E::ToolTimings {
            timings: HashMap::from([(
                "toolu_1".to_string(),
                crate::protocol::status::ToolTiming {
                    id: "toolu_1".into(),
                    started: Some("2026-12-01T20:00:00.123Z".into()),
                    duration_ms: 700,
                    outcome: crate::protocol::ToolOutcome::Denied,
                },
            )]),
        },
        E::Session {
            id: "20261201-abc".into(),
        },
        E::ModelChanged {
            model: "claude-other".into(),
        },
        E::Compacted {
            info: Compaction {
                trigger: Trigger::Reactive,
                pre_tokens: 150_000,
                post_tokens: 9_000,
                messages_before: 40,
                messages_after: 3,
                summary: "what happened".into(),
                state: "Request 1: \"\"\"go\"\"\"".into(),
                kept: crate::protocol::compaction::Kept {
                    requests: 1,
                    files_changed: 2,
                    commands: 3,
                    todos: 4,
                },
            },
            messages: vec![Message::user_text("summary")],
        },
        E::Context(ContextStatus {
            context_tokens: 9_000,
            window: 200_000,
            cost_usd: Some(0.25),
            cache_read_share: Some(0.5),
            tools: Default::default(),
        }),
        E::HookStart {
            id: "hook-1".into(),
            event: HookEvent::PreToolUse,
            command: "./check.sh".into(),
        },
        E::HookEnd {
            id: "hook-1".into(),
            report: HookReport {
                event: HookEvent::Stop,
                command: "./check.sh".into(),
                exit: Some(2),
                duration_ms: 40,
                decision: HookDecision::Deny,
                reason: Some("tests fail".into()),
                spent: None,
            },
        },
        E::Mcp(ServerStatus {
            server: "fx".into(),
            state: ServerState::Failed,
            tools: vec!["mcp__fx__read".into()],
            error: Some("exited".into()),
            prompts: vec![],
            resources: vec![],
        }),
        E::Background(crate::background::JobEvent {
            change: crate::background::Change::Ended,
            job: crate::background::JobInfo {
                shell_id: "b1".into(),
                command: "npm run dev".into(),
                state: crate::background::JobState::Exited,
                exit_code: Some(1),
                pid: Some(4242),
                signal: None,
                killed_by: None,
                bytes: 120,
                last_line: "error: port in use".into(),
                output: None,
            },
        }),
        E::Done(TurnSummary {
            reason: Terminal::StopHookPrevented,
            turns: 4,
            usage: usage(),
            text: "done".into(),
            transitions: vec![Transition::Retry, Transition::StopHook],
            error: Some("stopped".into()),
            cost_usd: Some(0.5),
            context_tokens: 1234,
        }),
        E::AgentStart(crate::protocol::subagent::AgentInfo {
            agent_id: "a2".into(),
            parent_tool_use_id: "toolu_7".into(),
            parent_agent_id: Some("a1".into()),
            agent: "explore".into(),
            description: "find the parser".into(),
            model: "claude-haiku-4-5".into(),
        }),
        E::AgentEnd(crate::protocol::subagent::AgentReport {
            agent_id: "a2".into(),
            parent_tool_use_id: "toolu_7".into(),
            agent: "explore".into(),
            reason: Terminal::MaxTurns,
            turns: 30,
            tools: 41,
            usage: usage(),
            cost_usd: None,
            duration_ms: 5123,
        }),
        E::Subagent {
            agent_id: "a1".into(),
            parent_tool_use_id: "toolu_1".into(),
            event: Box::new(E::ToolStart {
                id: "toolu_1".into(),
                name: "grep".into(),
            }),
        },
    ]
}

#[test]
fn every_event_variant_round_trips_through_a_recording() {
    let examples = examples();
    let mut covered = [false; VARIANTS];
    for event in &examples {
        let v = variant(event);
        assert!(
            v < VARIANTS,
            "{event:?}: give it the next number and raise VARIANTS"
        );
        covered[v] = true;
        let line = serde_json::to_string(&Entry {
            t_ms: 42,
            kind: Kind::Event(event.clone()),
            req_ms: Some(7),
        })
        .expect("serializes");
        let back: Entry = serde_json::from_str(&line).expect("parses");
        assert_eq!((back.t_ms, back.req_ms), (42, Some(7)));
        let read = Entry::from_line(line.as_bytes()).expect("reads");
        assert_eq!(read, back, "the reader's quick path agrees with serde's");
        let replayed = back
            .kind
            .event()
            .unwrap_or_else(|| panic!("does not replay: {line}"));
        assert_eq!(replayed, event, "through {line}");
    }
    let missing: Vec<usize> = (0..VARIANTS).filter(|v| !covered[*v]).collect();
    assert!(
        missing.is_empty(),
        "variants without an example: {missing:?}"
    );
}

#[test]
fn every_terminal_transition_trigger_and_outcome_round_trips() {
    use Terminal as T;
    for reason in [
        T::Completed,
        T::AbortedStreaming,
        T::AbortedTools,
        T::MaxTurns,
        T::ModelError,
        T::PromptTooLong,
        T::MaxOutputTokens,
        T::BudgetExceeded,
        T::BlockingLimit,
        T::HookStopped,
        T::StopHookPrevented,
        T::PlanReady,
        T::NotSent,
    ] {
        let text = serde_json::to_value(reason).unwrap();
        assert_eq!(text, reason.as_str());
        assert_eq!(serde_json::from_value::<Terminal>(text).ok(), Some(reason));
    }
    for trigger in [
        Trigger::Auto,
        Trigger::Reactive,
        Trigger::Manual,
        Trigger::Micro,
    ] {
        let e = E::Compacted {
            info: Compaction {
                trigger,
                pre_tokens: 1,
                post_tokens: 1,
                messages_before: 1,
                messages_after: 1,
                summary: String::new(),
                state: String::new(),
                kept: Default::default(),
            },
            messages: Vec::new(),
        };
        assert_eq!(round_trip(&e), Some(e));
    }
    for outcome in [ToolOutcome::Ok, ToolOutcome::Error, ToolOutcome::Cancelled] {
        let e = E::ToolEnd {
            id: "t".into(),
            name: "n".into(),
            is_error: outcome.is_error(),
            outcome,
            duration_ms: 1,
            output: String::new(),
        };
        assert_eq!(round_trip(&e), Some(e));
    }
}

fn round_trip(e: &E) -> Option<E> {
    let line = serde_json::to_string(&Entry {
        t_ms: 0,
        kind: Kind::Event(e.clone()),
        req_ms: None,
    })
    .ok()?;
    serde_json::from_str::<Entry>(&line)
        .ok()?
        .kind
        .event()
        .cloned()
}
