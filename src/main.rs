use std::io::{Read, Write};

use clap::Parser;

#[path = "main/subcommands.rs"]
mod subcommands;
use subcommands::{config_init, config_path, list_agents, list_models, list_sessions, list_skills};

use tooloop::cli::{Cli, Command, ConfigAction, McpAction, ProviderKind};
use tooloop::config::{Config, Env, ProcessEnv};

/// SIGINT is caught before `main` runs (see tooloop::interrupt): a headless run interrupted
/// in its first milliseconds must still print its result.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static CATCH_SIGINT_EARLY: extern "C" fn() = tooloop::interrupt::install;

fn main() {
    tooloop::interrupt::install();
    // A panic anywhere must not leave background jobs behind (the TUI chains its terminal
    // restore onto this hook).
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        tooloop::background::reaper::kill_all_now();
        previous(info);
    }));
    let cli = Cli::parse();
    // Only headless mode turns SIGINT into an aborted turn; everything else gets the
    // default action back (the TUI installs its own handler).
    if cli.prompt.is_none() && tooloop::interrupt::release() {
        std::process::exit(130);
    }
    let code = match tokio::runtime::Runtime::new() {
        Ok(rt) => {
            let code = rt.block_on(run(cli));
            // Dropping a runtime waits without limit for its blocking threads (a file walk
            // of a tool whose turn was abandoned, a read stuck on a dead terminal). The
            // answer is already decided, and tokio's signal handlers would swallow the
            // SIGTERM meant to end such a wait: give them a moment, then leave.
            rt.shutdown_timeout(std::time::Duration::from_millis(500));
            code
        }
        Err(e) => {
            eprintln!("tooloop: cannot start the async runtime: {e}");
            1
        }
    };
    // The last word on background jobs: the session ended them already; anything left (an
    // agent task that did not stop in time) is killed before the process goes.
    tooloop::background::reaper::kill_all_now();
    std::process::exit(code);
}

async fn run(mut cli: Cli) -> i32 {
    // Async and config-free (a replay reads its own recording); the TUI replay resolves the
    // config for its theme and keys itself.
    if let Some(Command::Replay {
        session,
        speed,
        step,
        print,
        output_format,
    }) = &cli.command
    {
        return tooloop::replay::command::run(
            &cli,
            session,
            tooloop::replay::command::Options {
                speed: *speed,
                step: *step,
                print: *print,
                format: *output_format,
            },
        )
        .await;
    }
    if let Some(Command::Acp { .. }) = &cli.command {
        return run_acp().await;
    }
    if let Some(command) = &cli.command
        && let Some(code) = without_config(&cli, command)
    {
        return code;
    }
    // Before the config is read: the workspace (and with it the project's settings, hooks,
    // sandbox and file tools) is the worktree's. Dropped on any early return below, it is
    // removed again (nothing changed in it yet).
    let worktree = match tooloop::engine::worktree::start(&mut cli) {
        Ok(w) => w,
        Err(code) => return code,
    };
    // The log guard is kept until the process exits: dropping it flushes the log file.
    let (config, _log_guard) = match configured(&cli) {
        Ok(c) => c,
        Err(code) => return code,
    };
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        provider = ?config.provider.kind,
        model = %config.provider.model,
        base_url = %config.provider.base_url,
        workspace = %config.workspace.display(),
        headless = cli.prompt.is_some(),
        config_file = ?config.config_file,
        "tooloop starts"
    );
    if let Some(Command::Mcp {
        action: McpAction::List,
    }) = &cli.command
    {
        return tooloop::mcp::list::run(config.mcp.clone(), config.workspace.clone()).await;
    }
    let Some(prompt) = cli.prompt.clone() else {
        return match run_tui(&config, cli.initial_prompt.clone(), worktree).await {
            Ok(code) => code,
            Err(e) => {
                tracing::error!("tui: {e:#}");
                // Not eprintln!: with the terminal closed it would panic on the write.
                let _ = writeln!(std::io::stderr(), "tooloop: {e:#}");
                1
            }
        };
    };
    // stream-json input: stdin carries messages for the running turn, not context; with
    // `-p -` the first message is the prompt.
    let mut steering = (cli.input_format == tooloop::cli::InputFormat::StreamJson)
        .then(tooloop::headless::stdin_messages::start);
    let prompt = if let Some(messages) = &mut steering {
        if prompt == "-" {
            messages.recv().await.unwrap_or_default()
        } else {
            prompt
        }
    } else if prompt == "-" {
        let mut buf = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut buf) {
            eprintln!("tooloop: cannot read the prompt from stdin: {e}");
            return 2;
        }
        buf
    } else {
        match piped_stdin() {
            Ok(Some(context)) => with_context(&prompt, &context),
            Ok(None) => prompt,
            Err(e) => {
                eprintln!("tooloop: cannot read stdin: {e}");
                return 2;
            }
        }
    };
    if prompt.trim().is_empty() {
        eprintln!("tooloop: the prompt is empty");
        return 2;
    }
    let mut engine = match tooloop::engine::start(&config, tooloop::engine::FrontEnd::Headless) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("tooloop: {e}");
            return 2;
        }
    };
    engine.worktree = tooloop::engine::worktree::owned(worktree, engine.session.as_ref());
    let code = match tooloop::headless::run(engine, &prompt, cli.output_format, steering).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tooloop: {e}");
            1
        }
    };
    tracing::info!(exit = code, "headless run ends");
    code
}

