//! Every event kind the editor sees, and every way a turn ends.

use super::*;
use crate::protocol::{AgentEvent, Terminal, ToolOutcome, TurnSummary};
use serde_json::{Value, json};

fn wire(updates: Vec<acp::SessionUpdate>) -> Vec<Value> {
    updates
        .into_iter()
        .map(|u| serde_json::to_value(u).expect("serializes"))
        .collect()
}

fn one(mapper: &mut Mapper, event: AgentEvent) -> Value {
    let mut v = wire(mapper.map(&event));
    assert_eq!(v.len(), 1, "{event:?} → {v:?}");
    v.remove(0)
}

fn summary(reason: Terminal) -> TurnSummary {
    TurnSummary {
        reason,
        turns: 1,
        usage: Default::default(),
        text: String::new(),
        transitions: vec![],
        error: None,
        cost_usd: None,
        context_tokens: 0,
    }
}

#[test]
fn every_event_kind_becomes_its_update() {
    let ws = tempfile::tempdir().unwrap();
    let file = ws.path().join("a.txt");
    std::fs::write(&file, "old\n").unwrap();
    let mut m = Mapper::new(ws.path());
    let text = one(&mut m, AgentEvent::TextDelta { text: "hi".into() });
    assert_eq!(text["sessionUpdate"], "agent_message_chunk");
    assert_eq!(text["content"], json!({"type": "text", "text": "hi"}));
    let thought = one(&mut m, AgentEvent::ThinkingDelta { text: "hm".into() });
    assert_eq!(thought["sessionUpdate"], "agent_thought_chunk");

    let call = one(
        &mut m,
        AgentEvent::ToolUse {
            id: "t1".into(),
            name: "edit_file".into(),
            input: json!({"path": "a.txt", "old_string": "old", "new_string": "new"}),
            safe: false,
            summary: "a.txt".into(),
            preview: None,
        },
    );
    assert_eq!(call["sessionUpdate"], "tool_call");
    assert_eq!(call["toolCallId"], "t1");
    assert_eq!(call["title"], "edit_file: a.txt");
    assert_eq!(call["kind"], "edit");
    assert_eq!(call["rawInput"]["new_string"], "new");
    assert_eq!(call["locations"][0]["path"], json!(file));
    let started = one(
        &mut m,
        AgentEvent::ToolStart {
            id: "t1".into(),
            name: "edit_file".into(),
        },
    );
    assert_eq!(started["status"], "in_progress");
    std::fs::write(&file, "new\n").unwrap();
    let ended = one(
        &mut m,
        AgentEvent::ToolEnd {
            id: "t1".into(),
            name: "edit_file".into(),
            is_error: false,
            outcome: ToolOutcome::Ok,
            duration_ms: 3,
            output: "edited a.txt".into(),
        },
    );
    assert_eq!(ended["status"], "completed");
    assert_eq!(ended["content"][0]["content"]["text"], "edited a.txt");
    assert_eq!(
        ended["content"][1],
        json!({"type": "diff", "path": file, "oldText": "old\n", "newText": "new\n"})
    );
    assert_eq!(ended["rawOutput"]["outcome"], "ok");

    // A bash call shows the literal command and fails as failed.
    let bash = one(
        &mut m,
        AgentEvent::ToolUse {
            id: "t2".into(),
            name: "bash".into(),
            input: json!({"command": "cargo test -p foo"}),
            safe: false,
            summary: "cargo test -p foo".into(),
            preview: None,
        },
    );
    assert_eq!(bash["title"], "bash: cargo test -p foo");
    assert_eq!(bash["kind"], "execute");
    let failed = one(
        &mut m,
        AgentEvent::ToolEnd {
            id: "t2".into(),
            name: "bash".into(),
            is_error: true,
            outcome: ToolOutcome::Cancelled,
            duration_ms: 3,
            output: "interrupted".into(),
        },
    );
    assert_eq!(failed["status"], "failed");

    let plan = one(
        &mut m,
        AgentEvent::Todos {
            todos: vec![
                crate::todo::TodoItem {
                    content: "write".into(),
                    status: crate::todo::TodoStatus::InProgress,
                },
                crate::todo::TodoItem {
                    content: "test".into(),
                    status: crate::todo::TodoStatus::Pending,
                },
            ],
        },
    );
    assert_eq!(plan["sessionUpdate"], "plan");
    assert_eq!(
        plan["entries"],
        json!([
            {"content": "write", "priority": "medium", "status": "in_progress"},
            {"content": "test", "priority": "medium", "status": "pending"},
        ])
    );
    let mode = one(
        &mut m,
        AgentEvent::ApprovalChanged {
            mode: crate::protocol::approval_mode::ApprovalMode::Plan,
        },
    );
    assert_eq!(
        mode,
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"})
    );
    let usage = one(
        &mut m,
        AgentEvent::Context(crate::protocol::compaction::ContextStatus {
            context_tokens: 1200,
            window: 200_000,
            cost_usd: Some(0.25),
            cache_read_share: None,
            tools: Default::default(),
        }),
    );
    assert_eq!(usage["sessionUpdate"], "usage_update");
    assert_eq!(usage["used"], 1200);
    assert_eq!(usage["size"], 200_000);
    assert_eq!(usage["cost"], json!({"amount": 0.25, "currency": "USD"}));

    // A subagent's call: scoped id, the parent task call in _meta.
    let child = one(
        &mut m,
        AgentEvent::Subagent {
            agent_id: "a1".into(),
            parent_tool_use_id: "task_1".into(),
            event: Box::new(AgentEvent::ToolUse {
                id: "t1".into(),
                name: "read_file".into(),
                input: json!({"path": "a.txt"}),
                safe: true,
                summary: "a.txt".into(),
                preview: None,
            }),
        },
    );
    assert_eq!(child["toolCallId"], "a1/t1");
    assert_eq!(child["kind"], "read");
    assert_eq!(child["_meta"]["tooloop"]["parentToolCallId"], "task_1");

    // The task call's title follows its subagent.
    let started = one(
        &mut m,
        AgentEvent::AgentStart(crate::protocol::subagent::AgentInfo {
            agent_id: "a1".into(),
            parent_tool_use_id: "task_1".into(),
            parent_agent_id: None,
            agent: "explore".into(),
            description: "find the parser".into(),
            model: "m".into(),
        }),
    );
    assert_eq!(started["sessionUpdate"], "tool_call_update");
    assert_eq!(started["toolCallId"], "task_1");
    assert_eq!(
        started["title"],
        "task: find the parser (a1 explore, running)"
    );

    // Events with no place in the editor say nothing.
    for quiet in [
        AgentEvent::TurnStart { turn: 1 },
        AgentEvent::Notice { text: "n".into() },
        AgentEvent::Session { id: "x".into() },
    ] {
        assert!(m.map(&quiet).is_empty(), "{quiet:?}");
    }
}

