//! Subagents under the paused clock: abort of the whole tree at many points, approvals
//! through the parent's policy, turn limits, budgets covering the tree, depth.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use support::harness::{Setup, first_prompt};
use tooloop::agent::subagent::{AgentDefinition, ToolChoice};
use tooloop::message::markers::INTERRUPT_MARKER;
use tooloop::message::{ContentBlock, Message};
use tooloop::protocol::approval::Decision;
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::subagent::scoped_id;
use tooloop::protocol::{AgentEvent, Terminal};
use tooloop::provider::scripted::{Reply, ReplyBuilder, Responder};

fn task(n: u32, agent: &str) -> serde_json::Value {
    json!({"description": format!("job {n}"), "prompt": format!("child-{n}: do it"), "agent": agent})
}

fn three_tasks(agent: &str) -> Vec<Reply> {
    vec![
        ReplyBuilder::new()
            .tool(100, 200, "t1", "task", task(1, agent))
            .tool(300, 500, "t2", "task", task(2, agent))
            .tool(600, 800, "t3", "task", task(3, agent))
            .end(1200, "tool_use"),
        ReplyBuilder::new().text(10, "done").end(20, "end_turn"),
    ]
}

/// Children that call `tool` `calls` times (one call per turn), then answer.
fn children(tool: &'static str, calls: usize) -> Responder {
    Arc::new(move |_s: &str, messages: &[Message]| {
        let prompt = first_prompt(messages);
        prompt.strip_prefix("child-")?;
        let turn = messages.len() / 2;
        Some(if turn < calls {
            ReplyBuilder::new()
                .text(10, "working")
                .tool(20, 50, &format!("c{turn}"), tool, json!({"tag": "x"}))
                .end(100, "tool_use")
        } else {
            ReplyBuilder::new().text(50, "finished").end(60, "end_turn")
        })
    })
}

fn results(history: &[std::sync::Arc<Message>], index: usize) -> Vec<(String, String, bool)> {
    history[index]
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => Some((tool_use_id.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

/// Ctrl+C at many moments (parent streaming, children streaming, children's tools, the
/// parent's last request): every history stays valid, every child's ends with the
/// interruption marker, and each started task answers with an is_error result.
#[tokio::test(start_paused = true)]
async fn abort_anywhere_closes_every_history_validly() {
    let mut seen_aborted_tools = 0;
    // 37 ms apart from 1 to 2000 ms: every phase of the run, at uneven offsets.
    for at in (1..2000).step_by(37) {
        let mut tree = Setup::new(three_tasks("general"), children("wait", 2)).build();
        let cancel = CancellationToken::new();
        let c = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(at)).await;
            c.cancel();
        });
        let summary = tree.agent.run_prompt("go", &cancel).await;
        tree.settle().await;
        tree.assert_valid();
        assert!(summary.reason.is_aborted(), "at {at}: {:?}", summary.reason);
        if summary.reason == Terminal::AbortedTools {
            seen_aborted_tools += 1;
        }
        if tree.agent.history.len() > 2 {
            for (id, content, is_error) in results(&tree.agent.history, 2) {
                assert!(is_error, "at {at}: {id} must be an error: {content}");
                assert!(
                    content.starts_with("interrupted by user"),
                    "at {at}: {content}"
                );
            }
        }
        let reports = tree.reports();
        for (id, history) in tree.child_histories() {
            let last = history.last().expect("a message");
            assert!(
                last.text().contains(INTERRUPT_MARKER),
                "at {at}: child {id} was not closed with the marker: {last:?}"
            );
            let r = reports
                .iter()
                .find(|r| r.agent_id == id)
                .expect("an agent_end for every child");
            assert!(r.reason.is_aborted(), "at {at}: {id} ended {:?}", r.reason);
        }
    }
    assert!(seen_aborted_tools > 20, "{seen_aborted_tools}");
}

