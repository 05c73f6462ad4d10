//! One Config value from flags, the environment, the config file and defaults
//! (flag > env > file > default).

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::{Cli, ProviderKind, ToolExec};
use crate::config_file::{ConfigFileError, FileConfig, ProviderSection};
use crate::protocol::approval_mode::ApprovalMode;
use crate::provider::retry::RetryPolicy;

pub const DEFAULT_THEME: &str = "dark";
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are tooloop, a coding agent in the user's terminal. \
Use the tools to look at the workspace before you answer questions about it. Call several \
independent tools in one reply when you can; they run in parallel. Be concise.";

// The session store owns its modes; the config only picks one.
pub use crate::session::SessionMode;

// Debug is written by hand below so that the key can never reach a log line.
#[derive(Clone)]
pub struct Config {
    pub provider: ProviderKind,
    pub model: String,
    pub base_url: String,
    /// Never logged, never written anywhere.
    pub api_key: Option<String>,
    pub approval: ApprovalMode,
    pub allowed_tools: Vec<String>,
    pub max_turns: u32,
    pub tool_exec: ToolExec,
    pub workspace: PathBuf,
    pub allow_outside_workspace: bool,
    /// The base system prompt (--system replaces only this part).
    pub system: String,
    /// --append-system: added after the base prompt.
    pub append_system: Option<String>,
    /// Read AGENTS.md / CLAUDE.md (off with --no-project-instructions).
    pub project_instructions: bool,
    /// Extended thinking budget; None = off.
    pub thinking_budget: Option<u32>,
    /// OpenAI-compatible reasoning_effort; None = not sent.
    pub reasoning_effort: Option<crate::provider::ReasoningEffort>,
    /// What the user should hear about the resolved settings (a raised max_tokens, a flag
    /// this provider ignores); said once when the run starts.
    pub notes: Vec<String>,
    /// Anthropic's server-side web_search tool, with its `max_uses`; None = not offered.
    pub web_search: Option<u32>,
    pub max_tokens: u32,
    pub sibling_abort: bool,
    pub disable_parallel_tool_use: bool,
    pub fallback_model: Option<String>,
    /// `[models] plan / small`, `--plan-model`, `--small-model`.
    pub routes: crate::agent::model_routes::ModelRoutes,
    pub retry: RetryPolicy,
    pub idle_timeout: Duration,
    pub max_output_bytes: usize,
    pub tool_timeout: Duration,
    /// `[background] max_jobs`.
    pub max_jobs: usize,
    pub trace: Option<PathBuf>,
    pub mouse: bool,
    /// `--record` / `record = …`: write a recording beside the transcript.
    pub record: Option<crate::recording::Format>,
    pub theme: String,
    /// Ask the terminal for the kitty keyboard protocol.
    pub keyboard_enhancement: bool,
    /// `[tui] notify`.
    pub notify: crate::config_file::NotifyMode,
    pub session: SessionMode,
    /// --fork: continue the resumed session in a new one (the original stays as it was).
    pub fork: bool,
    /// The shell's sandbox as asked for (None: the default, workspace-write where possible).
    pub sandbox: Option<crate::sandbox::SandboxMode>,
    /// Sandboxed commands may use the network.
    pub sandbox_network: bool,
    /// Anthropic prompt-caching breakpoints.
    pub prompt_cache: bool,
    /// Model table, compaction and budgets (DESIGN.md §10).
    pub context: crate::agent::context::ContextSettings,
    /// The log filter the config file asks for (flag and TOOLOOP_LOG beat it).
    pub log_level: Option<String>,
    /// The config file that was read (it may not exist).
    pub config_file: Option<PathBuf>,
    /// The permission rules of config.toml, `.tooloop/settings.toml` and
    /// `.tooloop/settings.local.toml`, merged (issue 27).
    pub permission_rules: crate::permission::rules::RuleSet,
    /// Enabled MCP servers (DESIGN.md §11).
    pub mcp: Vec<crate::mcp::ServerConfig>,
    /// The user's hooks, matchers compiled, run in the workspace.
    pub hooks: crate::hooks::Hooks,
    /// What Claude Code's settings.json files say (rules and hooks are already merged into
    /// `permission_rules` and `hooks`; kept for `/permissions`, `tooloop config` and the
    /// status line).
    pub claude: crate::claude::settings::ClaudeSettings,
    /// `[tui] status_line`, else Claude Code's `statusLine`.
    pub status_line: Option<crate::claude::settings::StatusLineSpec>,
    /// `[agents]`: subagent depth, parallelism and turns.
    pub agents: crate::agent::subagent::AgentLimits,
    /// `[telemetry]` and its environment variables (OTEL_* are read when it starts).
    pub telemetry: crate::telemetry::settings::Settings,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("approval", &self.approval)
            .field("max_turns", &self.max_turns)
            .field("tool_exec", &self.tool_exec)
            .field("workspace", &self.workspace)
            .field("session", &self.session)
            .field("thinking_budget", &self.thinking_budget)
            .field("reasoning_effort", &self.reasoning_effort)
            .finish_non_exhaustive()
    }
}

