//! The agent: owns the conversation and runs the query loop. It never touches the terminal.

pub mod assembler;
pub mod events;
pub mod executor;
pub mod protocol;
pub mod query_loop;
pub mod recorder;
pub mod task;
mod tool_call;

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::message::{ContentBlock, Message, Role};
use crate::permission::PermissionPolicy;
use crate::provider::retry::RetryPolicy;
use crate::provider::{ModelRequest, Provider};
use crate::tools::{ToolRegistry, Workspace};
use events::EventSink;
use executor::ExecEnv;
use protocol::AgentEvent;

/// Request settings that stay the same across turns.
#[derive(Clone, Debug)]
pub struct LoopSettings {
    pub model: String,
    pub system: String,
    pub max_tokens: u32,
    pub max_turns: u32,
    pub retry: RetryPolicy,
    pub idle_timeout: Duration,
    pub disable_parallel_tool_use: bool,
    pub fallback_model: Option<String>,
}

impl Default for LoopSettings {
    fn default() -> Self {
        LoopSettings {
            model: "test-model".into(),
            system: "You are a test.".into(),
            max_tokens: 1024,
            max_turns: 10,
            retry: RetryPolicy::default(),
            idle_timeout: Duration::from_secs(90),
            disable_parallel_tool_use: false,
            fallback_model: None,
        }
    }
}

impl LoopSettings {
    pub fn from_config(config: &Config) -> Self {
        LoopSettings {
            model: config.model.clone(),
            system: config.system.clone(),
            max_tokens: config.max_tokens,
            max_turns: config.max_turns,
            retry: config.retry.clone(),
            idle_timeout: config.idle_timeout,
            disable_parallel_tool_use: config.disable_parallel_tool_use,
            fallback_model: config.fallback_model.clone(),
        }
    }
}

pub struct Agent {
    pub provider: Arc<dyn Provider>,
    pub exec: ExecEnv,
    pub settings: LoopSettings,
    pub history: Vec<Message>,
    /// Transcript writer, if sessions are on.
    pub recorder: Option<Box<dyn recorder::Recorder>>,
}

impl Agent {
    /// An agent over any provider and executor setup (tests, benchmarks).
    pub fn new(provider: Arc<dyn Provider>, exec: ExecEnv, settings: LoopSettings) -> Self {
        Agent {
            provider,
            exec,
            settings,
            history: Vec::new(),
            recorder: None,
        }
    }

    /// Builds an agent from a resolved config. `interactive` is false for headless runs,
    /// where nobody can answer a permission question.
    pub fn from_config(
        config: &Config,
        provider: Arc<dyn Provider>,
        events: EventSink,
        interactive: bool,
    ) -> Result<Self, String> {
        let workspace = Workspace::new(&config.workspace, config.allow_outside_workspace)
            .map_err(|e| format!("workspace {}: {e}", config.workspace.display()))?;
        let policy = PermissionPolicy::new(config.approval, &config.allowed_tools, interactive);
        let mut exec = ExecEnv::with_defaults(ToolRegistry::builtin(), workspace, events);
        exec.policy = Arc::new(policy);
        exec.strategy = config.tool_exec;
        exec.sibling_abort = config.sibling_abort;
        exec.max_output_bytes = config.max_output_bytes;
        Ok(Agent::new(
            provider,
            exec,
            LoopSettings::from_config(config),
        ))
    }

    pub fn events(&self) -> &EventSink {
        &self.exec.events
    }

    pub fn request(&self, model: &str) -> ModelRequest {
        ModelRequest {
            model: model.to_string(),
            system: self.settings.system.clone(),
            messages: self.history.clone(),
            tools: self.exec.registry.specs(),
            max_tokens: self.settings.max_tokens,
            disable_parallel_tool_use: self.settings.disable_parallel_tool_use,
        }
    }

    /// Appends a message, merging it into the last one when both are user messages (a
    /// prompt after an interruption), so roles keep alternating.
    pub fn push(&mut self, message: Message) {
        if message.content.is_empty() {
            return;
        }
        let index = match self.history.last_mut() {
            Some(last) if last.role == Role::User && message.role == Role::User => {
                last.content.extend(message.content);
                self.history.len() - 1
            }
            _ => {
                self.history.push(message);
                self.history.len() - 1
            }
        };
        if let Some(r) = &mut self.recorder {
            r.message(index, &self.history[index]);
        }
        self.exec.events.send(AgentEvent::Message {
            index,
            message: self.history[index].clone(),
        });
    }

    /// Replaces the conversation (a new session, or a resumed one).
    pub fn reset(&mut self, messages: Vec<Message>) {
        self.history = messages;
        if let Some(r) = &mut self.recorder {
            r.reset(&self.history);
        }
        self.exec.events.send(AgentEvent::HistoryReset {
            messages: self.history.clone(),
            summaries: self.exec.registry.summaries(&self.history),
        });
        if let Some(id) = self.recorder.as_ref().and_then(|r| r.session_id()) {
            self.exec.events.send(AgentEvent::Session { id });
        }
    }

    /// The text of the last assistant message.
    pub fn last_assistant_text(&self) -> String {
        self.history
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(Message::text)
            .unwrap_or_default()
    }
}

/// The marker left in history after Ctrl+C, so the model knows why it was cut off.
pub const INTERRUPT_MARKER: &str = "[interrupted by user]";

pub fn interrupt_block() -> ContentBlock {
    ContentBlock::text(INTERRUPT_MARKER)
}
