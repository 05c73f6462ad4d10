//! flag > environment > config file > default, key by key.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use clap::Parser;
use tooloop::cli::{Cli, ProviderKind, ToolExec};
use tooloop::config::{Config, Env, SessionMode};
use tooloop::config_file::FileConfig;
use tooloop::protocol::approval_mode::ApprovalMode;

struct FakeEnv(HashMap<&'static str, &'static str>);

impl Env for FakeEnv {
    fn var(&self, key: &str) -> Option<String> {
        self.0.get(key).map(|v| v.to_string())
    }
}

fn env(pairs: &[(&'static str, &'static str)]) -> FakeEnv {
    FakeEnv(pairs.iter().copied().collect())
}

fn cli(args: &[&str]) -> Cli {
    Cli::try_parse_from(std::iter::once("tooloop").chain(args.iter().copied())).expect("parses")
}

fn file(text: &str) -> FileConfig {
    FileConfig::parse(text, Path::new("config.toml")).expect("valid file")
}

fn resolve(args: &[&str], e: &FakeEnv, f: &str) -> Config {
    Config::resolve_with(&cli(args), e, &file(f)).expect("resolves")
}

const FILE: &str = r#"
model = "file-model"
max_turns = 7
approval = "auto-edit"
tool_exec = "serial"
idle_timeout_secs = 11
theme = "light"
[anthropic]
base_url = "http://file.example"
[tools]
timeout_secs = 5
max_output_bytes = 1234
[retry]
max_attempts = 2
max_delay_secs = 3
[keyboard]
enhancement = false
"#;

#[test]
fn base_url_flag_beats_env_beats_file_beats_default() {
    let key = ("ANTHROPIC_API_KEY", "k");
    let with_env = env(&[key, ("ANTHROPIC_BASE_URL", "http://env.example")]);
    let flag = ["--base-url", "http://flag.example"];
    assert_eq!(
        resolve(&flag, &with_env, FILE).provider.base_url,
        "http://flag.example"
    );
    assert_eq!(
        resolve(&[], &with_env, FILE).provider.base_url,
        "http://env.example"
    );
    assert_eq!(
        resolve(&[], &env(&[key]), FILE).provider.base_url,
        "http://file.example"
    );
    assert_eq!(
        resolve(&[], &env(&[key]), "").provider.base_url,
        ProviderKind::Anthropic.defaults().base_url
    );
}

#[test]
fn model_flag_beats_env_beats_file_beats_default() {
    let key = ("ANTHROPIC_API_KEY", "k");
    let with_env = env(&[key, ("TOOLOOP_MODEL", "env-model")]);
    assert_eq!(
        resolve(&["--model", "flag-model"], &with_env, FILE)
            .provider
            .model,
        "flag-model"
    );
    assert_eq!(resolve(&[], &with_env, FILE).provider.model, "env-model");
    assert_eq!(
        resolve(&[], &env(&[key]), FILE).provider.model,
        "file-model"
    );
    assert_eq!(
        resolve(&[], &env(&[key]), "").provider.model,
        ProviderKind::Anthropic.defaults().model
    );
    let section = "[anthropic]\nmodel = \"section-model\"\n";
    assert_eq!(
        resolve(&[], &env(&[key]), section).provider.model,
        "section-model"
    );
}

#[test]
fn provider_flag_beats_env_beats_file_beats_detection() {
    let keys = env(&[("ANTHROPIC_API_KEY", "k"), ("TOOLOOP_PROVIDER", "openai")]);
    let f = "provider = \"demo\"\n";
    assert_eq!(
        resolve(&["--provider", "anthropic"], &keys, f)
            .provider
            .kind,
        ProviderKind::Anthropic
    );
    assert_eq!(resolve(&[], &keys, f).provider.kind, ProviderKind::Openai);
    assert_eq!(
        resolve(&[], &env(&[("ANTHROPIC_API_KEY", "k")]), f)
            .provider
            .kind,
        ProviderKind::Demo
    );
    assert_eq!(
        resolve(&[], &env(&[("OPENAI_API_KEY", "k")]), "")
            .provider
            .kind,
        ProviderKind::Openai
    );
    assert_eq!(
        resolve(&[], &env(&[]), "").provider.kind,
        ProviderKind::Demo
    );
    let bad = Config::resolve_with(&cli(&[]), &env(&[("TOOLOOP_PROVIDER", "x")]), &file(""));
    assert!(
        bad.expect_err("bad provider")
            .to_string()
            .contains("TOOLOOP_PROVIDER")
    );
}

