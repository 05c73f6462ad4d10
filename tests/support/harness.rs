//! In-process agents under tokio's paused clock: an Agent over the scripted provider, test
//! tools with known durations, and an event recorder with (virtual) timestamps. `harness`
//! builds one agent (loop and executor tests); `Setup` builds a parent whose registry holds
//! the `task` tool, its children answered by a responder (subagent tests).
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use tooloop::agent::context::{ContextSettings, ContextState};
use tooloop::agent::exec_env::ExecEnv;
use tooloop::agent::subagent::{AgentDefinition, AgentLimits, Subagents, definitions};
use tooloop::agent::{Agent, LoopSettings};
use tooloop::cli::ToolExec;
use tooloop::message::{Message, validate_history};
use tooloop::protocol::AgentEvent;
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::events::EventSink;
use tooloop::protocol::subagent::AgentReport;
use tooloop::provider::scripted::{Reply, Responder, ScriptedProvider};
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
    let registry = sleep_tools(tools, &runs);
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

/// `tools`: (name, read-only, duration ms), each a `SleepTool` logging its runs in `runs`.
fn sleep_tools(
    tools: &[(&'static str, bool, u64)],
    runs: &Arc<Mutex<Vec<String>>>,
) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for (name, read_only, ms) in tools {
        registry.register(Arc::new(SleepTool {
            name,
            effect: if *read_only {
                Effect::ReadOnly
            } else {
                Effect::Exec
            },
            ms: *ms,
            runs: runs.clone(),
        }));
    }
    registry
}

/// Every event from `rx` with its (virtual) ms since `start`.
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

/// Lets the recorder task drain what was sent so far.
async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
}

fn events(log: &Mutex<Vec<(u64, AgentEvent)>>) -> Vec<(u64, AgentEvent)> {
    log.lock().expect("log").clone()
}

/// The agent's final history and every request the provider saw are valid (DESIGN.md §4).
fn assert_agent_valid(agent: &Agent, provider: &ScriptedProvider) {
    validate_history(&agent.history).expect("the agent's final history is valid");
    for (i, req) in provider.requests().iter().enumerate() {
        validate_history(req).unwrap_or_else(|e| panic!("request {i} was invalid: {e}"));
    }
}

impl Harness {
    pub async fn settle(&self) {
        settle().await
    }

    pub fn events(&self) -> Vec<(u64, AgentEvent)> {
        events(&self.events)
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

    pub fn assert_valid(&self) {
        assert_agent_valid(&self.agent, &self.provider)
    }
}

pub struct Tree {
    pub agent: Agent,
    pub provider: ScriptedProvider,
    pub events: Arc<Mutex<Vec<(u64, AgentEvent)>>>,
    pub runs: Arc<Mutex<Vec<String>>>,
    pub hub: Arc<Subagents>,
    _dir: tempfile::TempDir,
}

pub struct Setup {
    /// The parent's replies, in order.
    pub replies: Vec<Reply>,
    /// Answers the children's requests (and any request it recognizes).
    pub responder: Responder,
    /// (name, read-only, ms).
    pub tools: Vec<(&'static str, bool, u64)>,
    pub limits: AgentLimits,
    pub extra_definitions: Vec<AgentDefinition>,
    pub approval: ApprovalMode,
    pub context: ContextSettings,
    /// `[models] plan / small` of the parent (and so of its children).
    pub routes: tooloop::agent::model_routes::ModelRoutes,
}

impl Setup {
    pub fn new(replies: Vec<Reply>, responder: Responder) -> Self {
        Setup {
            replies,
            responder,
            tools: vec![("wait", true, 1000)],
            limits: AgentLimits::default(),
            extra_definitions: Vec::new(),
            approval: ApprovalMode::Yolo,
            context: ContextSettings::default(),
            routes: Default::default(),
        }
    }

    pub fn build(self) -> Tree {
        let runs: Arc<Mutex<Vec<String>>> = Arc::default();
        let registry = sleep_tools(&self.tools, &runs);
        let dir = tempfile::tempdir().expect("tempdir");
        let (sink, rx) = EventSink::channel();
        let events = record(rx, Instant::now());
        let provider = ScriptedProvider::new(self.replies).with_responder(self.responder);
        let workspace = Workspace::new(dir.path(), false).expect("workspace");
        let mut exec =
            ExecEnv::with_defaults(registry, workspace, sink.clone()).with_approval(self.approval);
        let settings = LoopSettings {
            routes: self.routes.clone(),
            ..LoopSettings::default()
        };
        let mut defs = definitions::builtin();
        defs.extend(self.extra_definitions);
        let hub = Subagents::new(
            Arc::new(provider.clone()),
            settings.clone(),
            self.context.clone(),
            exec.clone(),
            defs,
            self.limits,
            None,
        );
        let context = ContextState::new(self.context);
        exec.registry = Arc::new(hub.with_task_tool(&exec.registry, context.ledger.clone(), sink));
        let mut agent = Agent::new(Arc::new(provider.clone()), exec, settings);
        agent.context = context;
        Tree {
            agent,
            provider,
            events,
            runs,
            hub,
            _dir: dir,
        }
    }
}

impl Tree {
    pub async fn settle(&self) {
        settle().await
    }

    pub fn events(&self) -> Vec<(u64, AgentEvent)> {
        events(&self.events)
    }

    /// (agent id or "" for the parent, time) of every RequestStart.
    pub fn request_times(&self) -> Vec<(String, u64)> {
        self.events()
            .into_iter()
            .filter_map(|(t, e)| match e {
                AgentEvent::RequestStart { .. } => Some((String::new(), t)),
                AgentEvent::Subagent {
                    agent_id, event, ..
                } if matches!(*event, AgentEvent::RequestStart { .. }) => {
                    Some((agent_id.to_string(), t))
                }
                _ => None,
            })
            .collect()
    }

    /// Each child's messages, from its Message events, by agent id.
    pub fn child_histories(&self) -> Vec<(String, Vec<Message>)> {
        let mut out: Vec<(String, Vec<Message>)> = Vec::new();
        for (_, e) in self.events() {
            if let AgentEvent::Subagent {
                agent_id, event, ..
            } = e
                && let AgentEvent::Message { index, message } = *event
            {
                let pos = match out.iter().position(|(id, _)| **id == *agent_id) {
                    Some(p) => p,
                    None => {
                        out.push((agent_id.to_string(), Vec::new()));
                        out.len() - 1
                    }
                };
                let h = &mut out[pos].1;
                if index < h.len() {
                    h[index] = Message::clone(&message);
                } else {
                    h.push(Message::clone(&message));
                }
            }
        }
        out
    }

    pub fn reports(&self) -> Vec<AgentReport> {
        self.events()
            .into_iter()
            .filter_map(|(_, e)| match e {
                AgentEvent::AgentEnd(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    /// The parent's history, every request the provider saw and every child's history
    /// are valid (DESIGN.md §4).
    pub fn assert_valid(&self) {
        assert_agent_valid(&self.agent, &self.provider);
        for (id, h) in self.child_histories() {
            validate_history(&h).unwrap_or_else(|e| panic!("child {id}'s history: {e}"));
        }
    }
}

/// The text of the first user message of a request (a child's prompt).
pub fn first_prompt(messages: &[Message]) -> String {
    messages.first().map(|m| m.text()).unwrap_or_default()
}
