//! In-process harness for loop and executor tests: an Agent over the scripted provider,
//! test tools with known durations, and an event recorder with (virtual) timestamps.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use tooloop::agent::exec_env::ExecEnv;
use tooloop::agent::{Agent, LoopSettings};
use tooloop::cli::ToolExec;
use tooloop::message::validate_history;
use tooloop::protocol::AgentEvent;
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::events::EventSink;
use tooloop::provider::scripted::{Reply, ScriptedProvider};
use tooloop::tools::{Effect, Tool, ToolContext, ToolOutput, ToolRegistry, Workspace};

/// A tool that takes `ms` of (virtual) time and counts its runs.
pub struct SleepTool {
    pub name: &'static str,
    pub effect: Effect,
    pub ms: u64,
    pub runs: Arc<Mutex<Vec<String>>>,
}

#[async_trait]
impl Tool for SleepTool {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "sleeps"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"tag": {"type": "string"}, "fail": {"type": "boolean"}}})
    }
    fn effect(&self) -> Effect {
        self.effect
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let tag = input
            .get("tag")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if let Ok(mut r) = self.runs.lock() {
            r.push(tag.clone());
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(self.ms)) => {}
            _ = ctx.cancel.cancelled() => return ToolOutput::error("stopped"),
        }
        if input.get("fail").and_then(Value::as_bool) == Some(true) {
            ToolOutput::error(format!("{tag} failed"))
        } else {
            ToolOutput::ok(format!("{tag} done"))
        }
    }
}

pub struct Harness {
    pub agent: Agent,
    pub provider: ScriptedProvider,
    pub events: Arc<Mutex<Vec<(u64, AgentEvent)>>>,
    pub runs: Arc<Mutex<Vec<String>>>,
    pub start: Instant,
    _dir: tempfile::TempDir,
}

/// `tools`: (name, safe, duration ms). Policy: yolo, so unsafe test tools run unasked.
pub fn harness(
    replies: Vec<Reply>,
    tools: &[(&'static str, bool, u64)],
    strategy: ToolExec,
) -> Harness {
    let runs: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut registry = ToolRegistry::new();
    for (name, safe, ms) in tools {
        registry.register(Arc::new(SleepTool {
            name,
            effect: if *safe {
                Effect::ReadOnly
            } else {
                Effect::Exec
            },
            ms: *ms,
            runs: runs.clone(),
        }));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (sink, rx) = EventSink::channel();
    let start = Instant::now();
    let events = record(rx, start);
    let provider = ScriptedProvider::new(replies);
    let workspace = Workspace::new(dir.path(), false).expect("workspace");
    // Yolo, so the unsafe test tools run unasked.
    let mut exec =
        ExecEnv::with_defaults(registry, workspace, sink).with_approval(ApprovalMode::Yolo);
    exec.strategy = strategy;
    let agent = Agent::new(Arc::new(provider.clone()), exec, LoopSettings::default());
    Harness {
        agent,
        provider,
        events,
        runs,
        start,
        _dir: dir,
    }
}

fn record(
    mut rx: mpsc::UnboundedReceiver<AgentEvent>,
    start: Instant,
) -> Arc<Mutex<Vec<(u64, AgentEvent)>>> {
    let log: Arc<Mutex<Vec<(u64, AgentEvent)>>> = Arc::default();
    let sink = log.clone();
    tokio::spawn(async move {
        while let Some(e) = rx.recv().await {
            let t = start.elapsed().as_millis() as u64;
            sink.lock().expect("log").push((t, e));
        }
    });
    log
}

impl Harness {
    /// Lets the recorder task drain what was sent so far.
    pub async fn settle(&self) {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
    }

    pub fn events(&self) -> Vec<(u64, AgentEvent)> {
        self.events.lock().expect("log").clone()
    }

    /// (id → ms) of every ToolStart.
    pub fn starts(&self) -> Vec<(String, u64)> {
        self.events()
            .into_iter()
            .filter_map(|(t, e)| match e {
                AgentEvent::ToolStart { id, .. } => Some((id, t)),
                _ => None,
            })
            .collect()
    }

    pub fn ends(&self) -> Vec<(String, u64)> {
        self.events()
            .into_iter()
            .filter_map(|(t, e)| match e {
                AgentEvent::ToolEnd { id, .. } => Some((id, t)),
                _ => None,
            })
            .collect()
    }

    /// ms of each RequestStart.
    pub fn request_times(&self) -> Vec<u64> {
        self.events()
            .into_iter()
            .filter_map(|(t, e)| matches!(e, AgentEvent::RequestStart { .. }).then_some(t))
            .collect()
    }

    /// Every request the provider saw and the final history must be valid.
    pub fn assert_valid(&self) {
        validate_history(&self.agent.history).expect("final history is valid");
        for (i, req) in self.provider.requests().iter().enumerate() {
            validate_history(req).unwrap_or_else(|e| panic!("request {i} was invalid: {e}"));
        }
    }
}