#[test]
fn every_stop_reason_is_mapped() {
    use acp::StopReason as S;
    let cases = [
        (Terminal::Completed, S::EndTurn, false),
        (Terminal::PlanReady, S::EndTurn, false),
        (Terminal::MaxTurns, S::MaxTurnRequests, false),
        (Terminal::MaxOutputTokens, S::MaxTokens, false),
        (Terminal::AbortedStreaming, S::Cancelled, false),
        (Terminal::AbortedTools, S::Cancelled, false),
        (Terminal::BudgetExceeded, S::EndTurn, true),
        (Terminal::BlockingLimit, S::EndTurn, true),
        (Terminal::PromptTooLong, S::EndTurn, true),
        (Terminal::HookStopped, S::EndTurn, true),
        (Terminal::NotSent, S::EndTurn, true),
        (Terminal::StopHookPrevented, S::EndTurn, true),
        (Terminal::ModelError, S::EndTurn, true),
    ];
    for (reason, want, explained) in cases {
        let (got, why) = stop_reason(&summary(reason), None);
        assert_eq!(got, want, "{reason:?}");
        assert_eq!(why.is_some(), explained, "{reason:?}: {why:?}");
    }
    let (got, _) = stop_reason(&summary(Terminal::Completed), Some("refusal"));
    assert_eq!(got, S::Refusal);
    let mut budget = summary(Terminal::BudgetExceeded);
    budget.error = Some("$1.00 of $1.00".into());
    let (_, why) = stop_reason(&budget, None);
    assert!(why.unwrap().contains("budget"));
}
