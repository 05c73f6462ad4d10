//! The right model for each job (issue 40), in process under the paused clock: requests in
//! plan mode go to `[models] plan` until the plan is approved, then to main; compaction
//! summaries and the built-in explore agent go to `small`; what each model spent adds up to
//! the session's total.

use crate::support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use support::harness::{Setup, first_prompt, harness};
use tooloop::agent::context::{ContextSettings, ContextState};
use tooloop::agent::model_routes::ModelRoutes;
use tooloop::cli::ToolExec;
use tooloop::message::Message;
use tooloop::models::{ModelOverride, ModelTable};
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::{AgentEvent, Terminal};
use tooloop::provider::scripted::{Reply, ReplyBuilder};

fn routes() -> ModelRoutes {
    ModelRoutes {
        plan: Some("planner".into()),
        small: Some("tiny".into()),
    }
}

/// Prices for the three made-up models (USD per million tokens).
fn priced() -> ContextSettings {
    let price = |input: f64, output: f64| ModelOverride {
        price_input: Some(input),
        price_output: Some(output),
        ..Default::default()
    };
    let overrides: BTreeMap<String, ModelOverride> = [
        ("test-model".to_string(), price(3.0, 15.0)),
        ("planner".to_string(), price(15.0, 75.0)),
        ("tiny".to_string(), price(1.0, 5.0)),
    ]
    .into();
    ContextSettings {
        models: Arc::new(ModelTable::builtin().with_overrides(&overrides)),
        ..Default::default()
    }
}

