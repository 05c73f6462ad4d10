//! The command line (CLI.md). Parsing only; [`crate::config`] turns it into a Config.
//! Beside it, the tables its listing commands print (`tooloop agents`, `tooloop models`).

pub mod agent_list;
pub mod model_list;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::settings;
// The executor owns its strategy; the command line only names it.
pub use crate::agent::exec_env::ToolExec;
pub use crate::settings::context::OnOff;
pub use crate::settings::request::ThinkingArg;

/// The providers are registered in `provider/registry.rs` (clap and serde names included).
pub use crate::provider::ProviderKind;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
    StreamJson,
}

/// `--input-format`: what headless mode reads from stdin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    #[default]
    Text,
    /// User messages, one JSON object a line, sent into the running turn (steering).
    StreamJson,
}

#[derive(Parser, Debug, Clone, Default)]
#[command(
    name = "tooloop",
    version,
    about = "A full-screen terminal agent that shows its tool-calling loop",
    after_help = "Without -p, tooloop starts the full-screen TUI. Without an API key it talks to \
                  the offline demo model."
)]
pub struct Cli {
    /// Run one prompt headless and exit ("-" reads the prompt from stdin; piped stdin
    /// with a prompt is added to it as context).
    #[arg(short = 'p', long = "print", value_name = "PROMPT")]
    pub prompt: Option<String>,

    /// Start the TUI and send this prompt at once (`tooloop "fix the failing test"`).
    #[arg(value_name = "PROMPT", conflicts_with = "prompt")]
    pub initial_prompt: Option<String>,

    /// Headless output: text | json | stream-json.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,

    /// Headless stdin: text (context for the prompt) | stream-json (user messages sent
    /// into the running turn, each joining at the next tool boundary).
    #[arg(long, value_enum, default_value_t = InputFormat::Text)]
    pub input_format: InputFormat,

    /// Root that file tools are confined to (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,

    /// Log level for the log file (error, warn, info, debug, trace).
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,

    /// Read this config file instead of config.toml in the config directory.
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,

    // Each part's flags, defined beside its section (src/settings/).
    #[command(flatten)]
    pub provider: settings::provider::ProviderFlags,
    #[command(flatten)]
    pub request: settings::request::RequestFlags,
    #[command(flatten)]
    pub system_prompt: settings::prompt::PromptFlags,
    #[command(flatten)]
    pub tools: settings::tools::ToolsFlags,
    #[command(flatten)]
    pub sandbox: settings::sandbox::SandboxFlags,
    #[command(flatten)]
    pub session: settings::session::SessionFlags,
    #[command(flatten)]
    pub tui: settings::tui::TuiFlags,
    #[command(flatten)]
    pub context: settings::context::ContextFlags,

    /// Run the session in a new git worktree (branch `tooloop/NAME`, folder
    /// `.tooloop/worktrees/NAME`; NAME defaults to a short id); kept on exit only if it has
    /// changes (committed on its branch).
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "")]
    pub worktree: Option<String>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// List saved sessions.
    Sessions,
    /// List the known and configured models with their context windows and prices.
    Models,
    /// List the agents the `task` tool can start: built-in ones and agent files
    /// (.tooloop/agents/, .claude/agents/, ~/.config/tooloop/agents/), with their tools and
    /// model. A file that cannot be read is named with its line on stderr (exit 1).
    Agents,
    /// List the skills (SKILL.md folders in .tooloop/skills, .claude/skills, .agents/skills,
    /// ~/.config/tooloop/skills, ~/.claude/skills): name, source, the body's size, invocable
    /// by whom. A file that cannot be read is named with its line (exit 1).
    Skills,
    /// Show or create the config file.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Rewind a saved session to just before one of its prompts: the files its tools
    /// changed since, the conversation, or both (the default). Prints one JSON object;
    /// exits 1 when files changed by hand since were left alone (conflicts).
    Rewind {
        /// The session (id, file name or unique id prefix; `tooloop sessions` lists them).
        #[arg(long, value_name = "ID")]
        session: String,
        /// The prompt to go back to, counted from 1: the state just before it.
        #[arg(long, value_name = "N")]
        to: usize,
        /// Restore the files (with --conversation: both).
        #[arg(long)]
        files: bool,
        /// Cut the conversation (with --files: both).
        #[arg(long)]
        conversation: bool,
        /// Also put back files changed by hand since the tool changed them.
        #[arg(long)]
        overwrite_conflicts: bool,
    },
    /// Play a recorded session (--record) back offline in the TUI, or with -p as the lines
    /// the original headless run printed. Nothing is sent to a model; no tool runs.
    Replay {
        /// The session: id, unique id prefix, transcript or recording path.
        session: String,
        /// Play N times faster than recorded (0.5 = slower).
        #[arg(long, value_name = "N", default_value_t = 1.0)]
        speed: f64,
        /// TUI: play one event per Space key.
        #[arg(long)]
        step: bool,
        /// Print instead of opening the TUI (with --output-format).
        #[arg(short = 'p', long = "print")]
        print: bool,
        /// With -p: text | json | stream-json.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        output_format: OutputFormat,
    },
    /// Write a session as Markdown or as one self-contained HTML page.
    Export {
        /// The session: id, unique id prefix, transcript or recording path.
        session: String,
        /// md (the default) | html.
        #[arg(long, value_enum, default_value = "md")]
        format: ExportFormat,
        /// Write to FILE instead of stdout.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Be an Agent Client Protocol (v1) agent for an editor (Zed, Neovim, JetBrains, Emacs):
    /// JSON-RPC on stdin/stdout. Takes the TUI's options after `acp` too.
    #[command(long_about = ACP_ABOUT, disable_help_flag = true)]
    Acp {
        /// The same options as the TUI (`tooloop --help` lists them).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "OPTIONS"
        )]
        options: Vec<std::ffi::OsString>,
    },
    /// tooloop's git worktrees of this repository: branch, files changed, session.
    Worktrees {
        #[command(subcommand)]
        action: Option<WorktreesAction>,
    },
    /// MCP servers from config.toml ([mcp.servers.NAME]).
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
}

