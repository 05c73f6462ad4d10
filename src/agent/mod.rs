//! The agent: owns the conversation and runs the query loop. It never touches the terminal.

pub mod assembler;
pub mod attach;
pub mod attachments;
mod checkpoints;
pub mod context;
pub mod exec_env;
pub mod executor;
mod history_view;
pub mod hook_calls;
pub mod hook_env;
pub mod hooks_review;
pub mod mentions;
pub mod model_routes;
pub mod notification;
pub mod query_loop;
mod request_errors;
mod rewind;
mod sandbox_call;
pub mod session_switch;
pub mod shell_command;
pub mod steer_inbox;
pub mod subagent;
pub mod task;
mod tool_call;
mod unanswered;

use std::sync::Arc;
use std::time::Duration;

use crate::message::{History, HistoryCheck, Message, Role};
use crate::protocol::AgentEvent;
use crate::protocol::events::EventSink;
use crate::provider::retry::RetryPolicy;
use crate::provider::{Messages, Provider, Reasoning, Request, SystemPrompt, ToolSpec};
use exec_env::ExecEnv;

/// Request settings that stay the same across turns.
#[derive(Clone, Debug)]
pub struct LoopSettings {
    pub model: String,
    /// Assembled once per session (src/prompt): the same bytes every turn.
    pub system: SystemPrompt,
    /// Extended thinking / reasoning effort, sent with every request.
    pub reasoning: Reasoning,
    pub max_tokens: u32,
    pub max_turns: u32,
    pub retry: RetryPolicy,
    pub idle_timeout: Duration,
    pub disable_parallel_tool_use: bool,
    pub fallback_model: Option<String>,
    /// Offer Anthropic's server-side web_search tool, at most this many searches a request.
    pub web_search: Option<u32>,
    /// `[models] plan / small`: the models of plan mode and of small jobs.
    pub routes: model_routes::ModelRoutes,
}

/// Tests and benchmarks: a made-up model name and a short system prompt.
#[cfg(any(test, feature = "test-support"))]
impl Default for LoopSettings {
    fn default() -> Self {
        LoopSettings {
            model: "test-model".into(),
            system: "You are a test.".into(),
            reasoning: Reasoning::default(),
            max_tokens: 1024,
            max_turns: 10,
            retry: RetryPolicy::default(),
            idle_timeout: Duration::from_secs(90),
            disable_parallel_tool_use: false,
            fallback_model: None,
            web_search: None,
            routes: Default::default(),
        }
    }
}

pub struct Agent {
    pub provider: Arc<dyn Provider>,
    pub exec: ExecEnv,
    pub settings: LoopSettings,
    /// Messages are immutable once appended and shared (requests borrow them, front ends and
    /// transcripts get the same `Arc`): nothing per turn copies the history.
    pub history: History,
    /// Each new message is checked against the one before it (DESIGN.md §4).
    check: HistoryCheck,
    /// tool_use ids of calls a compaction took out of the history (or a resumed session's
    /// compactions had): a model that uses one again gets a fresh id, so the transcript's
    /// timings and the screen's rows, keyed by id, never mix two calls (issue 41, item 3).
    retired_ids: std::collections::HashSet<String>,
    /// Transcript writer, if sessions are on.
    pub observer: Option<Box<dyn crate::protocol::history_observer::HistoryObserver>>,
    /// Context window use, cost and compaction state (DESIGN.md §10).
    pub context: context::ContextState,
    /// What tooloop recorded of the session (requests, files, commands) for the state block
    /// a compaction appends (DESIGN.md §12).
    pub facts: context::facts::SessionFacts,
    /// The configured MCP servers (their tools join the registry before the first request).
    pub mcp: Option<Arc<crate::mcp::McpManager>>,
    /// The skills offered through the `skill` tool (None: not looked for, as in subagents).
    pub skills: Option<crate::skills::SkillState>,
    /// The hooks and permissions of Claude Code's settings files in force: a change during
    /// the session is said, and applied only when the user accepts it in `/hooks` (None:
    /// not watched, as in subagents).
    pub settings_watch: Option<hooks_review::SharedWatch>,
    /// Whether they have.
    mcp_joined: bool,
    /// The session's todo list (`todo_write` writes it; compaction carries
    /// [`crate::todo::TodoList::current`] into the new context).
    pub todos: Arc<crate::todo::TodoList>,
    /// The list's version the transcript last recorded.
    todos_recorded: u64,
    /// The plan `exit_plan_mode` handed over in this reply, if any (headless plan mode ends
    /// the run with it).
    pub plan: crate::tools::exit_plan_mode::PlanSlot,
    /// The last prompt's message, kept only while the model has not answered it
    /// (unanswered.rs): the next prompt replaces it instead of joining it.
    unanswered: unanswered::PromptSlot,
    /// Texts sent while the turn runs, joined at the next tool boundary (issue 40).
    pub steer: steer_inbox::SteerInbox,
}

impl Agent {
    /// An agent over a provider and an executor setup ([`crate::engine`] builds the real one).
    pub fn new(provider: Arc<dyn Provider>, exec: ExecEnv, settings: LoopSettings) -> Self {
        Agent {
            provider,
            exec,
            settings,
            history: History::default(),
            check: HistoryCheck::default(),
            retired_ids: Default::default(),
            observer: None,
            context: context::ContextState::default(),
            facts: Default::default(),
            mcp: None,
            skills: None,
            settings_watch: None,
            mcp_joined: false,
            todos: crate::todo::TodoList::new(),
            todos_recorded: 0,
            plan: Default::default(),
            unanswered: Default::default(),
            steer: Default::default(),
        }
    }

