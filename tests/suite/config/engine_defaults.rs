//! Safe defaults: with nothing configured, tools that change things ask first, in the engine
//! production uses and in the test builder alike.

use clap::Parser;
use tooloop::agent::exec_env::ExecEnv;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::engine::{self, FrontEnd};
use tooloop::permission::Verdict;
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::events::EventSink;
use tooloop::tools::{Effect, ToolRegistry, Workspace};

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

#[test]
fn the_engine_asks_before_a_command_unless_told_otherwise() {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = dir.path().to_string_lossy().into_owned();
    let cli = Cli::try_parse_from(["tooloop", "--workspace", ws.as_str()]).expect("cli");
    let config = Config::resolve_with(&cli, &NoEnv, &FileConfig::default()).expect("config");
    let exec = engine::exec_env(
        &config,
        FrontEnd::Interactive,
        ToolRegistry::builtin(),
        EventSink::null(),
    )
    .expect("exec env");
    assert_eq!(exec.policy.mode(), ApprovalMode::Ask);
    assert_eq!(
        exec.policy.verdict("bash", Effect::Exec, true),
        Verdict::Ask
    );

    let cli = Cli::try_parse_from(["tooloop", "--workspace", ws.as_str(), "--approval", "yolo"])
        .expect("cli");
    let config = Config::resolve_with(&cli, &NoEnv, &FileConfig::default()).expect("config");
    let exec = engine::exec_env(
        &config,
        FrontEnd::Interactive,
        ToolRegistry::builtin(),
        EventSink::null(),
    )
    .expect("exec env");
    assert_eq!(
        exec.policy.verdict("bash", Effect::Exec, true),
        Verdict::Allow
    );
}

#[test]
fn the_test_builder_asks_too() {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = Workspace::new(dir.path(), false).expect("workspace");
    let exec = ExecEnv::with_defaults(ToolRegistry::builtin(), ws, EventSink::null());
    assert_eq!(exec.policy.mode(), ApprovalMode::Ask);
    assert_eq!(
        exec.policy.verdict("bash", Effect::Exec, true),
        Verdict::Ask
    );
    let yolo = exec.with_approval(ApprovalMode::Yolo);
    assert_eq!(
        yolo.policy.verdict("bash", Effect::Exec, true),
        Verdict::Allow
    );
}
