//! In-process subagent runs under tokio's paused clock: a parent agent whose registry holds
//! the `task` tool, children answered by a responder on the scripted provider, every event
//! recorded with its (virtual) time.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use tokio::time::Instant;

use tooloop::agent::context::{ContextSettings, ContextState};
use tooloop::agent::exec_env::ExecEnv;
use tooloop::agent::subagent::{AgentDefinition, AgentLimits, Subagents, definitions};
use tooloop::agent::{Agent, LoopSettings};
use tooloop::message::{Message, validate_history};
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{AgentEvent, AgentReport};
use tooloop::provider::scripted::{Reply, Responder, ScriptedProvider};
use tooloop::tools::{Effect, ToolRegistry, Workspace};

#[path = "../loop_support/mod.rs"]
mod loop_support;
pub use loop_support::SleepTool;

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
        }
    }

    pub fn build(self) -> Tree {
        let runs: Arc<Mutex<Vec<String>>> = Arc::default();
        let mut registry = ToolRegistry::new();
        for (name, read_only, ms) in &self.tools {
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
        let dir = tempfile::tempdir().expect("tempdir");
        let (sink, mut rx) = EventSink::channel();
        let start = Instant::now();
        let events: Arc<Mutex<Vec<(u64, AgentEvent)>>> = Arc::default();
        let log = events.clone();
        tokio::spawn(async move {
            while let Some(e) = rx.recv().await {
                let t = start.elapsed().as_millis() as u64;
                log.lock().expect("log").push((t, e));
            }
        });
        let provider = ScriptedProvider::new(self.replies).with_responder(self.responder);
        let workspace = Workspace::new(dir.path(), false).expect("workspace");
        let mut exec =
            ExecEnv::with_defaults(registry, workspace, sink.clone()).with_approval(self.approval);
        let settings = LoopSettings::default();
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
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
    }

    pub fn events(&self) -> Vec<(u64, AgentEvent)> {
        self.events.lock().expect("log").clone()
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
        validate_history(&self.agent.history).expect("the parent's history is valid");
        for (i, req) in self.provider.requests().iter().enumerate() {
            validate_history(req).unwrap_or_else(|e| panic!("request {i} was invalid: {e}"));
        }
        for (id, h) in self.child_histories() {
            validate_history(&h).unwrap_or_else(|e| panic!("child {id}'s history: {e}"));
        }
    }
}

/// The text of the first user message of a request (a child's prompt).
pub fn first_prompt(messages: &[Message]) -> String {
    messages.first().map(|m| m.text()).unwrap_or_default()
}
