//! The parts `start` builds from a resolved Config: the executor's setup, subagents, MCP,
//! skills, the loop's settings, the sandbox and telemetry.

use std::sync::Arc;

use super::{EngineError, FrontEnd};
use crate::agent::LoopSettings;
use crate::agent::exec_env::ExecEnv;
use crate::agent::subagent::Subagents;
use crate::config::Config;
use crate::permission::PermissionPolicy;
use crate::protocol::AgentEvent;
use crate::protocol::events::EventSink;
use crate::provider::Provider;
use crate::session::SessionInfo;
use crate::tools::{ToolRegistry, Workspace};

/// The executor's setup for `tools`: the policy the config asks for, and its limits.
pub fn exec_env(
    config: &Config,
    front: FrontEnd,
    tools: ToolRegistry,
    events: EventSink,
) -> Result<ExecEnv, EngineError> {
    let workspace = Workspace::new(&config.workspace, config.tools.allow_outside_workspace)
        .map_err(|source| EngineError::Workspace {
            path: config.workspace.clone(),
            source,
        })?;
    let mut policy = PermissionPolicy::new(
        config.tools.approval,
        &config.tools.allowed_tools,
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
    exec.strategy = config.tools.tool_exec;
    exec.sibling_abort = config.tools.sibling_abort;
    exec.max_output_bytes = config.tools.max_output_bytes;
    exec.default_timeout = config.tools.tool_timeout;
    exec.jobs = Arc::new(crate::background::Jobs::in_state_dir(
        config.tools.max_jobs,
        crate::agent::exec_env::job_events(&exec.events),
    ));
    Ok(exec)
}

/// Adds `exit_plan_mode` (offered only in plan mode), which reads the policy's mode.
pub(super) fn with_plan_tool(
    mut exec: ExecEnv,
    plan: crate::tools::exit_plan_mode::PlanSlot,
) -> ExecEnv {
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
pub(super) fn with_skills(
    config: &Config,
    mut exec: ExecEnv,
) -> (ExecEnv, crate::skills::SkillState) {
    let dirs = crate::skills::dirs_for(&config.workspace);
    let catalog = crate::skills::Catalog::load(&dirs);
    for text in &catalog.notices {
        exec.events.send(AgentEvent::Notice { text: text.clone() });
    }
    let state = crate::skills::SkillState {
        dirs,
        catalog: Arc::new(catalog),
        window_tokens: config
            .context
            .models
            .lookup(&config.provider.model)
            .context_window,
        policy: Some(exec.policy.clone()),
        active: Arc::default(),
    };
    if let Some(tool) = state.tool() {
        let (registry, _) = exec.registry.with_builtin(tool);
        exec.registry = Arc::new(registry);
    }
    (exec, state)
}

/// What the `task` tool needs to start subagents: the agent definitions (files that cannot
/// be read are said as notices), the limits, and the top-level agent's setup.
pub(super) fn subagents(
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
pub(super) fn loop_settings_and_notes(config: &Config) -> (LoopSettings, Vec<String>) {
    let prompt = crate::prompt::for_workspace(
        &config.workspace,
        config.prompt.system.clone(),
        config.prompt.append_system.clone(),
        config.prompt.project_instructions,
    );
    let notes = config.notes.iter().cloned().chain(prompt.notices).collect();
    let settings = LoopSettings {
        model: config.provider.model.clone(),
        system: prompt.prompt,
        reasoning: crate::provider::Reasoning {
            thinking_budget: config.request.thinking_budget,
            effort: config.request.reasoning_effort,
        },
        max_tokens: config.request.max_tokens,
        max_turns: config.request.max_turns,
        retry: config.provider.retry.clone(),
        idle_timeout: config.provider.idle_timeout,
        disable_parallel_tool_use: config.request.disable_parallel_tool_use,
        fallback_model: config.provider.fallback_model.clone(),
        web_search: config.tools.web_search,
        routes: config.routes.clone(),
    };
    (settings, notes)
}

/// The sandbox of a run from its config; what the user should know about it is said once,
/// as a notice, when the run starts.
fn sandbox_for_run(
    config: &crate::config::Config,
    events: &EventSink,
) -> Option<Arc<crate::sandbox::SandboxPolicy>> {
    let resolved = crate::sandbox::resolve(
        config.sandbox.mode,
        config.sandbox.network,
        &config.workspace,
    );
    tracing::info!(
        sandbox = resolved.label(),
        network = config.sandbox.network,
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
pub(super) fn sandboxed_tools(registry: &crate::tools::ToolRegistry) -> Vec<String> {
    registry
        .names()
        .filter(|n| registry.get(n).is_some_and(|r| r.tool.runs_sandboxed()))
        .map(str::to_string)
        .collect()
}

/// Who is running, for telemetry's attributes: the server comes from the base URL.
pub(super) fn telemetry_run(
    config: &Config,
    provider: &str,
    session: Option<&SessionInfo>,
) -> crate::telemetry::RunInfo {
    let url = reqwest::Url::parse(&config.provider.base_url).ok();
    crate::telemetry::RunInfo {
        provider: provider.to_string(),
        model: config.provider.model.clone(),
        server_address: url.as_ref().and_then(|u| u.host_str().map(str::to_string)),
        server_port: url
            .as_ref()
            .and_then(|u| u.port_or_known_default())
            .map(i64::from),
        session: session.map(|s| s.id.clone()).unwrap_or_default(),
    }
}
