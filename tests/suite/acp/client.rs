//! Runs one of tests/acp_client's scripts (the official ACP TypeScript client) against
//! `tooloop acp` with a clean environment, and reads the JSON it prints.

use std::path::Path;

use serde_json::Value;

pub const KEY: &str = "sk-ant-acp-e2e-key";
/// Variables a developer's shell may set that would leak into the run.
const CLEARED_ENV: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "RUST_LOG",
    "TOOLOOP_LOG",
];

/// `node SCRIPT` in `client_dir`, the agent started with `args` in `ws`, HOME and the XDG
/// folders under `home`. Panics with both streams unless it prints one JSON object; the
/// key never reaches the agent's stderr.
pub fn run_client(client_dir: &Path, script: &str, args: &Value, ws: &Path, home: &Path) -> Value {
    let mut cmd = std::process::Command::new("node");
    for key in CLEARED_ENV {
        cmd.env_remove(key);
    }
    let out = cmd
        .arg(client_dir.join(script))
        .current_dir(client_dir)
        .env("TOOLOOP_BIN", env!("CARGO_BIN_EXE_tooloop"))
        .env("ACP_ARGS", args.to_string())
        .env("ACP_WORKSPACE", ws)
        .env("ANTHROPIC_API_KEY", KEY)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "client failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("client output is not JSON ({e}):\n{stdout}\nstderr:\n{stderr}")
    });
    if std::env::var_os("ACP_E2E_DUMP").is_some() {
        eprintln!("{seen:#}");
    }
    assert!(!seen["stderr"].as_str().unwrap_or("").contains(KEY));
    seen
}

/// All `session/update`s of one phase, as the client received them.
pub fn updates<'a>(seen: &'a Value, phase: &str) -> Vec<&'a Value> {
    seen["phases"][phase]
        .as_array()
        .map(|a| a.iter().map(|n| &n["update"]).collect())
        .unwrap_or_default()
}

pub fn of_kind<'a>(list: &[&'a Value], kind: &str) -> Vec<&'a Value> {
    list.iter()
        .copied()
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}