/// What `tooloop acp --help` says before the options.
pub const ACP_ABOUT: &str = "Runs tooloop as an Agent Client Protocol (ACP v1) agent: an editor \
(Zed, Neovim with CodeCompanion, JetBrains, Emacs) starts it and speaks newline-delimited \
JSON-RPC 2.0 on stdin/stdout. Nothing but protocol messages goes to stdout; logs go to the \
log file. Each editor session is a tooloop session rooted at the editor's folder (saved like \
the TUI's: `tooloop sessions` lists them, the editor can load them back). Keys, config and \
environment are read as for the TUI; the options below work after `acp` too \
(`tooloop acp --provider anthropic --model M --approval ask`).";

/// `tooloop acp [OPTIONS]`: the command line with `acp` taken out, parsed as the TUI's
/// (options may come before or after `acp`). `Ok(None)` when it asked for help, which is
/// printed here.
pub fn acp_command_line(args: &[std::ffi::OsString]) -> Result<Option<Cli>, clap::Error> {
    use clap::CommandFactory;
    let mut rest = args.to_vec();
    if let Some(i) = rest.iter().skip(1).position(|a| a == "acp") {
        rest.remove(i + 1);
    }
    if rest.iter().skip(1).any(|a| a == "--help" || a == "-h") {
        let mut cmd = Cli::command();
        // Only the options apply: prompts come from the editor, subcommands are the CLI's.
        let subcommands: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        for name in subcommands {
            cmd = cmd.mut_subcommand(name, |s| s.hide(true));
        }
        for arg in ["prompt", "initial_prompt", "output_format"] {
            cmd = cmd.mut_arg(arg, |a| a.hide(true));
        }
        let mut cmd = cmd
            .disable_help_subcommand(true)
            .override_usage("tooloop acp [OPTIONS]")
            .name("tooloop acp")
            .bin_name("tooloop acp")
            .about(ACP_ABOUT)
            .long_about(ACP_ABOUT)
            .after_help("Editor setup (Zed, Neovim): README.md, \"Editors (ACP)\".");
        cmd.print_long_help()
            .map_err(|e| cmd.error(clap::error::ErrorKind::Io, e))?;
        return Ok(None);
    }
    Cli::try_parse_from(rest).map(Some)
}

/// `tooloop export --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Markdown; tool calls as collapsible <details>.
    Md,
    /// One self-contained HTML page with the session's timeline as SVG.
    Html,
}

#[derive(Subcommand, Debug, Clone)]
pub enum McpAction {
    /// Start every configured server and print its state and tools; exit 1 if any failed.
    List,
}

#[derive(Subcommand, Debug, Clone)]
pub enum WorktreesAction {
    /// Remove the worktrees (and their branches) that have no changes.
    Clean,
}

#[derive(Subcommand, Debug, Clone)]
pub enum ConfigAction {
    /// Print where the config file and the logs live.
    Path,
    /// Write a commented default config file.
    Init,
}
