//! `config.toml`: what a user sets once. Every key is optional; an unknown key or a value of
//! the wrong type is an error naming the file, the line and the key, never a silent default.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::settings;
pub use crate::settings::tui::NotifyMode;

mod keys;
use keys::{known_keys, line_of_key};

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
    /// A `[permissions]` rule that does not follow the grammar: the file and its line.
    #[error(transparent)]
    Rule(#[from] crate::permission::settings::SettingsError),
}

/// The whole file, as each section sees it: every section reads the keys it owns and
/// ignores the others' (a key no section owns is an error).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileConfig {
    pub provider: settings::provider::ProviderFile,
    pub request: settings::request::RequestFile,
    pub prompt: settings::prompt::PromptFile,
    pub tools: settings::tools::ToolsFile,
    pub sandbox: settings::sandbox::SandboxFile,
    pub session: settings::session::SessionFile,
    pub tui: settings::tui::TuiFile,
    pub context: settings::context::ContextFile,
    pub agents: settings::agents::AgentsFile,
    pub parts: PartSections,
}

/// The sections whose types live in the parts that use them.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct PartSections {
    pub log_level: Option<String>,
    /// `[permissions]`: allow / ask / deny rules (merged with the project's files).
    #[serde(default)]
    pub permissions: crate::permission::settings::PermissionsSection,
    /// `[mcp.servers.NAME]`: MCP servers whose tools join the registry.
    #[serde(default)]
    pub mcp: crate::mcp::McpSection,
    /// `[[hooks.EVENT]]`: the user's own commands at four points of the loop.
    #[serde(default)]
    pub hooks: crate::hooks::HooksSection,
    /// `[telemetry]`: OpenTelemetry export (user config only).
    #[serde(default)]
    pub telemetry: crate::telemetry::settings::TelemetrySection,
}

impl FileConfig {
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

    /// Parses `text`; errors name `path`, the line and the key. Each section deserializes
    /// the text itself (so a wrong type is reported by toml with its place); the keys at the
    /// top that no section owns are refused here.
    pub fn parse(text: &str, path: &Path) -> Result<FileConfig, ConfigFileError> {
        let invalid = |e: toml::de::Error| describe_error(&e, text, path);
        let table: toml::Table = toml::from_str(text).map_err(invalid)?;
        let owned: Vec<&str> = [
            known_keys::<settings::provider::ProviderFile>(),
            known_keys::<settings::request::RequestFile>(),
            known_keys::<settings::prompt::PromptFile>(),
            known_keys::<settings::tools::ToolsFile>(),
            known_keys::<settings::sandbox::SandboxFile>(),
            known_keys::<settings::session::SessionFile>(),
            known_keys::<settings::tui::TuiFile>(),
            known_keys::<settings::context::ContextFile>(),
            known_keys::<settings::agents::AgentsFile>(),
            known_keys::<PartSections>(),
        ]
        .concat();
        if let Some(key) = table.keys().find(|k| !owned.contains(&k.as_str())) {
            return Err(ConfigFileError::Invalid {
                path: path.to_path_buf(),
                line: line_of_key(text, key),
                key: Some(key.clone()),
                message: format!(
                    "unknown field `{key}`, expected one of {}",
                    owned
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        // Each rule is checked here, where its line is known (the merged rule set is not).
        crate::permission::settings::check_rules(text, path)?;
        Ok(FileConfig {
            provider: toml::from_str(text).map_err(invalid)?,
            request: toml::from_str(text).map_err(invalid)?,
            prompt: toml::from_str(text).map_err(invalid)?,
            tools: toml::from_str(text).map_err(invalid)?,
            sandbox: toml::from_str(text).map_err(invalid)?,
            session: toml::from_str(text).map_err(invalid)?,
            tui: toml::from_str(text).map_err(invalid)?,
            context: toml::from_str(text).map_err(invalid)?,
            agents: toml::from_str(text).map_err(invalid)?,
            parts: toml::from_str(text).map_err(invalid)?,
        })
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
    use crate::protocol::approval_mode::ApprovalMode;
    use crate::provider::ProviderKind;

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
        assert_eq!(c.provider.provider, Some(ProviderKind::Anthropic));
        assert_eq!(c.tools.approval, Some(ApprovalMode::Ask));
        assert_eq!(c.tools.tools.max_output_bytes, Some(30000));
        assert_eq!(c.provider.retry.max_delay_secs, Some(32));
        assert_eq!(c.tui.keyboard.enhancement, Some(true));
        assert_eq!(
            c.provider.openai.api_key_env.as_deref(),
            Some("OPENAI_API_KEY")
        );
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
    fn an_unknown_key_at_the_top_names_its_line() {
        let e = parse("model = \"m\"\n\ncolour = 3\n[openai]\n")
            .expect_err("unknown key")
            .to_string();
        assert!(
            e.starts_with("/x/config.toml:3: key `colour`: unknown field `colour`, expected one of `provider`, `model`,"),
            "{e}"
        );
        assert!(
            e.contains("`max_turns`") && e.contains("`telemetry`"),
            "{e}"
        );
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
