//! The system prompt as the API receives it: base prompt, environment block and project
//! instructions (AGENTS.md from the git root down to the workspace, CLAUDE.md where there is
//! no AGENTS.md, the user's own AGENTS.md first), each its own text block, capped, and the
//! same bytes on every turn.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::*;

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    workspace: PathBuf,
    config_home: PathBuf,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A git repo `root` (branch `feature/prompt`) with instructions at three levels and a
/// user-level AGENTS.md; the workspace is `root/pkg/app`.
fn tree() -> Tree {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical").join("repo");
    write(&root.join(".git/HEAD"), "ref: refs/heads/feature/prompt\n");
    write(&root.join("AGENTS.md"), "ROOT-RULES: run cargo fmt.");
    write(&root.join("pkg/CLAUDE.md"), "PKG-RULES from CLAUDE.md.");
    write(&root.join("pkg/app/AGENTS.md"), "APP-RULES: nearest wins.");
    write(
        &root.join("pkg/app/CLAUDE.md"),
        "SHADOWED: AGENTS.md is read here.",
    );
    let config_home = dir.path().canonicalize().expect("canonical").join("xdg");
    write(
        &config_home.join("tooloop/AGENTS.md"),
        "USER-RULES: answer briefly.",
    );
    let workspace = root.join("pkg/app");
    Tree {
        _dir: dir,
        root,
        workspace,
        config_home,
    }
}

fn run(t: &Tree, server: &MockServer, extra: &[&str]) -> Run {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "hi",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "stream-json",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args)
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("XDG_CONFIG_HOME", &t.config_home.to_string_lossy())
        .workspace(&t.workspace)
        .run()
}

/// The text blocks of a request's `system`.
fn system_parts(req: &Recorded) -> Vec<String> {
    match &req.body["system"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .map(|b| {
                assert_eq!(b["type"], "text", "{b}");
                b["text"].as_str().expect("text").to_string()
            })
            .collect(),
        other => panic!("system is {other}"),
    }
}

#[test]
fn nested_instructions_arrive_in_the_documented_order() {
    let t = tree();
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let run = run(&t, &server, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let parts = system_parts(&server.accepted()[0]);
    assert_eq!(parts.len(), 3, "{parts:#?}");
    assert!(parts[0].starts_with("You are tooloop"), "{}", parts[0]);

    let env = &parts[1];
    assert!(env.starts_with("<environment>"), "{env}");
    assert!(
        env.contains(&format!("Workspace: {}\n", t.workspace.display())),
        "{env}"
    );
    assert!(
        env.contains(&format!(
            "Git repository: yes (root {}, branch feature/prompt)",
            t.root.display()
        )),
        "{env}"
    );
    assert!(
        env.contains(&format!("Platform: {}", std::env::consts::OS)),
        "{env}"
    );
    let date = env
        .lines()
        .find_map(|l| l.strip_prefix("Today's date: "))
        .expect("date line");
    assert!(
        date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-',
        "{date}"
    );

    let ins = &parts[2];
    assert!(ins.starts_with("# Project instructions"), "{ins}");
    let at = |s: &str| {
        ins.find(s)
            .unwrap_or_else(|| panic!("{s} missing in\n{ins}"))
    };
    assert!(at("USER-RULES") < at("ROOT-RULES"));
    assert!(at("ROOT-RULES") < at("PKG-RULES"));
    assert!(at("PKG-RULES") < at("APP-RULES"));
    assert!(!ins.contains("SHADOWED"), "{ins}");
    // Each file is named, right above its text.
    let user_file = t.config_home.join("tooloop/AGENTS.md");
    assert!(ins.contains(&format!(
        "## {} (user-level)\n\nUSER-RULES",
        user_file.display()
    )));
    assert!(ins.contains(&format!(
        "## {}\n\nROOT-RULES",
        t.root.join("AGENTS.md").display()
    )));
    assert!(ins.contains(&format!(
        "## {}\n\nPKG-RULES",
        t.root.join("pkg/CLAUDE.md").display()
    )));
    assert!(ins.contains(&format!(
        "## {}\n\nAPP-RULES",
        t.workspace.join("AGENTS.md").display()
    )));
}

#[test]
fn the_flag_removes_them_and_system_flags_touch_only_their_parts() {
    let t = tree();
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let run = run(
        &t,
        &server,
        &[
            "--no-project-instructions",
            "--system",
            "BASE-REPLACED",
            "--append-system",
            "APPENDED",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let parts = system_parts(&server.accepted()[0]);
    assert_eq!(parts.len(), 3, "{parts:#?}");
    assert_eq!(parts[0], "BASE-REPLACED");
    assert_eq!(parts[1], "APPENDED");
    assert!(parts[2].starts_with("<environment>"), "{}", parts[2]);
    let all = parts.join("\n");
    for rules in ["USER-RULES", "ROOT-RULES", "PKG-RULES", "APP-RULES"] {
        assert!(!all.contains(rules), "{rules} in {all}");
    }
}

#[test]
fn the_cap_is_enforced_and_the_cut_is_said() {
    let t = tree();
    // 40 KiB in the root file: more than the 32 KiB cap on its own.
    write(&t.root.join("AGENTS.md"), &"R".repeat(40 * 1024));
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let run = run(&t, &server, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let parts = system_parts(&server.accepted()[0]);
    let ins = &parts[2];
    // Nearest first: the app and pkg files are whole, the root file gets what is left of
    // 32 KiB, and the user-level file (the most general) is left out, named.
    let nearer = "PKG-RULES from CLAUDE.md.".len() + "APP-RULES: nearest wins.".len();
    assert!(
        ins.contains("APP-RULES") && ins.contains("PKG-RULES"),
        "{ins:.300}"
    );
    // Only the root file's own bytes: file names (temporary paths) may hold an `R` too.
    let root_bytes: usize = ins
        .lines()
        .filter(|l| !l.is_empty() && l.chars().all(|c| c == 'R'))
        .map(str::len)
        .sum();
    assert_eq!(root_bytes, 32 * 1024 - nearer);
    assert!(!ins.contains("USER-RULES"));
    assert!(
        ins.contains("[cut: project instructions are capped at 32 KiB; the last 8241 bytes of this file were left out]"),
        "{ins:.300}"
    );
    assert!(
        ins.contains("[cut: project instructions are capped at 32 KiB; this file was left out]"),
        "{ins:.300}"
    );
    let notices: Vec<&str> = run
        .of_type("notice")
        .iter()
        .filter_map(|n| n["text"].as_str())
        .collect();
    assert!(
        notices.iter().any(|n| n.contains("capped at 32 KiB")
            && n.contains(&t.root.join("AGENTS.md").display().to_string())),
        "{notices:?}"
    );
}

#[test]
fn the_system_prompt_is_the_same_bytes_on_every_turn() {
    let t = tree();
    let server = MockServer::start();
    server.enqueue(tool_reply(&[("toolu_1", "get_current_time", json!({}))]));
    server.enqueue(tool_reply(&[("toolu_2", "list_dir", json!({}))]));
    server.enqueue(text_reply("done"));
    let run = run(&t, &server, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 3);
    let system = |r: &Recorded| serde_json::to_string(&r.body["system"]).expect("json");
    assert_eq!(system(&reqs[0]), system(&reqs[1]));
    assert_eq!(system(&reqs[1]), system(&reqs[2]));
}