#[test]
fn api_key_env_names_the_variable_the_key_is_read_from() {
    let f = "[anthropic]\napi_key_env = \"WORK_KEY\"\n";
    let e = env(&[("WORK_KEY", "sk-work"), ("ANTHROPIC_API_KEY", "sk-default")]);
    let c = resolve(&[], &e, f);
    assert_eq!(c.provider.kind, ProviderKind::Anthropic);
    assert_eq!(c.provider.api_key.as_deref(), Some("sk-work"));
    // Detection follows the configured name too.
    let c = resolve(&[], &env(&[("ANTHROPIC_API_KEY", "sk-default")]), f);
    assert_eq!(
        c.provider.kind,
        ProviderKind::Demo,
        "ANTHROPIC_API_KEY is not the key variable now"
    );
    assert!(
        !format!("{:?}", resolve(&[], &e, f)).contains("sk-work"),
        "Debug redacts the key"
    );
}

#[test]
fn the_other_keys_come_from_the_file_unless_a_flag_says_otherwise() {
    let c = resolve(&[], &env(&[]), FILE);
    assert_eq!(c.request.max_turns, 7);
    assert_eq!(c.tools.approval, ApprovalMode::AutoEdit);
    assert_eq!(c.tools.tool_exec, ToolExec::Serial);
    assert_eq!(c.provider.idle_timeout, Duration::from_secs(11));
    assert_eq!(c.tools.tool_timeout, Duration::from_secs(5));
    assert_eq!(c.tools.max_output_bytes, 1234);
    assert_eq!(c.provider.retry.max_attempts, 2);
    assert_eq!(c.provider.retry.max_delay, Duration::from_secs(3));
    assert_eq!(c.tui.theme, "light");
    assert!(!c.tui.keyboard_enhancement);
    let flags = [
        "--max-turns",
        "3",
        "--approval",
        "yolo",
        "--tool-exec",
        "parallel",
        "--idle-timeout",
        "4",
        "--max-retries",
        "9",
    ];
    let c = resolve(&flags, &env(&[]), FILE);
    assert_eq!(c.request.max_turns, 3);
    assert_eq!(c.tools.approval, ApprovalMode::Yolo);
    assert_eq!(c.tools.tool_exec, ToolExec::Parallel);
    assert_eq!(c.provider.idle_timeout, Duration::from_secs(4));
    assert_eq!(c.provider.retry.max_attempts, 9);
    let c = resolve(&[], &env(&[]), "");
    assert_eq!(c.request.max_turns, 50);
    assert_eq!(c.tools.approval, ApprovalMode::Ask);
    assert_eq!(c.tools.tool_exec, ToolExec::Streaming);
    assert!(c.tui.keyboard_enhancement);
}

#[test]
fn session_flags_become_a_mode() {
    assert_eq!(resolve(&[], &env(&[]), "").session.mode, SessionMode::New);
    assert_eq!(
        resolve(&["-c"], &env(&[]), "").session.mode,
        SessionMode::Continue
    );
    assert_eq!(
        resolve(&["--resume", "ab12"], &env(&[]), "").session.mode,
        SessionMode::Resume("ab12".into())
    );
    assert_eq!(
        resolve(&["--no-session"], &env(&[]), "").session.mode,
        SessionMode::Off
    );
    let both = Config::resolve_with(&cli(&["-c", "--resume", "x"]), &env(&[]), &file(""));
    assert!(both.is_err());
}
