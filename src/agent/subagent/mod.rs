//! Loops inside the loop (DESIGN.md §12): the `task` tool starts a subagent, which is the
//! same query loop ([`Agent::run_prompt`]) with its own history, system prompt and context
//! state, driven by the same executor. Its events reach the front ends wrapped with its id
//! ([`EventSink::tagged`]), its spend adds into the parent's ([`Ledger`]), its permission
//! questions go through the parent's policy, and the call's cancellation token is its
//! loop's, so one Ctrl+C stops the whole tree.
//!
//! Nothing in the loop knows it runs a child: the only difference is the tool set, which
//! holds `task` only while the depth allows.

pub mod definitions;
mod run;
mod task_tool;
mod worktree;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use super::LoopSettings;
use super::context::ContextSettings;
use super::context::ledger::Ledger;
use super::exec_env::ExecEnv;
use crate::protocol::events::EventSink;
use crate::protocol::subagent::AgentInfo;
use crate::provider::Provider;
use crate::tools::ToolRegistry;
pub use definitions::{AgentDefinition, ToolChoice};
pub use task_tool::{TASK_TOOL, TaskTool};

/// `[agents]` in config.toml.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentLimits {
    /// How deep subagents may nest: 1 = the top-level agent's children cannot call `task`.
    pub max_depth: u32,
    /// `task` calls of one agent that run at once; the rest wait for a slot.
    pub max_parallel: usize,
    /// A subagent's turns unless its definition says otherwise.
    pub max_turns: u32,
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits {
            max_depth: 1,
            max_parallel: 4,
            max_turns: 30,
        }
    }
}

/// What every agent of a session shares to start subagents.
pub struct Subagents {
    pub provider: Arc<dyn Provider>,
    /// The top-level agent's request settings (model, system prompt parts, retries, …).
    pub settings: LoopSettings,
    pub context: ContextSettings,
    /// The executor setup of the top-level agent: its policy (one approval flow and one set
    /// of session grants), workspace, sandbox, hooks and limits. Its registry holds every
    /// tool but `task`.
    pub exec: ExecEnv,
    /// MCP servers: their tools are the parent's tools too.
    pub mcp: Option<Arc<crate::mcp::McpManager>>,
    pub definitions: Vec<AgentDefinition>,
    pub limits: AgentLimits,
    next_id: AtomicU32,
    /// Makes each child's transcript recorder (set when sessions are on).
    recorders: std::sync::OnceLock<RecorderFactory>,
    /// The session's id, written beside a child's worktree (`tooloop worktrees`).
    session: std::sync::Mutex<Option<String>>,
}

/// A child's recorder from its start: where its history is kept beside the parent's.
pub type RecorderFactory = Arc<
    dyn Fn(&AgentInfo) -> Option<Box<dyn crate::protocol::history_observer::HistoryObserver>>
        + Send
        + Sync,
>;

impl Subagents {
    pub fn new(
        provider: Arc<dyn Provider>,
        settings: LoopSettings,
        context: ContextSettings,
        exec: ExecEnv,
        definitions: Vec<AgentDefinition>,
        limits: AgentLimits,
        mcp: Option<Arc<crate::mcp::McpManager>>,
    ) -> Arc<Self> {
        Arc::new(Subagents {
            provider,
            settings,
            context,
            exec,
            mcp,
            definitions,
            limits,
            next_id: AtomicU32::new(0),
            recorders: std::sync::OnceLock::new(),
            session: std::sync::Mutex::new(None),
        })
    }

    /// Children's histories are recorded through `factory` from now on.
    pub fn set_recorders(&self, factory: RecorderFactory) {
        let _ = self.recorders.set(factory);
    }

    /// The session children's worktrees belong to.
    pub fn set_session(&self, id: &str) {
        if let Ok(mut s) = self.session.lock() {
            *s = Some(id.to_string());
        }
    }

    fn session(&self) -> Option<String> {
        self.session.lock().ok().and_then(|s| s.clone())
    }

    fn recorder(
        &self,
        info: &AgentInfo,
    ) -> Option<Box<dyn crate::protocol::history_observer::HistoryObserver>> {
        self.recorders.get().and_then(|f| f(info))
    }

    /// The next agent id of the session: `a1`, `a2`, …
    fn next_id(&self) -> String {
        format!("a{}", self.next_id.fetch_add(1, Ordering::Relaxed) + 1)
    }

    pub fn definition(&self, name: &str) -> Option<&AgentDefinition> {
        self.definitions.iter().find(|d| d.name == name)
    }

    /// `registry` with the `task` tool of the top-level agent added (when subagents are on,
    /// i.e. `max_depth` ≥ 1).
    pub fn with_task_tool(
        self: &Arc<Self>,
        registry: &ToolRegistry,
        ledger: Arc<Ledger>,
        events: EventSink,
    ) -> ToolRegistry {
        if self.limits.max_depth == 0 {
            return registry.subset(|_| true);
        }
        let task = TaskTool::new(self.clone(), 1, ledger, events);
        let (registry, error) = registry.with_builtin(Arc::new(task));
        if let Some(e) = error {
            tracing::warn!("task tool left out: {e}");
        }
        registry
    }

    /// The tools a subagent of `def` gets at `depth` (1 = a child of the top-level agent):
    /// the parent's tools as `def` chooses them, and `task` only while the depth allows.
    fn tools_for(
        self: &Arc<Self>,
        def: &AgentDefinition,
        depth: u32,
        ledger: &Arc<Ledger>,
        events: &EventSink,
    ) -> ToolRegistry {
        let mcp_tools = self.mcp.as_ref().map(|m| m.tools()).unwrap_or_default();
        let (all, _) = self.exec.registry.with_tools(mcp_tools);
        let registry = all.subset(|name| {
            // The todo list is the session's (the user's plan with the main agent): a
            // subagent keeps its own plan in its own context.
            name != TASK_TOOL
                && name != crate::tools::todo_write::NAME
                && match &def.tools {
                    ToolChoice::All => true,
                    ToolChoice::ReadOnly => all
                        .get(name)
                        .is_some_and(|r| r.tool.effect() == crate::tools::Effect::ReadOnly),
                    ToolChoice::Named(names) => names.iter().any(|n| n == name),
                }
        });
        let may_nest = depth < self.limits.max_depth
            && match &def.tools {
                ToolChoice::Named(names) => names.iter().any(|n| n == TASK_TOOL),
                ToolChoice::All => true,
                // A read-only agent must not start one that writes.
                ToolChoice::ReadOnly => false,
            };
        if may_nest {
            let task = TaskTool::new(self.clone(), depth + 1, ledger.clone(), events.clone());
            let (with_task, _) = registry.with_builtin(Arc::new(task));
            return with_task;
        }
        registry
    }
}
