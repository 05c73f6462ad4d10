//! For the MCP and hook tests: the fixture MCP server's path, a headless run of the real
//! binary against the mock with a config file, and waiting for a line in a file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{MockServer, Tooloop};

/// tests/support/mcp_fixture.rs, built by `cargo test` as the example `mcp_fixture`.
pub fn mcp_fixture() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe");
    let path = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|debug| debug.join("examples").join("mcp_fixture"))
        .expect("target dir");
    assert!(
        path.exists(),
        "{} is missing: run `cargo test` (it builds the example), or \
         `cargo build --example mcp_fixture`",
        path.display()
    );
    path
}

/// `tooloop -p PROMPT --output-format stream-json --config CONFIG` on the mock Anthropic
/// server, in `workspace`.
pub fn headless_with_config(
    server: &MockServer,
    prompt: &str,
    config: &Path,
    workspace: &Path,
    extra: &[&str],
) -> Tooloop {
    let base = server.anthropic_base();
    let config = config.display().to_string();
    let mut args = vec![
        "-p",
        prompt,
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
        "--model",
        "claude-mock",
        "--config",
        &config,
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args)
        .env("ANTHROPIC_API_KEY", "sk-ant-extensions-test")
        .workspace(workspace)
        .timeout(Duration::from_secs(60))
}

/// Waits until `path` contains `needle`; panics after `within`.
pub fn wait_for_file_text(path: &Path, needle: &str, within: Duration) {
    let deadline = Instant::now() + within;
    while !std::fs::read_to_string(path)
        .unwrap_or_default()
        .contains(needle)
    {
        assert!(
            Instant::now() < deadline,
            "{} never contained {needle:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
