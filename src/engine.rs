//! One start for both front ends: from a resolved [`Config`] to a running agent task.
//!
//! `start` builds the provider, the tool registry, the permission policy, the executor
//! settings and the loop settings, attaches the session and puts the trace recorder on the
//! event channel. The TUI and headless mode then talk to the agent only through
//! [`AgentCommand`] / [`AgentEvent`] (DESIGN.md §1). This is the one place where the
//! command line's choices meet the core: `src/agent/` never reads a Config.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::agent::exec_env::ExecEnv;
use crate::agent::subagent::Subagents;
use crate::agent::{Agent, LoopSettings};
use crate::config::Config;
use crate::permission::PermissionPolicy;
use crate::protocol::events::EventSink;
use crate::protocol::session_error::SessionError;
use crate::protocol::{AgentCommand, AgentEvent};
use crate::provider::Provider;
use crate::session::SessionInfo;
use crate::tools::{ToolRegistry, Workspace};
use crate::trace::Tap;

/// Who answers permission questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontEnd {
    /// The TUI: `ask` opens the approval modal.
    Interactive,
    /// Print mode: nobody can answer, so `ask` means deny (CLI.md).
    Headless,
    /// An editor over ACP: `ask` becomes `session/request_permission`.
    Editor,
}

/// What tests and benchmarks may put in place of the real thing.
#[derive(Default)]
pub struct Overrides {
    /// Instead of the provider the config names.
    pub provider: Option<Arc<dyn Provider>>,
    /// Instead of the sessions directory under the user's data directory.
    pub sessions_dir: Option<PathBuf>,
    /// Instead of the built-in tools.
    pub tools: Option<ToolRegistry>,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Provider(#[from] crate::provider::SetupError),
    #[error("workspace {}: {source}", path.display())]
    Workspace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// A running agent task and the channels to it.
pub struct Engine {
    /// Everything the agent says, in order (seen by the trace recorder first, with --trace).
    pub events: mpsc::UnboundedReceiver<AgentEvent>,
    pub control: Control,
    /// The transcript this run writes to (None with --no-session).
    pub session: Option<SessionInfo>,
    /// The shell sandbox's mode for the status bar ("off" when there is none).
    pub sandbox: &'static str,
    /// The tools that run inside it (their stream-json `tool_end` lines say so).
    pub sandboxed_tools: Vec<String>,
    /// The session's background jobs (headless lists them in `result.background`).
    pub jobs: Arc<crate::background::Jobs>,
}

/// The front end's handle on the agent task.
pub struct Control {
    commands: mpsc::UnboundedSender<AgentCommand>,
    task: JoinHandle<Agent>,
    /// Ended by the agent task when it stops; killed here if it does not stop in time.
    jobs: Arc<crate::background::Jobs>,
    trace: Option<Tap>,
    record: Option<crate::recording::RecordTap>,
    telemetry: Option<crate::telemetry::TelemetryTap>,
}

impl Control {
    /// The channel commands go in by (the TUI's event loop holds it).
    pub fn commands(&self) -> &mpsc::UnboundedSender<AgentCommand> {
        &self.commands
    }

    /// False when the agent task is gone.
    pub fn send(&self, command: AgentCommand) -> bool {
        self.commands.send(command).is_ok()
    }

    /// Asks the agent task to stop (a turn in progress is cancelled: its tools' process
    /// groups are killed) and waits up to `grace` for it; then writes the trace. The agent
    /// comes back if it stopped in time.
    pub async fn stop(self, grace: Duration) -> Option<Agent> {
        let Control {
            commands,
            task,
            jobs,
            trace,
            record,
            telemetry,
        } = self;
        let _ = commands.send(AgentCommand::Shutdown);
        drop(commands);
        let agent = match tokio::time::timeout(grace, task).await {
            Ok(Ok(agent)) => {
                if let Some(mcp) = &agent.mcp {
                    // stdio servers exit when their stdin closes; do not wait on a stuck one.
                    let _ = tokio::time::timeout(grace, mcp.shutdown()).await;
                }
                Some(agent)
            }
            Ok(Err(e)) => {
                tracing::error!("the agent task failed: {e}");
                None
            }
            Err(_) => {
                tracing::warn!("the agent task did not stop within {grace:?}");
                None
            }
        };
        // Whatever became of the agent task, no job outlives the session.
        jobs.kill_now();
        if let Some(trace) = trace {
            trace.write();
        }
        if let Some(record) = record {
            record.finish();
        }
        if let Some(telemetry) = telemetry {
            telemetry.shutdown().await;
        }
        agent
    }
}

/// What `main` hands a front end that starts its engines itself: the resolved config and
/// who answers permission questions. ACP starts one engine per session, each rooted at
/// the editor's `cwd` and resuming or starting its own transcript; the front end changes
/// only those fields of a copy (DESIGN.md §13: front ends never read the command line).
#[derive(Clone)]
pub struct Builder {
    config: Config,
    front: FrontEnd,
    /// Tests and benchmarks: parts put in place of the real ones, made anew per engine.
    overrides: Option<Arc<dyn Fn() -> Overrides + Send + Sync>>,
}

impl Builder {
    pub fn new(config: Config, front: FrontEnd) -> Self {
        Builder {
            config,
            front,
            overrides: None,
        }
    }

    /// Every engine built gets the parts `make` returns.
    pub fn with_overrides(mut self, make: Arc<dyn Fn() -> Overrides + Send + Sync>) -> Self {
        self.overrides = Some(make);
        self
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// An engine for the config as it is.
    pub fn start(&self) -> Result<Engine, EngineError> {
        self.start_adjusted(|_| {})
    }

    /// An engine for a copy of the config that `adjust` changed (workspace, session, MCP
    /// servers of one ACP session).
    pub fn start_adjusted(&self, adjust: impl FnOnce(&mut Config)) -> Result<Engine, EngineError> {
        let mut config = self.config.clone();
        adjust(&mut config);
        let overrides = self.overrides.as_ref().map(|f| f()).unwrap_or_default();
        start_with(&config, self.front, overrides)
    }
}

/// Starts the agent task for `config`. Must be called inside a tokio runtime.
pub fn start(config: &Config, front: FrontEnd) -> Result<Engine, EngineError> {
    start_with(config, front, Overrides::default())
}

/// [`start`] with parts replaced (tests, benchmarks).
pub fn start_with(
    config: &Config,
    front: FrontEnd,
    overrides: Overrides,
) -> Result<Engine, EngineError> {
    let provider = match overrides.provider {
        Some(p) => p,
        None => crate::provider::build(config.provider, &config.provider_settings())?,
    };
    let (sink, events) = EventSink::channel();
    let (settings, notes) = loop_settings_and_notes(config);
    // Said once at start: the front end reads the channel from its first event.
    for text in notes {
        sink.send(AgentEvent::Notice { text });
    }
    let mut tools = overrides.tools.unwrap_or_else(ToolRegistry::builtin);
    // The session's todo list: the tool writes it, every change is an event.
    let todos = crate::todo::TodoList::new();
    let todo_events = sink.clone();
    todos.set_listener(Arc::new(move |items: &[crate::todo::TodoItem]| {
        todo_events.send(AgentEvent::Todos {
            todos: items.to_vec(),
        })
    }));
    if tools.get(crate::tools::todo_write::NAME).is_none() {
        tools.register(Arc::new(crate::tools::todo_write::TodoWrite::new(
            todos.clone(),
        )));
    }
    let plan = crate::tools::exit_plan_mode::PlanSlot::default();
    let mut exec = exec_env(config, front, tools, sink.clone())?;
    let context = crate::agent::context::ContextState::new(config.context.clone());
    let mcp = start_mcp(config, &sink);
    let hub = subagents(config, &provider, &settings, &exec, mcp.clone());
    exec.registry = Arc::new(hub.with_task_tool(&exec.registry, context.ledger.clone(), sink));
    // After the hub took its copy: subagents do not hand plans over (nor use skills).
    let exec = with_plan_tool(exec, plan.clone());
    let (exec, skills) = with_skills(config, exec);
    let mut agent = Agent::new(provider, exec, settings);
    agent.skills = Some(skills);
    agent.todos = todos;
    agent.plan = plan;
    agent.context = context;
    agent.mcp = mcp;
    let session = match &overrides.sessions_dir {
        Some(dir) => crate::agent::attach::attach_in(
            dir,
            &config.session,
            &config.workspace,
            config.fork,
            &mut agent,
        )?,
        None => crate::agent::attach::attach(
            &config.session,
            &config.workspace,
            config.fork,
            &mut agent,
        )?,
    };
    // Children's histories go into the live transcript (it changes with /new and forks).
    if let Some(handle) = agent.observer.as_ref().and_then(|r| r.handle()) {
        hub.set_recorders(Arc::new(move |info| {
            crate::session::child::ChildTranscript::open(
                &handle.path(),
                &info.agent_id,
                &info.parent_tool_use_id,
                &info.agent,
            )
            .map(|t| Box::new(t) as Box<dyn crate::protocol::history_observer::HistoryObserver>)
        }));
    }
    // The trace's clock starts when the agent is ready, as headless output's t_ms does.
    let (events, trace) = Tap::maybe(config.trace.as_deref(), events, Instant::now());
    let (commands, commands_rx) = mpsc::unbounded_channel();
    let sandbox = crate::sandbox::label(agent.exec.sandbox.as_deref());
    let sandboxed_tools = sandboxed_tools(&agent.exec.registry);
    let jobs = agent.exec.jobs.clone();
    let (events, record) = crate::recording::start(
        config.record,
        session.as_ref(),
        crate::recording::RunInfo {
            provider: agent.provider.name(),
            model: &config.model,
            sandbox,
            sandboxed_tools: &sandboxed_tools,
        },
        agent.events(),
        events,
    );
    let (events, telemetry) = crate::telemetry::start(
        config.telemetry,
        telemetry_run(config, agent.provider.name(), session.as_ref()),
        agent.events(),
        events,
    );
    let task = crate::agent::task::spawn(agent, commands_rx);
    Ok(Engine {
        events,
        control: Control {
            commands,
            task,
            jobs: jobs.clone(),
            trace,
            record,
            telemetry,
        },
        session,
        sandbox,
        sandboxed_tools,
        jobs,
    })
}

/// The executor's setup for `tools`: the policy the config asks for, and its limits.
pub fn exec_env(
    config: &Config,
    front: FrontEnd,
    tools: ToolRegistry,
    events: EventSink,
) -> Result<ExecEnv, EngineError> {
    let workspace =
        Workspace::new(&config.workspace, config.allow_outside_workspace).map_err(|source| {
            EngineError::Workspace {
                path: config.workspace.clone(),
                source,
            }
        })?;
    let mut policy = PermissionPolicy::new(
        config.approval,
        &config.allowed_tools,
        // Someone can answer `ask`: the person at the TUI, or the editor's user over ACP.
        front != FrontEnd::Headless,
    );
    policy.set_rules(
        config.permission_rules.clone(),
        Some(crate::permission::settings::local_path(workspace.root())),
    );
    let sandbox = sandbox_for_run(config, &events);
    if sandbox.is_some() {
        policy.set_sandboxed(&sandboxed_tools(&tools));
    }
    let mut exec = ExecEnv::new(tools, policy, workspace, events);
    exec.sandbox = sandbox;
    exec.hooks = Arc::new(crate::agent::hook_calls::HookEnv::new(config.hooks.clone()));
    exec.strategy = config.tool_exec;
    exec.sibling_abort = config.sibling_abort;
    exec.max_output_bytes = config.max_output_bytes;
    exec.default_timeout = config.tool_timeout;
    exec.jobs = Arc::new(crate::background::Jobs::in_state_dir(
        config.max_jobs,
        crate::agent::exec_env::job_events(&exec.events),
    ));
    Ok(exec)
}

/// Adds `exit_plan_mode` (offered only in plan mode), which reads the policy's mode.
fn with_plan_tool(mut exec: ExecEnv, plan: crate::tools::exit_plan_mode::PlanSlot) -> ExecEnv {
    use crate::tools::exit_plan_mode::ExitPlanMode;
    if exec
        .registry
        .get(crate::tools::exit_plan_mode::EXIT_PLAN_MODE)
        .is_some()
    {
        return exec;
    }
    let policy = exec.policy.clone();
    let tool = ExitPlanMode::new(plan, Arc::new(move || policy.mode().as_str()));
    let (registry, _) = exec.registry.with_builtin(Arc::new(tool));
    exec.registry = Arc::new(registry);
    exec
}

/// The skills of the workspace and the user: the `skill` tool when there is one to offer,
/// its listing capped for the model's window; bad files are notices.
fn with_skills(config: &Config, mut exec: ExecEnv) -> (ExecEnv, crate::skills::SkillState) {
    let dirs = crate::skills::dirs_for(&config.workspace);
    let catalog = crate::skills::Catalog::load(&dirs);
    for text in &catalog.notices {
        exec.events.send(AgentEvent::Notice { text: text.clone() });
    }
    let state = crate::skills::SkillState {
        dirs,
        catalog: Arc::new(catalog),
        window_tokens: config.context.models.lookup(&config.model).context_window,
        policy: Some(exec.policy.clone()),
    };
    if let Some(tool) = state.tool() {
        let (registry, _) = exec.registry.with_builtin(tool);
        exec.registry = Arc::new(registry);
    }
    (exec, state)
}

/// What the `task` tool needs to start subagents: the agent definitions (files that cannot
/// be read are said as notices), the limits, and the top-level agent's setup.
fn subagents(
    config: &Config,
    provider: &Arc<dyn Provider>,
    settings: &LoopSettings,
    exec: &ExecEnv,
    mcp: Option<Arc<crate::mcp::McpManager>>,
) -> Arc<Subagents> {
    let (definitions, errors) = agent_definitions(config);
    for e in errors {
        tracing::warn!("{e}");
        exec.events.send(AgentEvent::Notice {
            text: e.to_string(),
        });
    }
    Subagents::new(
        provider.clone(),
        settings.clone(),
        config.context.clone(),
        exec.clone(),
        definitions,
        config.agents,
        mcp,
    )
}

/// The agent definitions of the workspace and the user (`tooloop agents`, the task tool).
pub fn agent_definitions(
    config: &Config,
) -> (
    Vec<crate::agent::subagent::AgentDefinition>,
    Vec<crate::agent::subagent::definitions::DefinitionError>,
) {
    let user = crate::paths::config_file()
        .ok()
        .and_then(|f| f.parent().map(std::path::Path::to_path_buf));
    let dirs = crate::agent::subagent::definitions::dirs(&config.workspace, user.as_deref());
    crate::agent::subagent::definitions::load(&dirs)
}

/// Launches the configured MCP servers without waiting for any (the first frame is not
/// held up); each state change becomes an [`AgentEvent::Mcp`].
pub fn start_mcp(config: &Config, events: &EventSink) -> Option<Arc<crate::mcp::McpManager>> {
    if config.mcp.is_empty() {
        return None;
    }
    let events = events.clone();
    Some(crate::mcp::McpManager::start(
        config.mcp.clone(),
        config.workspace.clone(),
        Arc::new(|name: &str| std::env::var(name).ok()),
        Arc::new(move |status| events.send(AgentEvent::Mcp(status))),
    ))
}

/// Request settings from the config (the system prompt assembled from its parts).
pub fn loop_settings(config: &Config) -> LoopSettings {
    loop_settings_and_notes(config).0
}

/// [`loop_settings`] and what the user should hear about them (a raised max_tokens, a cut
/// instruction file).
fn loop_settings_and_notes(config: &Config) -> (LoopSettings, Vec<String>) {
    let prompt = crate::prompt::for_workspace(
        &config.workspace,
        config.system.clone(),
        config.append_system.clone(),
        config.project_instructions,
    );
    let notes = config.notes.iter().cloned().chain(prompt.notices).collect();
    let settings = LoopSettings {
        model: config.model.clone(),
        system: prompt.prompt,
        reasoning: crate::provider::Reasoning {
            thinking_budget: config.thinking_budget,
            effort: config.reasoning_effort,
        },
        max_tokens: config.max_tokens,
        max_turns: config.max_turns,
        retry: config.retry.clone(),
        idle_timeout: config.idle_timeout,
        disable_parallel_tool_use: config.disable_parallel_tool_use,
        fallback_model: config.fallback_model.clone(),
        web_search: config.web_search,
    };
    (settings, notes)
}

/// The sandbox of a run from its config; what the user should know about it is said once,
/// as a notice, when the run starts.
fn sandbox_for_run(
    config: &crate::config::Config,
    events: &EventSink,
) -> Option<Arc<crate::sandbox::SandboxPolicy>> {
    let resolved =
        crate::sandbox::resolve(config.sandbox, config.sandbox_network, &config.workspace);
    tracing::info!(
        sandbox = resolved.label(),
        network = config.sandbox_network,
        abi = resolved.policy.as_ref().map(|p| p.abi),
        "shell sandbox"
    );
    if let Some(text) = resolved.notice {
        tracing::warn!("{text}");
        events.send(crate::protocol::AgentEvent::Notice { text });
    }
    resolved.policy
}

/// The tools of `registry` that run inside the sandbox (bash).
fn sandboxed_tools(registry: &crate::tools::ToolRegistry) -> Vec<String> {
    registry
        .names()
        .filter(|n| registry.get(n).is_some_and(|r| r.tool.runs_sandboxed()))
        .map(str::to_string)
        .collect()
}

/// Who is running, for telemetry's attributes: the server comes from the base URL.
fn telemetry_run(
    config: &Config,
    provider: &str,
    session: Option<&SessionInfo>,
) -> crate::telemetry::RunInfo {
    let url = reqwest::Url::parse(&config.base_url).ok();
    crate::telemetry::RunInfo {
        provider: provider.to_string(),
        model: config.model.clone(),
        server_address: url.as_ref().and_then(|u| u.host_str().map(str::to_string)),
        server_port: url
            .as_ref()
            .and_then(|u| u.port_or_known_default())
            .map(i64::from),
        session: session.map(|s| s.id.clone()).unwrap_or_default(),
    }
}
