//! One Config value from flags, the environment, the config file and defaults
//! (flag > env > file > default): the sections of the parts side by side, each resolved by
//! its own part ([`crate::settings`], and the MCP, hooks, permission, agents and telemetry
//! sections where those parts live).

use std::path::PathBuf;

use crate::cli::Cli;
use crate::config_file::{ConfigFileError, FileConfig};
use crate::settings;

pub use crate::settings::prompt::DEFAULT_SYSTEM_PROMPT;
pub use crate::settings::tui::DEFAULT_THEME;
pub use crate::settings::{Env, ProcessEnv};
// The session store owns its modes; the config only picks one.
pub use crate::session::SessionMode;

// Debug is written by hand below: MCP headers and hook commands stay out of log lines.
#[derive(Clone)]
pub struct Config {
    /// Root the file tools are confined to (--workspace, else the current directory).
    pub workspace: PathBuf,
    /// The config file that was read (it may not exist).
    pub config_file: Option<PathBuf>,
    /// What the user should hear about the resolved settings (a raised max_tokens, a flag
    /// this provider ignores); said once when the run starts.
    pub notes: Vec<String>,
    /// The log filter the config file asks for (flag and TOOLOOP_LOG beat it).
    pub log_level: Option<String>,
    /// Provider, model, endpoint, key, retries.
    pub provider: settings::provider::ProviderConfig,
    /// Turns, output tokens, thinking, reasoning effort.
    pub request: settings::request::RequestSettings,
    /// The system prompt's parts.
    pub prompt: settings::prompt::PromptSettings,
    /// Approval, the executor and the tools' limits.
    pub tools: settings::tools::ToolsSettings,
    pub sandbox: settings::sandbox::SandboxSettings,
    /// Which session, and what is written beside it.
    pub session: settings::session::SessionSettings,
    /// The full-screen front end.
    pub tui: settings::tui::TuiSettings,
    /// Model table, compaction and budgets (DESIGN.md §10).
    pub context: crate::agent::context::ContextSettings,
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
    /// `[agents]`: subagent depth, parallelism and turns.
    pub agents: crate::agent::subagent::AgentLimits,
    /// `[models] plan / small`, `--plan-model`, `--small-model`.
    pub routes: crate::agent::model_routes::ModelRoutes,
    /// `[telemetry]` and its environment variables (OTEL_* are read when it starts).
    pub telemetry: crate::telemetry::settings::Settings,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("provider", &self.provider)
            .field("request", &self.request)
            .field("tools", &self.tools)
            .field("workspace", &self.workspace)
            .field("session", &self.session)
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
    #[error(transparent)]
    Settings(#[from] settings::SettingsError),
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
        self.provider.provider_settings()
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
            &file.parts.permissions,
            &path.display().to_string(),
            &config.workspace,
        )?;
        config.claude.apply_rules(&mut config.permission_rules);
        config.config_file = Some(path);
        Ok(config)
    }

    /// Each section resolves itself: flags beat the environment, which beats the file,
    /// which beats defaults.
    pub fn resolve_with(
        cli: &Cli,
        env: &dyn Env,
        file: &FileConfig,
    ) -> Result<Config, ConfigError> {
        // `[models] main` is the top-level `model` by another name (issue 40).
        let mut provider_file = file.provider.clone();
        if provider_file.model.is_none() {
            provider_file.model = file.context.models.main.clone();
        }
        let provider = settings::provider::resolve(&cli.provider, env, &provider_file)?;
        let workspace = workspace(cli)?;
        let session = settings::session::resolve(&cli.session, &file.session)?;
        let context = settings::context::resolve(&cli.context, &file.context)?;
        let claude = crate::claude::settings::load(
            &workspace,
            env.var("HOME").map(PathBuf::from).as_deref(),
        );
        let mut notes = claude.notices.clone();
        let request =
            settings::request::resolve(&cli.request, &file.request, provider.kind, &mut notes)?;
        let tools = settings::tools::resolve(&cli.tools, &file.tools, provider.kind, &mut notes);
        let mut permission_rules =
            crate::permission::settings::load(&file.parts.permissions, "config.toml", &workspace)?;
        claude.apply_rules(&mut permission_rules);
        let mut hooks = crate::hooks::Hooks::new(&file.parts.hooks, workspace.clone())?;
        claude.add_hooks(&mut hooks);
        Ok(Config {
            notes,
            log_level: file.parts.log_level.clone(),
            config_file: None,
            request,
            tools,
            session,
            context,
            prompt: settings::prompt::resolve(&cli.system_prompt, &file.prompt),
            sandbox: settings::sandbox::resolve(&cli.sandbox, &file.sandbox),
            tui: settings::tui::resolve(&cli.tui, &file.tui, &claude),
            permission_rules,
            mcp: file.parts.mcp.resolve()?,
            hooks,
            agents: settings::agents::resolve(&file.agents),
            routes: file.context.models.routes(
                cli.provider.plan_model.as_deref(),
                cli.provider.small_model.as_deref(),
            ),
            telemetry: crate::telemetry::settings::resolve(&file.parts.telemetry, &|k| env.var(k)),
            claude,
            provider,
            workspace,
        })
    }
}

/// `--workspace`, else the current directory; it must be a directory.
fn workspace(cli: &Cli) -> Result<PathBuf, ConfigError> {
    let workspace = match &cli.workspace {
        Some(w) => w.clone(),
        None => std::env::current_dir().map_err(ConfigError::CurrentDir)?,
    };
    if !workspace.is_dir() {
        return Err(ConfigError::NotADirectory(workspace));
    }
    Ok(workspace)
}