/// The TUI's wiring: its settings from the config (a theme that does not exist is an error
/// before anything starts), then the engine (prompt, sandbox, MCP, session, trace and
/// recording, all from the config), then the TUI on both.
///
/// What cannot start (a theme that does not exist, no session to continue, a session open in
/// another tooloop) is bad usage or config: exit 2, as headless says for the same case
/// (CLI.md). Only what fails once the TUI runs is a runtime error (1).
async fn run_tui(
    config: &Config,
    initial_prompt: Option<String>,
    worktree: Option<tooloop::worktree::Worktree>,
) -> anyhow::Result<i32> {
    let started = tui_settings(config).and_then(|settings| {
        let engine = tooloop::engine::start(config, tooloop::engine::FrontEnd::Interactive)?;
        Ok((settings, engine))
    });
    let (settings, engine) = match started {
        Ok(both) => both,
        Err(e) => {
            eprintln!("tooloop: {e:#}");
            return Ok(2);
        }
    };
    let worktree = tooloop::engine::worktree::owned(worktree, engine.session.as_ref());
    let code = tooloop::tui::run(engine, settings, initial_prompt).await;
    // The terminal is restored and the agent stopped: committed and kept, or removed.
    if let Some(outcome) = tooloop::engine::worktree::finish(worktree, "a --worktree session").await
    {
        let line = tooloop::sanitize::output::for_stderr(&outcome.exit_line());
        let _ = writeln!(std::io::stdout(), "{line}");
    }
    code
}

/// `tooloop acp`: the command line parsed as the TUI's, the config resolved, then the ACP
/// front end on an engine builder (it starts one engine per editor session).
async fn run_acp() -> i32 {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match tooloop::cli::acp_command_line(&args) {
        Ok(Some(cli)) => cli,
        Ok(None) => return 0,
        Err(e) => {
            let _ = e.print();
            return 2;
        }
    };
    if cli.prompt.is_some() || cli.initial_prompt.is_some() || cli.command.is_some() {
        eprintln!("tooloop: acp takes options only (prompts come from the editor)");
        return 2;
    }
    if cli.worktree.is_some() {
        eprintln!("tooloop: acp does not take --worktree (the editor chooses the folder)");
        return 2;
    }
    // The log guard is kept until the process exits: dropping it flushes the log file.
    let (config, _log_guard) = match configured(&cli) {
        Ok(c) => c,
        Err(code) => return code,
    };
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        provider = ?config.provider.kind,
        model = %config.provider.model,
        workspace = %config.workspace.display(),
        "tooloop acp starts"
    );
    let builder = tooloop::engine::Builder::new(config, tooloop::engine::FrontEnd::Editor);
    let code = tooloop::acp::run(builder).await;
    tracing::info!(exit = code, "tooloop acp ends");
    code
}