fn models_of(bodies: &[bytes::Bytes]) -> Vec<String> {
    bodies
        .iter()
        .map(|b| {
            let v: Value = serde_json::from_slice(b).expect("json body");
            v["model"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

fn summary_reply() -> Reply {
    ReplyBuilder::new()
        .text(
            10,
            "<summary>The user asked to look around; it was done.</summary>",
        )
        .end(20, "end_turn")
}

#[tokio::test(start_paused = true)]
async fn plan_until_approved_then_main_summaries_small_and_the_split_adds_up() {
    let replies = vec![
        ReplyBuilder::new()
            .tool(5, 20, "toolu_1", "wait", json!({"tag": "look"}))
            .end(30, "tool_use"),
        ReplyBuilder::new()
            .text(10, "planned and done")
            .end(20, "end_turn"),
        ReplyBuilder::new().text(10, "welcome").end(20, "end_turn"),
        summary_reply(),
    ];
    let mut h = harness(replies, &[("wait", true, 50)], ToolExec::Streaming);
    h.agent.settings.routes = routes();
    h.agent.context = ContextState::new(priced());
    let policy = h.agent.exec.policy.clone();
    policy.set_mode(ApprovalMode::Plan);
    // The user approves the plan while step 1's tool runs (what the approval box does).
    let approve = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(40)).await;
        policy.set_mode(ApprovalMode::AutoEdit);
    });
    // Long enough that a summary shrinks the context (else compaction sends nothing).
    let prompt = format!("plan it then do it. {}", "context ".repeat(5000));
    let s = h.agent.run_prompt(&prompt, &CancellationToken::new()).await;
    approve.await.expect("approve");
    assert_eq!(s.reason, Terminal::Completed, "{:?}", s.error);
    // A short last request (the state block quotes it whole).
    let s = h
        .agent
        .run_prompt("thanks", &CancellationToken::new())
        .await;
    assert_eq!(s.reason, Terminal::Completed, "{:?}", s.error);
    // The scripted replies report no input tokens: estimate the context from its text.
    h.agent.context.forget_usage();
    tooloop::agent::context::prepare::manual(&mut h.agent, None, &CancellationToken::new()).await;
    h.settle().await;
    // Every request as announced (the summary request too), with its model.
    let models: Vec<String> = h
        .events()
        .into_iter()
        .filter_map(|(_, e)| match e {
            AgentEvent::RequestStart { model, .. } => Some(model),
            _ => None,
        })
        .collect();
    assert_eq!(
        models,
        vec!["planner", "test-model", "test-model", "tiny"],
        "before approval, after, the next prompt, the summary"
    );
    assert!(
        h.events()
            .iter()
            .any(|(_, e)| matches!(e, AgentEvent::Compacted { .. })),
        "the summary was used"
    );
    // What went over the wire says the same.
    assert_eq!(
        models_of(&h.provider.bodies()),
        vec!["planner", "test-model", "test-model", "tiny"]
    );
    let split = h.agent.context.ledger.by_model();
    assert_eq!(
        split.keys().collect::<Vec<_>>(),
        vec!["planner", "test-model", "tiny"]
    );
    let total = h.agent.context.ledger.tree();
    let sum: f64 = split.values().map(|s| s.cost.expect("priced")).sum();
    let tokens: u64 = split.values().map(|s| s.usage.output_tokens).sum();
    assert!(
        (sum - total.cost.expect("priced")).abs() < 1e-12,
        "{sum} vs {total:?}"
    );
    assert_eq!(tokens, total.usage.output_tokens);
    // Each model's part is its own tokens at its own prices.
    let table = priced().models;
    for (model, spend) in &split {
        let own = table.cost_usd(model, &spend.usage).expect("priced");
        assert!((own - spend.cost.expect("priced")).abs() < 1e-12, "{model}");
        assert!(spend.usage.output_tokens > 0, "{model} answered");
    }
}

#[tokio::test(start_paused = true)]
async fn the_explore_agent_runs_on_small_the_general_one_on_main() {
    let task = |n: u32, agent: &str| json!({"description": format!("job {n}"), "prompt": format!("child-{n}: look"), "agent": agent});
    let replies = vec![
        ReplyBuilder::new()
            .tool(5, 10, "t1", "task", task(1, "explore"))
            .tool(15, 20, "t2", "task", task(2, "general"))
            .end(30, "tool_use"),
        ReplyBuilder::new()
            .text(10, "both reported")
            .end(20, "end_turn"),
    ];
    let children = Arc::new(|_s: &str, messages: &[Message]| {
        first_prompt(messages).strip_prefix("child-")?;
        Some(ReplyBuilder::new().text(10, "found it").end(20, "end_turn"))
    });
    let mut setup = Setup::new(replies, children);
    setup.routes = routes();
    let mut tree = setup.build();
    let s = tree
        .agent
        .run_prompt("look around", &CancellationToken::new())
        .await;
    assert_eq!(s.reason, Terminal::Completed, "{:?}", s.error);
    tree.settle().await;
    let mut by_agent: Vec<(String, String)> = tree
        .events()
        .into_iter()
        .filter_map(|(_, e)| match e {
            AgentEvent::AgentStart(info) => Some((info.agent, info.model)),
            _ => None,
        })
        .collect();
    by_agent.sort();
    assert_eq!(
        by_agent,
        vec![
            ("explore".to_string(), "tiny".to_string()),
            ("general".to_string(), "test-model".to_string())
        ]
    );
    let models = models_of(&tree.provider.bodies());
    assert_eq!(
        models.iter().filter(|m| *m == "tiny").count(),
        1,
        "{models:?}"
    );
    tree.assert_valid();
}

/// BENCHMARKS.md: one scripted plan → explore → edit task, priced like Sonnet (main), Opus
/// (plan) and Haiku (small), with and without routing. Prints the figures
/// (`-- --nocapture`); asserts only that each run's split adds up.
#[tokio::test(start_paused = true)]
async fn cost_of_a_plan_explore_edit_task_with_and_without_routing() {
    let mut costs = Vec::new();
    for routed in [false, true] {
        let explore = json!({"description": "find", "prompt": "child-1: find the config", "agent": "explore"});
        let replies = vec![
            // Plan mode: one look, then the plan (approved while the look runs).
            ReplyBuilder::new()
                .tool(5, 10, "p1", "wait", json!({"tag": "look"}))
                .end(20, "tool_use"),
            // Approved: explore, then the edit, then the answer.
            ReplyBuilder::new()
                .tool(5, 10, "t1", "task", explore)
                .end(20, "tool_use"),
            ReplyBuilder::new()
                .tool(5, 10, "e1", "change", json!({"tag": "edit"}))
                .end(20, "tool_use"),
            ReplyBuilder::new().text(10, "done").end(20, "end_turn"),
        ];
        // The explore child reads four times, then reports.
        let children = Arc::new(|_s: &str, messages: &[Message]| {
            first_prompt(messages).strip_prefix("child-")?;
            let turn = messages.len() / 2;
            Some(if turn < 4 {
                ReplyBuilder::new()
                    .tool(5, 10, &format!("c{turn}"), "wait", json!({"tag": "read"}))
                    .end(20, "tool_use")
            } else {
                ReplyBuilder::new()
                    .text(10, "it is in config.toml")
                    .end(20, "end_turn")
            })
        });
        let mut setup = Setup::new(replies, children);
        setup.tools = vec![("wait", true, 10), ("change", false, 10)];
        setup.context = priced_like_claude();
        if routed {
            setup.routes = ModelRoutes {
                plan: Some("opus".into()),
                small: Some("haiku".into()),
            };
        }
        let mut tree = setup.build();
        let policy = tree.agent.exec.policy.clone();
        policy.set_mode(ApprovalMode::Plan);
        let approve = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(15)).await;
            policy.set_mode(ApprovalMode::Yolo);
        });
        let s = tree
            .agent
            .run_prompt("plan, explore, edit", &CancellationToken::new())
            .await;
        approve.await.expect("approve");
        assert_eq!(s.reason, Terminal::Completed, "{:?}", s.error);
        let split = tree.agent.context.ledger.by_model();
        let total = tree.agent.context.ledger.tree().cost.expect("priced");
        let sum: f64 = split.values().filter_map(|s| s.cost).sum();
        assert!((sum - total).abs() < 1e-12);
        let parts: Vec<String> = split
            .iter()
            .map(|(m, s)| format!("{m} ${:.6}", s.cost.unwrap_or(0.0)))
            .collect();
        eprintln!("routed={routed}: total ${total:.6} = {}", parts.join(" + "));
        costs.push(total);
    }
    eprintln!("routing saves {:.0} %", 100.0 * (1.0 - costs[1] / costs[0]));
}

fn priced_like_claude() -> ContextSettings {
    let price = |input: f64, output: f64| ModelOverride {
        price_input: Some(input),
        price_output: Some(output),
        ..Default::default()
    };
    let overrides: BTreeMap<String, ModelOverride> = [
        // The harness's main model, at Sonnet's prices.
        ("test-model".to_string(), price(3.0, 15.0)),
        ("opus".to_string(), price(15.0, 75.0)),
        ("haiku".to_string(), price(1.0, 5.0)),
    ]
    .into();
    ContextSettings {
        models: Arc::new(ModelTable::builtin().with_overrides(&overrides)),
        ..Default::default()
    }
}
