//! The subcommands that print a table or a path and end: `tooloop sessions`, `models`,
//! `skills`, `agents`, `config path|init`.

use tooloop::cli::Cli;
use tooloop::config::{Config, ProcessEnv};

/// Prints `error` the way every failure of a subcommand is printed and returns `code`.
fn fail(error: anyhow::Error, code: i32) -> i32 {
    eprintln!("tooloop: {error:#}");
    code
}

pub(super) fn list_sessions() -> i32 {
    let listed = || -> anyhow::Result<String> {
        let dir = tooloop::paths::sessions_dir()?;
        Ok(tooloop::session::format_table(&tooloop::session::list(
            &dir,
        )?))
    };
    match listed() {
        Ok(table) => {
            print!("{table}");
            0
        }
        Err(e) => fail(e, 1),
    }
}

/// `tooloop models`: the same table `/model` shows, the configured model marked.
pub(super) fn list_models(cli: &Cli) -> i32 {
    match Config::resolve(cli, &ProcessEnv) {
        Ok(config) => {
            print!(
                "{}",
                tooloop::cli::model_list::format_table(
                    &config.context.models,
                    Some(&config.provider.model)
                )
            );
            0
        }
        Err(e) => {
            eprintln!("tooloop: {e}");
            2
        }
    }
}

pub(super) fn list_skills(cli: &Cli) -> i32 {
    match Config::resolve(cli, &ProcessEnv) {
        Ok(config) => {
            let catalog =
                tooloop::skills::Catalog::load(&tooloop::skills::dirs_for(&config.workspace));
            let window = config
                .context
                .models
                .lookup(&config.provider.model)
                .context_window;
            print!(
                "{}",
                tooloop::sanitize::output::for_stderr(&tooloop::skills::table::format(
                    &catalog, window
                ))
            );
            i32::from(!catalog.notices.is_empty())
        }
        Err(e) => {
            eprintln!("tooloop: {e}");
            2
        }
    }
}

pub(super) fn list_agents(cli: &Cli) -> i32 {
    match Config::resolve(cli, &ProcessEnv) {
        Ok(config) => {
            let (defs, errors) = tooloop::engine::agent_definitions(&config);
            print!(
                "{}",
                tooloop::cli::agent_list::format_table(&defs, &config.workspace)
            );
            for e in &errors {
                eprintln!(
                    "tooloop: {}",
                    tooloop::sanitize::output::for_stderr(&e.to_string())
                );
            }
            i32::from(!errors.is_empty())
        }
        Err(e) => {
            eprintln!("tooloop: {e}");
            2
        }
    }
}

pub(super) fn config_path(cli: &Cli) -> i32 {
    let paths = || -> anyhow::Result<_> {
        let (file, _) = tooloop::config::config_path(cli, &ProcessEnv)?;
        Ok((
            file,
            tooloop::paths::log_dir()?,
            tooloop::paths::sessions_dir()?,
        ))
    };
    match paths() {
        Ok((file, logs, sessions)) => {
            let state = if file.exists() {
                ""
            } else {
                " (not created yet: `tooloop config init` writes one)"
            };
            println!("config: {}{state}", file.display());
            println!("logs: {}", logs.display());
            println!("sessions: {}", sessions.display());
            // Claude Code's settings.json files this workspace would read, piece by piece.
            if let Some(cwd) = cli
                .workspace
                .clone()
                .or_else(|| std::env::current_dir().ok())
            {
                let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
                let claude = tooloop::claude::settings::load(&cwd, home.as_deref());
                print!(
                    "{}",
                    tooloop::sanitize::output::for_stderr(&tooloop::claude::settings::summary(
                        &claude
                    ))
                );
            }
            0
        }
        Err(e) => fail(e, 1),
    }
}

pub(super) fn config_init(cli: &Cli) -> i32 {
    let path = match tooloop::config::config_path(cli, &ProcessEnv) {
        Ok((p, _)) => p,
        Err(e) => return fail(e.into(), 1),
    };
    match tooloop::config_file::write_default(&path) {
        Ok(()) => {
            println!("wrote {}", path.display());
            0
        }
        Err(e) => fail(e.into(), 2),
    }
}
