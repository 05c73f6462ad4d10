//! `config.toml`: what a user sets once. Every key is optional; an unknown key or a value of
//! the wrong type is an error naming the file, the line and the key, never a silent default.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::cli::{ProviderKind, ToolExec};
use crate::protocol::approval_mode::ApprovalMode;

/// A config file that cannot be read, parsed or written.
#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A config file that does not parse: the file, the line and the key when known.
    #[error(
        "{}{}: {}{message}",
        path.display(),
        line.map(|l| format!(":{l}")).unwrap_or_default(),
        key.as_ref().map(|k| format!("key `{k}`: ")).unwrap_or_default()
    )]
    Invalid {
        path: PathBuf,
        line: Option<usize>,
        key: Option<String>,
        message: String,
    },
    #[error("{} already exists; not overwriting it", .0.display())]
    Exists(PathBuf),
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub provider: Option<ProviderKind>,
    pub model: Option<String>,
    pub approval: Option<ApprovalMode>,
    pub max_turns: Option<u32>,
    pub max_tokens: Option<u32>,
    pub tool_exec: Option<ToolExec>,
    pub system: Option<String>,
    /// Extended thinking and the system prompt's parts (issue 12); one group, kept together.
    pub append_system: Option<String>,
    pub project_instructions: Option<bool>,
    /// Extended thinking budget in tokens (Anthropic); 0 = off.
    pub thinking_budget: Option<u32>,
    pub reasoning_effort: Option<crate::provider::ReasoningEffort>,
    pub fallback_model: Option<String>,
    pub idle_timeout_secs: Option<u64>,
    pub theme: Option<String>,
    pub mouse: Option<bool>,
    /// Write a recording beside each transcript: true, false, "plain" or "gzip".
    pub record: Option<crate::recording::Setting>,
    pub log_level: Option<String>,
    /// The shell's sandbox: read-only | workspace-write | off.
    pub sandbox: Option<crate::sandbox::SandboxMode>,
    /// Sandboxed commands may use the network.
    pub sandbox_network: Option<bool>,
    /// Anthropic cache_control breakpoints (default true).
    pub prompt_cache: Option<bool>,
    /// Compaction when the context passes the threshold (default true).
    pub auto_compact: Option<bool>,
    /// Tokens kept free below the window besides the output reserve.
    pub auto_compact_buffer_tokens: Option<u64>,
    /// `[models] main/plan/small` (src/agent/model_routes.rs) and `[models."NAME"]`:
    /// window, output limit and prices (see src/models.rs).
    #[serde(default)]
    pub models: crate::agent::model_routes::ModelsSection,
    #[serde(default)]
    pub anthropic: ProviderSection,
    #[serde(default)]
    pub openai: ProviderSection,
    #[serde(default)]
    pub tools: ToolsSection,
    /// `[permissions]`: allow / ask / deny rules (merged with the project's files).
    #[serde(default)]
    pub permissions: crate::permission::settings::PermissionsSection,
    #[serde(default)]
    pub retry: RetrySection,
    #[serde(default)]
    pub keyboard: KeyboardSection,
    /// `[tui]`: the full-screen front end.
    #[serde(default)]
    pub tui: TuiSection,
    /// `[background]`: jobs started with bash `run_in_background`.
    #[serde(default)]
    pub background: BackgroundSection,
    /// `[mcp.servers.NAME]`: MCP servers whose tools join the registry.
    #[serde(default)]
    pub mcp: crate::mcp::McpSection,
    /// `[[hooks.EVENT]]`: the user's own commands at four points of the loop.
    #[serde(default)]
    pub hooks: crate::hooks::HooksSection,
    /// `[agents]`: subagent limits (DESIGN.md §12).
    #[serde(default)]
    pub agents: AgentsSection,
    /// `[telemetry]`: OpenTelemetry export (user config only).
    #[serde(default)]
    pub telemetry: crate::telemetry::settings::TelemetrySection,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentsSection {
    /// How deep subagents may nest (default 1; 0 turns the `task` tool off).
    pub max_depth: Option<u32>,
    /// `task` calls of one agent running at once (default 4); the rest queue.
    pub max_parallel: Option<usize>,
    /// A subagent's turns unless its file says otherwise (default 30).
    pub max_turns: Option<u32>,
}