/// A child's tool that needs approval asks through the parent's policy under a scoped id;
/// the answer reaches the child.
#[tokio::test(start_paused = true)]
async fn a_childs_question_goes_through_the_parents_approval_flow() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(0, 10, "t1", "task", task(1, "general"))
            .end(20, "tool_use"),
        ReplyBuilder::new().text(10, "done").end(20, "end_turn"),
    ];
    let mut setup = Setup::new(replies, children("change", 1));
    setup.tools.push(("change", false, 100));
    setup.approval = ApprovalMode::Ask;
    let mut tree = setup.build();
    let policy = tree.agent.exec.policy.clone();
    let events = tree.events.clone();
    // Answer the question the way the TUI does, by the scoped id.
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(5)).await;
            let asked = events
                .lock()
                .expect("log")
                .iter()
                .find_map(|(_, e)| match e {
                    AgentEvent::Subagent {
                        agent_id, event, ..
                    } => match &**event {
                        AgentEvent::PermissionRequest { id, .. } => Some(scoped_id(agent_id, id)),
                        _ => None,
                    },
                    _ => None,
                });
            if let Some(id) = asked {
                assert_eq!(id, "a1/c0");
                policy.reply(&id, Decision::AllowOnce);
                return;
            }
        }
    });
    let summary = tree.agent.run_prompt("go", &CancellationToken::new()).await;
    tree.settle().await;
    assert_eq!(summary.reason, Terminal::Completed);
    tree.assert_valid();
    assert_eq!(
        tree.runs.lock().expect("runs").len(),
        1,
        "the child's call ran"
    );
    let r = results(&tree.agent.history, 2);
    assert!(!r[0].2, "{r:?}");
}

/// Headless: nobody can answer, so the child's call is refused like the parent's would be.
#[tokio::test(start_paused = true)]
async fn headless_children_follow_the_approval_mode() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(0, 10, "t1", "task", task(1, "general"))
            .end(20, "tool_use"),
        ReplyBuilder::new().text(10, "done").end(20, "end_turn"),
    ];
    let mut setup = Setup::new(replies, children("change", 1));
    setup.tools.push(("change", false, 100));
    setup.approval = ApprovalMode::ReadOnly;
    let mut tree = setup.build();
    tree.agent.run_prompt("go", &CancellationToken::new()).await;
    tree.settle().await;
    tree.assert_valid();
    assert!(tree.runs.lock().expect("runs").is_empty());
    let child = &tree.child_histories()[0].1;
    let refused = child[2].content.iter().any(|b| {
        matches!(b, ContentBlock::ToolResult { is_error: true, content, .. }
            if content.contains("read-only mode"))
    });
    assert!(refused, "{child:?}");
}

/// A child that reaches its turn limit is an error result saying so, with its text.
#[tokio::test(start_paused = true)]
async fn a_child_at_its_turn_limit_is_an_error_with_its_text() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(0, 10, "t1", "task", task(1, "short"))
            .end(20, "tool_use"),
        ReplyBuilder::new().text(10, "done").end(20, "end_turn"),
    ];
    let mut setup = Setup::new(replies, children("wait", 5));
    setup.extra_definitions.push(AgentDefinition {
        name: "short".into(),
        description: "two turns".into(),
        tools: ToolChoice::All,
        model: None,
        max_turns: Some(2),
        prompt: "Be short.".into(),
        source: None,
        worktree: false,
    });
    let mut tree = setup.build();
    let summary = tree.agent.run_prompt("go", &CancellationToken::new()).await;
    tree.settle().await;
    assert_eq!(summary.reason, Terminal::Completed);
    tree.assert_valid();
    let (_, content, is_error) = &results(&tree.agent.history, 2)[0];
    assert!(is_error);
    assert!(
        content.starts_with("agent short reached its limit of 2 turns"),
        "{content}"
    );
    assert!(content.contains("\nworking\n(agent short · 2 turns · 2 tools · "));
    assert_eq!(tree.reports()[0].reason, Terminal::MaxTurns);
}

/// `--max-budget-tokens` covers the tree: the children's spend stops the parent's next
/// request, and children check the same budget.
#[tokio::test(start_paused = true)]
async fn the_budget_covers_the_children() {
    // Every request spends 15 tokens. Before a request the budget check adds the tree's
    // spend to the request's estimate: the parent's first is about 400 tokens (the task
    // tool's description and schema), its second about 115, a child's about 40-150. Alone,
    // the parent would finish far below 450; its children's 30-odd requests pass it.
    let mut setup = Setup::new(three_tasks("general"), children("wait", 10));
    setup.context.max_budget_tokens = Some(450);
    let mut tree = setup.build();
    let summary = tree.agent.run_prompt("go", &CancellationToken::new()).await;
    tree.settle().await;
    tree.assert_valid();
    assert_eq!(summary.reason, Terminal::BudgetExceeded, "{summary:?}");
    let ended: Vec<Terminal> = tree.reports().iter().map(|r| r.reason).collect();
    assert!(
        ended.contains(&Terminal::BudgetExceeded),
        "some child stopped on the shared budget: {ended:?}"
    );
    let spent = summary.usage.input_tokens + summary.usage.output_tokens;
    assert!((300..=450).contains(&spent), "{spent}");
}