fn tui_settings(config: &Config) -> anyhow::Result<tooloop::tui::Settings> {
    use tooloop::tui::theme;
    let theme = theme::Theme::named(&config.tui.theme, theme::no_color_requested())
        .map_err(|e| anyhow::anyhow!("config: {e}"))?;
    Ok(tooloop::tui::Settings {
        theme,
        mouse: config.tui.mouse,
        keyboard_enhancement: config.tui.keyboard_enhancement,
        provider: provider_name(config.provider.kind).into(),
        demo: config.provider.kind == ProviderKind::Demo,
        model: config.provider.model.clone(),
        base_url: config.provider.base_url.clone(),
        custom_base_url: !config.provider.base_url.is_empty()
            && config.provider.base_url.trim_end_matches('/')
                != config
                    .provider
                    .kind
                    .defaults()
                    .base_url
                    .trim_end_matches('/'),
        workspace: config.workspace.clone(),
        approval: clap::ValueEnum::to_possible_value(&config.tools.approval)
            .map(|v| v.get_name().to_string())
            .unwrap_or_default(),
        models: config.context.models.clone(),
        rules: config.permission_rules.clone(),
        recording: config.session.record.is_some(),
        notify: config.tui.notify,
        status_line: config.tui.status_line.as_ref().map(|s| {
            tooloop::tui::status_line::StatusLineCommand {
                command: s.command.clone(),
                padding: s.padding,
            }
        }),
    })
}

fn provider_name(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "anthropic",
        ProviderKind::Openai => "openai",
        ProviderKind::Demo => "demo",
        other => other.name(),
    }
}

/// What was piped into `tooloop -p PROMPT` (`git diff | tooloop -p "review this"`), if
/// stdin is a pipe or a file; a terminal or /dev/null gives nothing (never waits for typing).
fn piped_stdin() -> std::io::Result<Option<String>> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned()?;
    let kind = std::fs::File::from(fd).metadata()?.file_type();
    if !(kind.is_fifo() || kind.is_file()) {
        return Ok(None);
    }
    let mut buf = String::new();
    std::io::stdin().read_to_string(&mut buf)?;
    Ok((!buf.trim().is_empty()).then_some(buf))
}

/// The prompt, then the piped text as context the model can tell apart from it.
fn with_context(prompt: &str, context: &str) -> String {
    format!("{prompt}\n\n<stdin>\n{}\n</stdin>", context.trim_end())
}

/// Logs go to a file or nowhere: a log directory that cannot be made is a warning, a
/// filter that does not parse is a usage error.
/// The resolved config and the log file for it (a usage error exits 2).
fn configured(cli: &Cli) -> Result<(Config, Option<tooloop::logging::LogGuard>), i32> {
    let config = Config::resolve(cli, &ProcessEnv).map_err(|e| {
        eprintln!("tooloop: {e}");
        2
    })?;
    let guard = start_logging(cli, &config)?;
    Ok((config, guard))
}

fn start_logging(cli: &Cli, config: &Config) -> Result<Option<tooloop::logging::LogGuard>, i32> {
    let env = ProcessEnv.var("TOOLOOP_LOG");
    let directives = tooloop::logging::filter_directives(
        cli.log_level.as_deref(),
        env.as_deref(),
        config.log_level.as_deref(),
    )
    .map_err(|e| {
        eprintln!("tooloop: {e}");
        2
    })?;
    match tooloop::logging::init(&directives) {
        Ok((guard, _dir)) => Ok(Some(guard)),
        Err(e) => {
            eprintln!("tooloop: logging is off: {e}");
            Ok(None)
        }
    }
}

/// Subcommands that need no config; None for those that do (they run below).
fn without_config(cli: &Cli, command: &Command) -> Option<i32> {
    Some(match command {
        Command::Sessions => list_sessions(),
        Command::Worktrees { action } => tooloop::engine::worktree::command(cli, action.is_some()),
        Command::Models => list_models(cli),
        Command::Agents => list_agents(cli),
        Command::Skills => list_skills(cli),
        Command::Config { action } => match action {
            ConfigAction::Path => config_path(cli),
            ConfigAction::Init => config_init(cli),
        },
        Command::Rewind {
            session,
            to,
            files,
            conversation,
            overwrite_conflicts,
        } => tooloop::session::rewind_command::run(
            session,
            &tooloop::session::rewind::Request {
                to: *to,
                files: *files,
                conversation: *conversation,
                overwrite_conflicts: *overwrite_conflicts,
            },
        ),
        Command::Export {
            session,
            format,
            output,
        } => tooloop::export::command::run(session, *format, output.as_deref()),
        // Needs the config and the log file (servers' stderr goes there).
        Command::Mcp { .. } => return None,
        // Handled (async) before this is called.
        Command::Replay { .. } | Command::Acp { .. } => return None,
    })
}