impl AgentsSection {
    pub fn limits(&self) -> crate::agent::subagent::AgentLimits {
        let d = crate::agent::subagent::AgentLimits::default();
        crate::agent::subagent::AgentLimits {
            max_depth: self.max_depth.unwrap_or(d.max_depth),
            max_parallel: self.max_parallel.unwrap_or(d.max_parallel).max(1),
            max_turns: self.max_turns.unwrap_or(d.max_turns).max(1),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProviderSection {
    pub base_url: Option<String>,
    /// The NAME of the variable that holds the key; the key itself never goes in a file.
    pub api_key_env: Option<String>,
    pub model: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolsSection {
    pub timeout_secs: Option<u64>,
    pub max_output_bytes: Option<usize>,
    pub allow: Option<Vec<String>>,
    /// Offer Anthropic's server-side web_search tool.
    pub web_search: Option<bool>,
    /// At most this many searches per request (the tool's `max_uses`; default 5).
    pub web_search_max_uses: Option<u32>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BackgroundSection {
    /// Background jobs running at once (default 8).
    pub max_jobs: Option<usize>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RetrySection {
    pub max_attempts: Option<u32>,
    pub max_delay_secs: Option<u64>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KeyboardSection {
    /// Ask the terminal for the kitty keyboard protocol (Shift+Enter for a new line).
    pub enhancement: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TuiSection {
    /// How to call the user back when a turn ends or a question opens while the terminal
    /// is not focused.
    pub notify: Option<NotifyMode>,
    /// A command whose first line of output replaces the status bar (it gets Claude
    /// Code's status-line JSON on stdin); beats Claude Code's `statusLine`.
    pub status_line: Option<String>,
}

/// `[tui] notify`: `auto` (OSC 9 where the terminal shows it as a notification, else BEL),
/// `bell` (always BEL) or `off`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NotifyMode {
    #[default]
    Auto,
    Bell,
    Off,
}

impl FileConfig {
    /// The `[NAME]` section of the provider `kind` (empty when the file has none). The file
    /// format spells out one table per provider; this is the only place that maps them.
    pub fn provider_section(&self, kind: ProviderKind) -> &ProviderSection {
        static EMPTY: ProviderSection = ProviderSection {
            base_url: None,
            api_key_env: None,
            model: None,
        };
        match kind {
            ProviderKind::Anthropic => &self.anthropic,
            ProviderKind::Openai => &self.openai,
            _ => &EMPTY,
        }
    }

    /// Reads `path`; a missing file is an empty config.
    pub fn load(path: &Path) -> Result<FileConfig, ConfigFileError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileConfig::default()),
            Err(source) => {
                return Err(ConfigFileError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        FileConfig::parse(&text, path)
    }

    /// Parses `text`; errors name `path`, the line and the key.
    pub fn parse(text: &str, path: &Path) -> Result<FileConfig, ConfigFileError> {
        toml::from_str(text).map_err(|e| describe_error(&e, text, path))
    }
}

fn describe_error(e: &toml::de::Error, text: &str, path: &Path) -> ConfigFileError {
    let message = e.message().trim().lines().collect::<Vec<_>>().join("; ");
    let (line, key) = match e.span() {
        Some(span) => {
            let start = span.start.min(text.len());
            (
                Some(text[..start].matches('\n').count() + 1),
                key_at(text, start),
            )
        }
        None => (None, None),
    };
    ConfigFileError::Invalid {
        path: path.to_path_buf(),
        line,
        key,
        message,
    }
}

/// The dotted key whose line holds byte `offset`: the table header above it plus the part
/// before `=` (toml points at the key for unknown fields and at the value for wrong types).
fn key_at(text: &str, offset: usize) -> Option<String> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[line_start..line_end].trim();
    if let Some(header) = table_header(line) {
        return Some(header.to_string());
    }
    let key = line.split_once('=').map(|(k, _)| k.trim())?;
    let key = key.trim_matches('"');
    let table = text[..line_start]
        .lines()
        .rev()
        .find_map(|l| table_header(l.trim()));
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key.to_string(),
    })
}

fn table_header(line: &str) -> Option<&str> {
    let inner = line.strip_prefix('[')?.split(']').next()?;
    Some(inner.trim_matches(|c| c == '[' || c == ' '))
}

/// `tooloop config init`: writes [`DEFAULT_CONFIG`] to `path`, never over an existing file.
pub fn write_default(path: &Path) -> Result<(), ConfigFileError> {
    use std::io::Write;
    let io = |path: &Path| {
        let path = PathBuf::from(path);
        move |source| ConfigFileError::Io { path, source }
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => ConfigFileError::Exists(path.to_path_buf()),
            _ => io(path)(e),
        })?;
    file.write_all(DEFAULT_CONFIG.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(io(path))
}

/// What `tooloop config init` writes: every key, commented out, at its default.
pub const DEFAULT_CONFIG: &str = r##"# tooloop configuration. Every key is optional; remove the leading "#" to set one.
# Precedence: command-line flag > environment variable > this file > built-in default.
# An unknown key or a value of the wrong type is an error (exit 2), not a silent default.

# anthropic | openai | demo. Default: anthropic if its key variable is set, else openai if
# its key variable is set, else demo (the offline model).
# provider = "anthropic"

# Model id sent to the provider (also TOOLOOP_MODEL). Default: the provider's own default.
# model = "claude-sonnet-4-5"

# Who may run tools that change things: ask | auto-edit | yolo | read-only.
# approval = "ask"

# The shell's sandbox: read-only | workspace-write | off. Default workspace-write where the
# kernel has Landlock (macOS: Seatbelt); elsewhere bash asks before each command.
# sandbox = "workspace-write"
# Let sandboxed commands use the network.
# sandbox_network = false

# Loop iterations per prompt before stopping with reason max_turns.
# max_turns = 50

# Max output tokens per request.
# max_tokens = 8192

# Tool executor: streaming | parallel | serial.
# tool_exec = "streaming"

# Replaces the base system prompt (the environment block and project instructions stay).
# system = "You are tooloop, ..."

# Added to the system prompt after the base prompt (like --append-system).
# append_system = "Answer in British English."

# Read AGENTS.md (or CLAUDE.md) from the git root down to the workspace, and AGENTS.md in
# this directory (false: like --no-project-instructions).
# project_instructions = true

# Anthropic extended thinking budget in tokens: at least 1024, or 0 for off (the default).
# max_tokens is raised above it when needed.
# thinking_budget = 0

# OpenAI-compatible reasoning effort: low | medium | high (default: not sent).
# reasoning_effort = "medium"

# Model to switch to after repeated overloaded errors.
# fallback_model = "claude-haiku-4-5"

# Seconds without a byte before a response stream counts as dead.
# idle_timeout_secs = 90

# Colour theme of the TUI.
# theme = "dark"

# Capture the mouse: a click focuses the pane under it, the wheel scrolls the pane under the
# pointer (the terminal's own text selection is lost).
# mouse = false

# Record every request body, raw stream event and tool run beside the transcript, for
# `tooloop replay` and the JSON pane's request stepper: true, false, "plain" or "gzip".
# record = false

# Log file filter: a level (error, warn, info, debug, trace) or EnvFilter directives.
# Also --log-level and TOOLOOP_LOG.
# log_level = "info"

[anthropic]
# base_url = "https://api.anthropic.com"     # also ANTHROPIC_BASE_URL
# The NAME of the environment variable holding the key. Never put the key itself here.
# api_key_env = "ANTHROPIC_API_KEY"
# model = "claude-sonnet-4-5"

[openai]
# Any OpenAI-compatible server: OpenRouter, Ollama, vLLM, llama.cpp, LM Studio.
# base_url = "https://api.openai.com/v1"     # also OPENAI_BASE_URL
# api_key_env = "OPENAI_API_KEY"
# model = "gpt-4.1"

[tools]
# Longest a tool may run, in seconds.
# timeout_secs = 120
# Tool output beyond this many bytes is cut, with a note saying how much.
# max_output_bytes = 30000
# Tools that run without asking (like --allow-tool).
# allow = ["write_file"]

[background]
# Background jobs (bash run_in_background) running at once.
# max_jobs = 8

[retry]
# Attempts per request in all, the first included.
# max_attempts = 8
# Longest single wait between attempts, in seconds.
# max_delay_secs = 32

[keyboard]
# Ask the terminal for the kitty keyboard protocol, so Shift+Enter inserts a new line.
# enhancement = true

[tui]
# When a turn ends or a question waits while the terminal is not focused: "auto" (a desktop
# notification via OSC 9 in iTerm2, WezTerm, ghostty and kitty, else the bell), "bell" or
# "off".
# notify = "auto"

[agents]
# Subagents (the `task` tool). How deep they may nest (1: only the main agent starts them;
# 0 turns the task tool off).
# max_depth = 1
# task calls of one agent running at once; the others wait for a slot.
# max_parallel = 4
# A subagent's turns, unless its agent file says otherwise.
# max_turns = 30

[telemetry]
# OpenTelemetry traces and metrics (GenAI conventions) over OTLP http/protobuf, to the
# collector OTEL_EXPORTER_OTLP_ENDPOINT names (see README.md, "Telemetry"). Env
# TOOLOOP_TELEMETRY=1 turns it on too.
# enabled = false
# Prompts and the model's text on the spans; tool inputs and outputs. Both off by default.
# log_prompts = false
# log_tool_content = false

# MCP servers ([mcp.servers.NAME]: command/args/env or url/headers) and hooks
# ([[hooks.pre_tool_use]], post_tool_use, user_prompt_submit, stop, pre_compact): see README.md,
# sections "MCP servers" and "Hooks", for examples to copy.
"##;

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FileConfig, ConfigFileError> {
        FileConfig::parse(text, Path::new("/x/config.toml"))
    }

    #[test]
    fn the_default_file_parses_to_nothing_set() {
        assert_eq!(
            parse(DEFAULT_CONFIG).expect("parses"),
            FileConfig::default()
        );
    }

    #[test]
    fn every_key_parses() {
        let uncommented: String = DEFAULT_CONFIG
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest) if rest.contains(" = ") && !rest.starts_with("Precedence") => {
                    rest.split("  #").next().unwrap_or(rest).to_string()
                }
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let c = parse(&uncommented).expect("every documented key parses");
        assert_eq!(c.provider, Some(ProviderKind::Anthropic));
        assert_eq!(c.approval, Some(ApprovalMode::Ask));
        assert_eq!(c.tools.max_output_bytes, Some(30000));
        assert_eq!(c.retry.max_delay_secs, Some(32));
        assert_eq!(c.keyboard.enhancement, Some(true));
        assert_eq!(c.openai.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    }

    #[test]
    fn an_unknown_key_names_file_line_and_key() {
        let e = parse("model = \"m\"\n\n[openai]\nbase_url = \"http://x\"\ncolour = 3\n")
            .expect_err("unknown key")
            .to_string();
        assert!(
            e.starts_with("/x/config.toml:5: key `openai.colour`:"),
            "{e}"
        );
        assert!(e.contains("unknown field `colour`"), "{e}");
    }

    #[test]
    fn a_wrong_type_names_file_line_and_key() {
        let e = parse("# c\nmax_turns = \"many\"\n")
            .expect_err("wrong type")
            .to_string();
        assert!(e.starts_with("/x/config.toml:2: key `max_turns`:"), "{e}");
        assert!(e.contains("invalid type"), "{e}");
    }

    #[test]
    fn a_bad_enum_value_is_an_error() {
        let e = parse("approval = \"sometimes\"\n")
            .expect_err("bad variant")
            .to_string();
        assert!(e.starts_with("/x/config.toml:1: key `approval`:"), "{e}");
    }
}