/// Depth 1 (the default): a child is not offered `task`; with max_depth 2 it is, and its
/// own child's events carry the grandchild's id with the child as parent.
#[tokio::test(start_paused = true)]
async fn children_nest_only_as_deep_as_max_depth() {
    let tree = Setup::new(Vec::new(), children("wait", 0)).build();
    let parent_tools: Vec<&str> = tree.agent.exec.registry.names().collect();
    assert!(parent_tools.contains(&"task"));

    let replies = vec![
        ReplyBuilder::new()
            .tool(0, 10, "t1", "task", task(1, "general"))
            .end(20, "tool_use"),
        ReplyBuilder::new().text(10, "done").end(20, "end_turn"),
    ];
    // The child calls task again; the grandchild answers at once.
    let nested: Responder = Arc::new(|_s: &str, messages: &[Message]| {
        let prompt = first_prompt(messages);
        if prompt.starts_with("child-1") {
            return Some(match messages.len() {
                1 => ReplyBuilder::new()
                    .tool(0, 10, "g1", "task", task(9, "general"))
                    .end(20, "tool_use"),
                _ => ReplyBuilder::new()
                    .text(10, "child done")
                    .end(20, "end_turn"),
            });
        }
        prompt.starts_with("child-9").then(|| {
            ReplyBuilder::new()
                .text(10, "grandchild done")
                .end(20, "end_turn")
        })
    });
    for (depth, nests) in [(1, false), (2, true)] {
        let mut setup = Setup::new(replies_clone(&replies), nested.clone());
        setup.limits.max_depth = depth;
        let mut tree = setup.build();
        tree.agent.run_prompt("go", &CancellationToken::new()).await;
        tree.settle().await;
        tree.assert_valid();
        let starts: Vec<_> = tree
            .events()
            .into_iter()
            .filter_map(|(_, e)| match e {
                AgentEvent::AgentStart(i) => Some(i),
                _ => None,
            })
            .collect();
        assert_eq!(starts.len(), if nests { 2 } else { 1 }, "depth {depth}");
        if nests {
            assert_eq!(starts[1].parent_agent_id.as_deref(), Some("a1"));
            assert_eq!(starts[1].parent_tool_use_id, "g1");
        } else {
            // The child's call of an unknown tool is an error it can read.
            let child = &tree.child_histories()[0].1;
            let r = match &child[2].content[0] {
                ContentBlock::ToolResult { content, .. } => content.clone(),
                other => panic!("{other:?}"),
            };
            assert!(r.starts_with("Error: no such tool: task"), "{r}");
        }
    }
}

fn replies_clone(_: &[Reply]) -> Vec<Reply> {
    vec![
        ReplyBuilder::new()
            .tool(0, 10, "t1", "task", task(1, "general"))
            .end(20, "tool_use"),
        ReplyBuilder::new().text(10, "done").end(20, "end_turn"),
    ]
}

/// `task` checks its input through its own type (no compiled schema), with the agent names
/// of this session: an unknown agent is refused before anything starts, naming the known ones.
#[tokio::test]
async fn task_input_is_checked_against_the_sessions_agents() {
    let tree = Setup::new(Vec::new(), children("wait", 0)).build();
    let tool = tree.agent.exec.registry.get("task").expect("task tool");
    // The schema the model is shown still compiles (no session compiles it any more).
    tooloop::tools::schema::Validator::new(&tool.tool.input_schema()).expect("task schema");
    assert!(
        tool.validate(&json!({"description": "d", "prompt": "p"}))
            .is_ok()
    );
    assert!(tool.validate(&task(1, "explore")).is_ok());
    let e = tool
        .validate(&task(1, "wizard"))
        .expect_err("unknown agent")
        .to_string();
    assert!(
        e.starts_with("/agent: unknown agent `wizard`, expected one of ")
            && e.contains("`general`"),
        "{e}"
    );
    let e = tool
        .validate(&json!({"description": "d"}))
        .expect_err("no prompt")
        .to_string();
    assert_eq!(e, "missing field `prompt`");
    let e = tool
        .validate(&json!({"description": "d", "prompt": "p", "agent": null}))
        .expect_err("null agent")
        .to_string();
    assert_eq!(e, "/agent: invalid type: null, expected a string");
}
