//! `--thinking` / `thinking_budget`, `--reasoning-effort` / `reasoning_effort` and the
//! prompt flags as Config sees them: the flag beats the file, 0 in the file is off, a budget
//! below the API's minimum is refused, max_tokens is raised above the budget and the user told.

use clap::Parser;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::provider::ReasoningEffort;

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

fn resolve(args: &[&str], file: &str) -> Result<Config, String> {
    let dir = std::env::temp_dir();
    let ws = dir.to_string_lossy().into_owned();
    let mut all = vec!["tooloop", "--workspace", ws.as_str()];
    all.extend_from_slice(args);
    let cli = Cli::try_parse_from(all).map_err(|e| e.to_string())?;
    let file = FileConfig::parse(file, std::path::Path::new("/x/config.toml"))
        .map_err(|e| e.to_string())?;
    Config::resolve_with(&cli, &NoEnv, &file).map_err(|e| e.to_string())
}

#[test]
fn the_flag_beats_the_file_and_zero_is_off() {
    let anthropic = ["--provider", "anthropic"];
    let c = resolve(&anthropic, "thinking_budget = 4096\n").expect("config");
    assert_eq!(c.request.thinking_budget, Some(4096));
    let c = resolve(&anthropic, "thinking_budget = 0\n").expect("config");
    assert_eq!(c.request.thinking_budget, None);
    let c = resolve(
        &["--provider", "anthropic", "--thinking", "off"],
        "thinking_budget = 4096\n",
    )
    .expect("config");
    assert_eq!(c.request.thinking_budget, None);
    let c = resolve(
        &["--provider", "anthropic", "--thinking", "2048"],
        "thinking_budget = 4096\n",
    )
    .expect("config");
    assert_eq!(c.request.thinking_budget, Some(2048));
    assert!(c.notes.is_empty(), "{:?}", c.notes);
}

#[test]
fn budgets_below_1024_are_refused_from_flag_and_file() {
    let e = resolve(&["--thinking", "1000"], "").expect_err("too small");
    assert!(e.contains("at least 1024"), "{e}");
    let e = resolve(&["--thinking", "lots"], "").expect_err("not a number");
    assert!(e.contains("\"off\""), "{e}");
    let e = resolve(&[], "thinking_budget = 100\n").expect_err("too small");
    assert!(
        e.contains("thinking_budget = 100") && e.contains("1024"),
        "{e}"
    );
}

#[test]
fn max_tokens_is_raised_above_the_budget_and_said() {
    let c = resolve(
        &["--provider", "anthropic", "--thinking", "16000"],
        "max_tokens = 8192\n",
    )
    .expect("config");
    assert_eq!(c.request.max_tokens, 24192);
    assert_eq!(c.notes.len(), 1);
    assert!(
        c.notes[0].contains("sending max_tokens 24192"),
        "{:?}",
        c.notes
    );
    // Above the budget already: untouched, nothing said.
    let c = resolve(
        &[
            "--provider",
            "anthropic",
            "--thinking",
            "2048",
            "--max-tokens",
            "4096",
        ],
        "",
    )
    .expect("config");
    assert_eq!(c.request.max_tokens, 4096);
    assert!(c.notes.is_empty());
}

#[test]
fn reasoning_effort_and_prompt_flags() {
    let c = resolve(
        &["--provider", "openai", "--reasoning-effort", "medium"],
        "reasoning_effort = \"low\"\n",
    )
    .expect("config");
    assert_eq!(c.request.reasoning_effort, Some(ReasoningEffort::Medium));
    let c = resolve(
        &["--provider", "anthropic"],
        "reasoning_effort = \"high\"\n",
    )
    .expect("config");
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("--reasoning-effort is not sent by the anthropic provider")),
        "{:?}",
        c.notes
    );
    let c = resolve(
        &[],
        "append_system = \"from file\"\nproject_instructions = false\n",
    )
    .expect("config");
    assert_eq!(c.prompt.append_system.as_deref(), Some("from file"));
    assert!(!c.prompt.project_instructions);
    let c = resolve(
        &["--append-system", "from flag"],
        "append_system = \"from file\"\n",
    )
    .expect("config");
    assert_eq!(c.prompt.append_system.as_deref(), Some("from flag"));
    assert!(c.prompt.project_instructions);
    let c = resolve(&["--no-project-instructions"], "").expect("config");
    assert!(!c.prompt.project_instructions);
}
