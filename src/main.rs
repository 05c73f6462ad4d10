use std::io::Read;

use clap::Parser;

use tooloop::cli::{Cli, Command, ConfigAction};
use tooloop::config::{Config, ProcessEnv};

fn main() {
    let cli = Cli::parse();
    let code = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt.block_on(run(cli)),
        Err(e) => {
            eprintln!("tooloop: cannot start the async runtime: {e}");
            1
        }
    };
    std::process::exit(code);
}

async fn run(cli: Cli) -> i32 {
    if let Some(command) = &cli.command {
        return match command {
            Command::Sessions => {
                eprintln!("tooloop: sessions are not built yet");
                2
            }
            Command::Config { action } => match action {
                ConfigAction::Path | ConfigAction::Init => {
                    eprintln!("tooloop: the config file is not built yet");
                    2
                }
            },
        };
    }
    let config = match Config::resolve(&cli, &ProcessEnv) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tooloop: {e}");
            return 2;
        }
    };
    let Some(prompt) = cli.prompt.clone() else {
        return match tooloop::tui::run(config).await {
            Ok(code) => code,
            Err(e) => {
                eprintln!("tooloop: {e:#}");
                1
            }
        };
    };
    let prompt = if prompt == "-" {
        let mut buf = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut buf) {
            eprintln!("tooloop: cannot read the prompt from stdin: {e}");
            return 2;
        }
        buf
    } else {
        prompt
    };
    if prompt.trim().is_empty() {
        eprintln!("tooloop: the prompt is empty");
        return 2;
    }
    let provider = match tooloop::provider::from_config(&config) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tooloop: {e}");
            return 2;
        }
    };
    match tooloop::headless::run(&config, provider, &prompt, cli.output_format).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tooloop: {e}");
            2
        }
    }
}
