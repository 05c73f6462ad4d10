//! `--sandbox` / `--sandbox-network` and the config keys `sandbox` / `sandbox_network`:
//! the flag beats the file, the file beats the default, a bad value is an error.

use std::path::Path;

use clap::Parser;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::sandbox::SandboxMode;

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _key: &str) -> Option<String> {
        None
    }
}

fn resolve(args: &[&str], file: &str) -> Config {
    let cli = Cli::try_parse_from(std::iter::once("tooloop").chain(args.iter().copied()))
        .expect("parses");
    let file = FileConfig::parse(file, Path::new("config.toml")).expect("valid file");
    Config::resolve_with(&cli, &NoEnv, &file).expect("resolves")
}

#[test]
fn flag_beats_file_beats_default() {
    let c = resolve(&[], "");
    assert_eq!((c.sandbox.mode, c.sandbox.network), (None, false));
    let file = "sandbox = \"read-only\"\nsandbox_network = true\n";
    let c = resolve(&[], file);
    assert_eq!(
        (c.sandbox.mode, c.sandbox.network),
        (Some(SandboxMode::ReadOnly), true)
    );
    let c = resolve(&["--sandbox", "off"], file);
    assert_eq!(c.sandbox.mode, Some(SandboxMode::Off));
    let c = resolve(&["--sandbox", "workspace-write", "--sandbox-network"], "");
    assert_eq!(
        (c.sandbox.mode, c.sandbox.network),
        (Some(SandboxMode::WorkspaceWrite), true)
    );
}

#[test]
fn bad_values_are_errors() {
    assert!(Cli::try_parse_from(["tooloop", "--sandbox", "strict"]).is_err());
    let err = FileConfig::parse("sandbox = \"strict\"\n", Path::new("config.toml")).unwrap_err();
    assert!(err.to_string().contains("sandbox"), "{err}");
}