    /// Writes the todo list to the transcript if it changed since the last record (after
    /// each reply's tools, so a resumed session shows the list as it was).
    pub(crate) fn record_todos(&mut self) {
        let version = self.todos.version();
        if version == self.todos_recorded {
            return;
        }
        self.todos_recorded = version;
        if let Some(r) = &mut self.observer {
            r.todos(&self.todos.current());
        }
    }

    /// Puts a resumed session's list in place (front ends hear of it; the transcript
    /// already holds it).
    pub(crate) fn restore_todos(&mut self, todos: Vec<crate::todo::TodoItem>) {
        self.todos.set(todos);
        self.todos_recorded = self.todos.version();
    }

    pub fn events(&self) -> &EventSink {
        &self.exec.events
    }

    /// The next request, borrowing the history (nothing is copied).
    pub fn request<'a>(&'a self, model: &'a str, tools: &'a [ToolSpec]) -> Request<'a> {
        Request {
            model,
            system: &self.settings.system,
            messages: Messages::Shared(self.history.shared()),
            tools,
            max_tokens: self.settings.max_tokens,
            disable_parallel_tool_use: self.settings.disable_parallel_tool_use,
            reasoning: self.settings.reasoning,
            web_search: self.settings.web_search,
        }
    }

    /// Requests use `model` from now on; the transcript records it with the next prompt
    /// (every prompt_start names its model).
    pub fn set_model(&mut self, model: String) {
        tracing::info!(from = %self.settings.model, to = %model, "model switched");
        self.settings.model = model.clone();
        self.exec.events.send(AgentEvent::ModelChanged { model });
    }

    /// Appends a message, merging it into the last one when both have the same role: two
    /// user messages (a prompt after an interruption), or an assistant reply that continues
    /// a paused one (`pause_turn`: the API continues the message it was sent back), so
    /// roles keep alternating.
    pub fn push(&mut self, message: Message) {
        self.record_jobs();
        if message.content.is_empty() {
            return;
        }
        self.facts
            .observe(&message, &self.exec.registry, self.exec.workspace.root());
        let mut continued = None;
        let index = match self.history.last_mut() {
            Some(last) if last.role == message.role => {
                // Appended messages are shared and never change: the extension is a new one.
                let mut merged = Message::clone(last);
                if message.role == Role::Assistant {
                    continued = Some(merged.content.len());
                }
                merged.content.extend(message.content);
                *last = Arc::new(merged);
                self.history.len() - 1
            }
            _ => {
                self.history.push(Arc::new(message));
                self.history.len() - 1
            }
        };
        let checked = match continued {
            Some(from) => self.check.continued(&self.history[index], from, index),
            None => self.check.message(&self.history, index),
        };
        if let Err(e) = checked {
            // The loop builds every message; this is a bug tripwire, not input validation.
            tracing::error!("history invariant broken by message {index}: {e}");
            debug_assert!(false, "history invariant broken: {e}");
        }
        let message = &self.history[index];
        if let Some(r) = &mut self.observer {
            r.message(index, message);
        }
        self.exec.events.send(AgentEvent::Message {
            index,
            message: message.clone(),
        });
    }

    /// Writes the background jobs' starts and ends that the transcript lacks (they happen
    /// in the jobs' own tasks; the agent owns the transcript).
    pub fn record_jobs(&mut self) {
        let changes = self.exec.jobs.take_unrecorded();
        if let Some(r) = &mut self.observer {
            for job in &changes {
                r.background(job);
            }
        }
    }

    /// Replaces the conversation (a new session, or a resumed one). The facts are read
    /// again from `messages`; a resume that has the whole transcript rebuilds them after.
    pub fn reset(&mut self, messages: Vec<Message>) {
        self.facts = context::facts::SessionFacts::rebuild(
            &[],
            &messages,
            &self.exec.registry,
            self.exec.workspace.root(),
        );
        self.replace_history(messages);
        // A new or resumed conversation starts without the old list (a resume puts its own
        // back right after).
        if !self.todos.current().is_empty() {
            self.restore_todos(Vec::new());
        }
        self.context.forget_usage();
        if let Some(r) = &mut self.observer {
            r.reset(&self.history);
        }
        self.exec.events.send(AgentEvent::HistoryReset {
            summaries: self.exec.registry.summaries(&self.history),
            messages: self.history.to_vec(),
        });
        if let Some(id) = self.observer.as_ref().and_then(|r| r.session_id()) {
            self.exec.events.send(AgentEvent::Session { id });
        }
    }

    /// Puts `messages` in place of the history (a reset or a compaction) and checks them
    /// once, so the incremental check goes on from here.
    pub(crate) fn replace_history(&mut self, messages: Vec<Message>) {
        self.history = History::from(messages);
        self.check = HistoryCheck::default();
        for i in 0..self.history.len() {
            if let Err(e) = self.check.message(&self.history, i) {
                tracing::warn!("the history put in place breaks an invariant: {e}");
                break;
            }
        }
    }

    /// Whether a tool_use id is taken: in the history, or by a call compacted out of it.
    pub(crate) fn tool_id_taken(&self, id: &str) -> bool {
        self.check.knows(id) || self.retired_ids.contains(id)
    }

    /// The calls in `messages` left the history (compacted away): their ids stay taken.
    pub(crate) fn retire_tool_ids(&mut self, messages: &[Message]) {
        let ids = messages
            .iter()
            .flat_map(|m| m.tool_uses().map(|(id, _, _)| id));
        self.retired_ids.extend(ids.map(str::to_string));
    }

    /// The text of the last assistant message.
    pub fn last_assistant_text(&self) -> String {
        self.history
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(|m| m.text())
            .unwrap_or_default()
    }
}
