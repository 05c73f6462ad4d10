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

use crate::agent::Agent;
use crate::config::Config;
use crate::protocol::events::EventSink;
use crate::protocol::session_error::SessionError;
use crate::protocol::{AgentCommand, AgentEvent};
use crate::provider::Provider;
use crate::session::SessionInfo;
use crate::tools::ToolRegistry;
use crate::trace::Tap;

mod parts;
mod prompt_judge;
pub mod worktree;
pub use parts::{agent_definitions, exec_env, loop_settings, start_mcp};
use parts::{
    loop_settings_and_notes, sandboxed_tools, subagents, telemetry_run, with_plan_tool, with_skills,
};

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
    /// `--worktree`: the worktree the run works in, finished by the front end once the
    /// agent stopped (`main` makes it before the config is read, so everything is rooted
    /// there).
    pub worktree: Option<crate::worktree::Worktree>,
    /// The terminal's focus, for the Notification hooks (None: no hook listens).
    pub unfocused: Option<Arc<std::sync::atomic::AtomicBool>>,
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
        self.start_reaching(adjust, crate::tools::file_access::local())
    }

    /// [`Builder::start_adjusted`] with the file tools reaching file content through
    /// `files` (an editor's buffers over ACP) instead of the disk.
    pub fn start_reaching(
        &self,
        adjust: impl FnOnce(&mut Config),
        files: Arc<dyn crate::tools::file_access::FileAccess>,
    ) -> Result<Engine, EngineError> {
        let mut config = self.config.clone();
        adjust(&mut config);
        let overrides = self.overrides.as_ref().map(|f| f()).unwrap_or_default();
        start_parts(&config, self.front, overrides, files)
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
    start_parts(config, front, overrides, crate::tools::file_access::local())
}

fn start_parts(
    config: &Config,
    front: FrontEnd,
    overrides: Overrides,
    files: Arc<dyn crate::tools::file_access::FileAccess>,
) -> Result<Engine, EngineError> {
    let provider = match overrides.provider {
        Some(p) => p,
        None => crate::provider::build(config.provider.kind, &config.provider_settings())?,
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
    // Prompt hooks ask the session's provider, with the `small` route; their cost is the
    // session's.
    let mut hooks = config.hooks.clone();
    hooks.set_judge(Arc::new(prompt_judge::ProviderJudge {
        provider: provider.clone(),
        model: settings.routes.small(&settings.model).to_string(),
        ledger: crate::agent::context::ledger::Ledger::child(&context.ledger),
        models: config.context.models.clone(),
    }));
    exec.hooks.replace(hooks);
    // Before the subagents' hub copies it: children reach files the same way.
    exec.files = files;
    let mcp = start_mcp(config, &sink);
    let hub = subagents(config, &provider, &settings, &exec, mcp.clone());
    exec.registry = Arc::new(hub.with_task_tool(&exec.registry, context.ledger.clone(), sink));
    // After the hub took its copy: subagents do not hand plans over (nor use skills).
    let exec = with_plan_tool(exec, plan.clone());
    let (exec, skills) = with_skills(config, exec);
    let mut agent = Agent::new(provider, exec, settings);
    agent.skills = Some(skills);
    agent.settings_watch = Some(std::sync::Arc::new(std::sync::Mutex::new(
        crate::claude::watch::SettingsWatch::start(
            &config.workspace,
            config.claude.home.as_deref(),
        ),
    )));
    agent.todos = todos;
    agent.plan = plan;
    agent.context = context;
    agent.mcp = mcp;
    let session = match &overrides.sessions_dir {
        Some(dir) => crate::agent::attach::attach_in(
            dir,
            &config.session.mode,
            &config.workspace,
            config.session.fork,
            &mut agent,
        )?,
        None => crate::agent::attach::attach(
            &config.session.mode,
            &config.workspace,
            config.session.fork,
            &mut agent,
        )?,
    };
    if let Some(s) = &session {
        hub.set_session(&s.id);
    }
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
    let (events, trace) = Tap::maybe(config.session.trace.as_deref(), events, Instant::now());
    let (commands, commands_rx) = mpsc::unbounded_channel();
    let sandbox = crate::sandbox::label(agent.exec.sandbox.as_deref());
    let sandboxed_tools = sandboxed_tools(&agent.exec.registry);
    let jobs = agent.exec.jobs.clone();
    let (events, record) = crate::recording::start(
        config.session.record,
        session.as_ref(),
        crate::recording::RunInfo {
            provider: agent.provider.name(),
            model: &config.provider.model,
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
    let unfocused = agent
        .exec
        .hooks
        .wants_notifications()
        .then(|| agent.exec.hooks.unfocused_flag());
    let task = crate::agent::task::spawn(agent, commands_rx);
    Ok(Engine {
        unfocused,
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
        worktree: None,
    })
}