/// Why no Config could be made (a usage error: exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {} does not exist", .0.display())]
    Missing(PathBuf),
    #[error("current directory: {0}")]
    CurrentDir(std::io::Error),
    #[error("workspace {} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("TOOLOOP_PROVIDER={name:?}: expected one of {names}", name = .0, names = provider_names())]
    UnknownProvider(String),
    /// Flags that exclude each other.
    #[error("{0}")]
    Conflict(&'static str),
    #[error("--max-budget-usd {0}: expected a number of USD ≥ 0")]
    Budget(f64),
    #[error("config: {0}")]
    Record(#[from] crate::recording::RecordError),
    #[error("thinking_budget = {0}: the budget must be at least {min} tokens (the API's minimum), or 0 for off", min = crate::provider::MIN_THINKING_BUDGET)]
    ThinkingBudget(u32),
    #[error(transparent)]
    File(#[from] ConfigFileError),
    #[error(transparent)]
    Paths(#[from] crate::paths::PathsError),
    #[error("config: {0}")]
    Mcp(#[from] crate::mcp::McpConfigError),
    #[error("config: {0}")]
    Hooks(#[from] crate::hooks::MatcherError),
    #[error("permission rules: {0}")]
    Permissions(#[from] crate::permission::settings::SettingsError),
}

/// The environment as tooloop reads it, so tests can pass their own.
pub trait Env {
    fn var(&self, key: &str) -> Option<String>;
}

pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, key: &str) -> Option<String> {
        std::env::var(key).ok().filter(|v| !v.is_empty())
    }
}

/// The config file this run reads: --config, else TOOLOOP_CONFIG, else config.toml in the
/// config directory. `true` when the user named it (then it must exist).
pub fn config_path(cli: &Cli, env: &dyn Env) -> Result<(PathBuf, bool), ConfigError> {
    if let Some(p) = &cli.config {
        return Ok((p.clone(), true));
    }
    if let Some(p) = env.var("TOOLOOP_CONFIG") {
        return Ok((PathBuf::from(p), true));
    }
    Ok((crate::paths::config_file()?, false))
}

impl Config {
    /// What the provider registry builds this config's provider from.
    pub fn provider_settings(&self) -> crate::provider::ProviderSettings {
        crate::provider::ProviderSettings {
            base_url: self.base_url.clone(),
            api_key: self.api_key.clone(),
            head_timeout: self.idle_timeout,
            prompt_cache: self.prompt_cache,
        }
    }

    /// Reads the config file, then [`Config::resolve_with`].
    pub fn resolve(cli: &Cli, env: &dyn Env) -> Result<Config, ConfigError> {
        let (path, explicit) = config_path(cli, env)?;
        if explicit && !path.exists() {
            return Err(ConfigError::Missing(path));
        }
        let file = FileConfig::load(&path)?;
        let mut config = Config::resolve_with(cli, env, &file)?;
        // Again, so `permission` lines name the user's file by its path.
        config.permission_rules = crate::permission::settings::load(
            &file.permissions,
            &path.display().to_string(),
            &config.workspace,
        )?;
        config.claude.apply_rules(&mut config.permission_rules);
        config.config_file = Some(path);
        Ok(config)
    }

    /// Flags beat the environment, which beats the file, which beats defaults.
    pub fn resolve_with(
        cli: &Cli,
        env: &dyn Env,
        file: &FileConfig,
    ) -> Result<Config, ConfigError> {
        // Every provider's defaults come from the registry; nothing here names one.
        let key_of = |kind: ProviderKind| {
            let var = file
                .provider_section(kind)
                .api_key_env
                .clone()
                .or_else(|| kind.defaults().api_key_env.map(String::from))?;
            env.var(&var)
        };
        let provider = match (cli.provider, env.var("TOOLOOP_PROVIDER")) {
            (Some(p), _) => p,
            (None, Some(name)) => parse_provider(&name)?,
            (None, None) => match file.provider {
                Some(p) => p,
                // The first provider (in registration order) whose key is set, else the
                // offline one.
                None => ProviderKind::ALL
                    .iter()
                    .copied()
                    .find(|&k| !k.defaults().offline && key_of(k).is_some())
                    .or_else(|| {
                        ProviderKind::ALL
                            .iter()
                            .copied()
                            .find(|k| k.defaults().offline)
                    })
                    .unwrap_or(ProviderKind::ALL[0]),
            },
        };
        let defaults = provider.defaults();
        let section: &ProviderSection = file.provider_section(provider);
        let pick = |flag: &Option<String>,
                    var: Option<&str>,
                    from_file: &Option<String>,
                    default: &str| {
            flag.clone()
                .or_else(|| var.and_then(|v| env.var(v)))
                .or_else(|| from_file.clone())
                .unwrap_or_else(|| default.to_string())
        };
        let (model, base_url, api_key) = if defaults.offline {
            // An offline model has no name to configure; a file written for a real
            // provider must not make it look like one.
            (
                cli.model.clone().unwrap_or_else(|| defaults.model.into()),
                defaults.base_url.to_string(),
                None,
            )
        } else {
            let model_file = (file.model.clone().or_else(|| file.models.main.clone()))
                .or_else(|| section.model.clone());
            (
                pick(
                    &cli.model,
                    Some("TOOLOOP_MODEL"),
                    &model_file,
                    defaults.model,
                ),
                pick(
                    &cli.base_url,
                    defaults.base_url_env,
                    &section.base_url,
                    defaults.base_url,
                ),
                key_of(provider),
            )
        };
        let workspace = match &cli.workspace {
            Some(w) => w.clone(),
            None => std::env::current_dir().map_err(ConfigError::CurrentDir)?,
        };
        if !workspace.is_dir() {
            return Err(ConfigError::NotADirectory(workspace));
        }
        let mut retry = RetryPolicy::default();
        if let Some(n) = cli.max_retries.or(file.retry.max_attempts) {
            retry.max_attempts = n.max(1);
        }
        if let Some(secs) = file.retry.max_delay_secs {
            retry.max_delay = Duration::from_secs(secs);
        }
        let mut permission_rules =
            crate::permission::settings::load(&file.permissions, "config.toml", &workspace)?;
        let claude = crate::claude::settings::load(
            &workspace,
            env.var("HOME").map(PathBuf::from).as_deref(),
        );
        claude.apply_rules(&mut permission_rules);
        let mut hooks = crate::hooks::Hooks::new(&file.hooks, workspace.clone())?;
        claude.add_hooks(&mut hooks);

        let mut allowed_tools = file.tools.allow.clone().unwrap_or_default();
        allowed_tools.extend(cli.allow_tool.iter().cloned());
        let session = match (&cli.resume, cli.continue_session, cli.no_session) {
            (_, _, true) if cli.resume.is_some() || cli.continue_session => {
                return Err(ConfigError::Conflict(
                    "--no-session cannot be combined with --resume or --continue",
                ));
            }
            (Some(_), true, _) => {
                return Err(ConfigError::Conflict(
                    "--resume and --continue exclude each other",
                ));
            }
            (_, _, true) => SessionMode::Off,
            (Some(id), false, _) => SessionMode::Resume(id.clone()),
            (None, true, _) => SessionMode::Continue,
            (None, false, _) => SessionMode::New,
        };
        if cli.fork && !matches!(session, SessionMode::Resume(_) | SessionMode::Continue) {
            return Err(ConfigError::Conflict(
                "--fork needs --resume ID or --continue (the session to fork)",
            ));
        }
        if let Some(x) = cli.max_budget_usd
            && !(x.is_finite() && x >= 0.0)
        {
            return Err(ConfigError::Budget(x));
        }
        let mut max_tokens = cli.max_tokens.or(file.max_tokens).unwrap_or(8192).max(1);
        let thinking_budget = thinking_budget(cli, file)?;
        let reasoning_effort = cli.reasoning_effort.or(file.reasoning_effort);
        let mut notes = Vec::new();
        if let Some(budget) = thinking_budget {
            if !defaults.thinking {
                notes.push(format!(
                    "--thinking is not sent by the {provider} provider{}",
                    if defaults.reasoning_effort {
                        " (use --reasoning-effort)"
                    } else {
                        ""
                    }
                ));
            } else if max_tokens <= budget {
                // Thinking counts against max_tokens, and the API refuses a limit that is
                // not above the budget: keep the asked-for room for the answer on top.
                let raised = budget.saturating_add(max_tokens);
                notes.push(format!(
                    "max_tokens {max_tokens} is not above the thinking budget {budget}; \
                     sending max_tokens {raised} ({budget} for thinking + {max_tokens} for \
                     the answer)"
                ));
                max_tokens = raised;
            }
        }
        let web_search = match cli.web_search || file.tools.web_search.unwrap_or(false) {
            false => None,
            // Only Anthropic's API runs server tools; OpenAI-compatible APIs have no
            // standard form for them, so the flag is refused there, saying so.
            true if !defaults.server_tools => {
                notes.push(format!(
                    "--web-search is not available with the {provider} provider (no standard \
                     form for server-side search on OpenAI-compatible APIs); searching is off"
                ));
                None
            }
            true => Some(file.tools.web_search_max_uses.unwrap_or(5).max(1)),
        };
        if reasoning_effort.is_some() && !defaults.reasoning_effort {
            notes.push(format!(
                "--reasoning-effort is not sent by the {provider} provider{}",
                if defaults.thinking {
                    " (use --thinking N)"
                } else {
                    ""
                }
            ));
        }
        Ok(Config {
            provider,
            model,
            base_url,
            api_key,
            approval: cli.approval.or(file.approval).unwrap_or_default(),
            allowed_tools,
            max_turns: cli.max_turns.or(file.max_turns).unwrap_or(50).max(1),
            tool_exec: cli.tool_exec.or(file.tool_exec).unwrap_or_default(),
            allow_outside_workspace: cli.allow_outside_workspace,
            system: cli
                .system
                .clone()
                .or_else(|| file.system.clone())
                .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.to_string()),
            append_system: cli
                .append_system
                .clone()
                .or_else(|| file.append_system.clone()),
            project_instructions: !cli.no_project_instructions
                && file.project_instructions.unwrap_or(true),
            thinking_budget,
            reasoning_effort,
            notes: claude.notices.iter().cloned().chain(notes).collect(),
            web_search,
            max_tokens,
            sibling_abort: !cli.no_sibling_abort,
            disable_parallel_tool_use: cli.no_parallel_tool_use,
            fallback_model: cli
                .fallback_model
                .clone()
                .or_else(|| file.fallback_model.clone()),
            retry,
            idle_timeout: Duration::from_secs(
                cli.idle_timeout
                    .or(file.idle_timeout_secs)
                    .unwrap_or(90)
                    .max(1),
            ),
            max_output_bytes: file
                .tools
                .max_output_bytes
                .unwrap_or(crate::tools::DEFAULT_MAX_OUTPUT_BYTES)
                .max(1),
            tool_timeout: file
                .tools
                .timeout_secs
                .map(|s| Duration::from_secs(s.max(1)))
                .unwrap_or(crate::tools::DEFAULT_TOOL_TIMEOUT),
            max_jobs: file
                .background
                .max_jobs
                .unwrap_or(crate::background::DEFAULT_MAX_JOBS)
                .max(1),
            trace: cli.trace.clone(),
            mouse: cli.mouse || file.mouse.unwrap_or(false),
            record: match (cli.record, &file.record) {
                (Some(f), _) => Some(f),
                (None, Some(s)) => s.format()?,
                (None, None) => None,
            },
            theme: file
                .theme
                .clone()
                .unwrap_or_else(|| DEFAULT_THEME.to_string()),
            keyboard_enhancement: file.keyboard.enhancement.unwrap_or(true),
            notify: file.tui.notify.unwrap_or_default(),
            session,
            fork: cli.fork,
            sandbox: cli.sandbox.or(file.sandbox),
            sandbox_network: cli.sandbox_network || file.sandbox_network.unwrap_or(false),
            prompt_cache: !cli.no_prompt_cache && file.prompt_cache.unwrap_or(true),
            context: crate::agent::context::ContextSettings {
                models: std::sync::Arc::new(
                    crate::models::ModelTable::builtin().with_overrides(&file.models.table),
                ),
                auto_compact: match cli.auto_compact {
                    Some(v) => v == crate::cli::OnOff::On,
                    None => file.auto_compact.unwrap_or(true),
                },
                buffer_tokens: file.auto_compact_buffer_tokens,
                max_budget_usd: cli.max_budget_usd,
                max_budget_tokens: cli.max_budget_tokens,
            },
            log_level: file.log_level.clone(),
            config_file: None,
            permission_rules,
            mcp: file.mcp.resolve()?,
            hooks,
            status_line: file
                .tui
                .status_line
                .clone()
                .filter(|c| !c.trim().is_empty())
                .map(|command| crate::claude::settings::StatusLineSpec {
                    command,
                    padding: 0,
                    source: "config.toml".into(),
                })
                .or_else(|| claude.status_line.clone()),
            claude,
            agents: file.agents.limits(),
            routes: file
                .models
                .routes(cli.plan_model.as_deref(), cli.small_model.as_deref()),
            telemetry: crate::telemetry::settings::resolve(&file.telemetry, &|k| env.var(k)),
            workspace,
        })
    }
}

/// `--thinking` beats `thinking_budget` in the file; 0 in the file means off.
fn thinking_budget(cli: &Cli, file: &FileConfig) -> Result<Option<u32>, ConfigError> {
    use crate::cli::ThinkingArg;
    match (cli.thinking, file.thinking_budget) {
        (Some(ThinkingArg::Off), _) | (None, None | Some(0)) => Ok(None),
        (Some(ThinkingArg::Budget(n)), _) => Ok(Some(n)),
        (None, Some(n)) if n < crate::provider::MIN_THINKING_BUDGET => {
            Err(ConfigError::ThinkingBudget(n))
        }
        (None, Some(n)) => Ok(Some(n)),
    }
}

fn parse_provider(name: &str) -> Result<ProviderKind, ConfigError> {
    ProviderKind::from_name(name)
        .ok_or_else(|| ConfigError::UnknownProvider(name.to_ascii_lowercase()))
}

/// Every registered provider's name, comma-separated.
fn provider_names() -> String {
    ProviderKind::ALL
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}
