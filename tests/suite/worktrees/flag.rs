//! `--worktree [NAME]` headless: a run that changed nothing leaves nothing behind; one that
//! changed a file keeps its worktree with the change committed on `tooloop/NAME`, says how
//! to merge it, and the merge works.

use crate::support;

use serde_json::json;
use support::{MockServer, ReplyBuilder, Tooloop, assert_valid_history};

use super::{assert_git_clean, git, repo, tooloop_branches};

fn run(server: &MockServer, repo: &std::path::Path, extra: &[&str]) -> support::Run {
    let base = server.anthropic_base();
    let mut args = vec![
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--approval",
        "yolo",
        "--output-format",
        "json",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args)
        .env("ANTHROPIC_API_KEY", "test-key")
        .workspace(repo)
        .run()
}

/// The first request writes `added.txt`; every later one answers "added".
fn writes_a_file(server: &MockServer) {
    server.respond_with(
        |req| match req.body["messages"].as_array().map_or(0, Vec::len) {
            1 => ReplyBuilder::new()
                .tool_use(
                    "toolu_1",
                    "write_file",
                    json!({"path": "added.txt", "content": "from the session\n"}),
                )
                .build(),
            _ => ReplyBuilder::new().text("added").build(),
        },
    );
}

#[test]
fn a_run_without_changes_removes_its_worktree_and_branch() {
    let repo = repo();
    let r = repo.path();
    let server = MockServer::start();
    server.respond_with(|_| ReplyBuilder::new().text("nothing to do").build());
    let out = run(&server, r, &["--worktree", "quiet", "-p", "look"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let wt = &out.result()["worktree"];
    assert_eq!(wt["kept"], false, "{wt}");
    assert_eq!(wt["branch"], "tooloop/quiet");
    assert!(out.stderr.contains("no changes; removed"), "{}", out.stderr);
    assert!(tooloop_branches(r).is_empty());
    assert!(!r.join(".tooloop/worktrees/quiet").exists());
    assert_git_clean(r);
}

#[test]
fn a_run_with_changes_keeps_its_branch_and_merges() {
    let repo = repo();
    let r = repo.path();
    let server = MockServer::start();
    writes_a_file(&server);
    let out = run(&server, r, &["--worktree", "keepme", "-p", "add a file"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let result = out.result();
    assert_valid_history(result);
    let wt = &result["worktree"];
    assert_eq!(wt["kept"], true, "{wt}");
    assert_eq!(wt["files_changed"], 1);
    assert_eq!(wt["path"], ".tooloop/worktrees/keepme");
    assert!(
        out.stderr.contains("git merge tooloop/keepme"),
        "{}",
        out.stderr
    );
    // The file tools were rooted in the worktree: the checkout has no added.txt.
    assert!(!r.join("added.txt").exists());
    let folder = r.join(".tooloop/worktrees/keepme");
    assert_eq!(
        std::fs::read_to_string(folder.join("added.txt")).unwrap(),
        "from the session\n"
    );
    // The system prompt named the worktree as the workspace.
    let first = &server.accepted()[0];
    assert!(
        first.body["system"]
            .to_string()
            .contains(".tooloop/worktrees/keepme")
    );
    assert_eq!(tooloop_branches(r), ["tooloop/keepme"]);
    assert_git_clean(r);
    // Listed with its change; the exit line's merge works.
    let list = Tooloop::new(&["worktrees"]).workspace(r).run();
    assert!(
        list.stdout
            .lines()
            .any(|l| l.contains("tooloop/keepme") && l.contains("1 file")),
        "{}",
        list.stdout
    );
    git(r, &["merge", "-q", "tooloop/keepme"]);
    assert_eq!(
        std::fs::read_to_string(r.join("added.txt")).unwrap(),
        "from the session\n"
    );
}

#[test]
fn worktrees_clean_removes_only_those_without_changes() {
    let repo = repo();
    let r = repo.path();
    git(
        r,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "tooloop/empty",
            ".tooloop/worktrees/empty",
        ],
    );
    git(
        r,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "tooloop/busy",
            ".tooloop/worktrees/busy",
        ],
    );
    std::fs::write(r.join(".tooloop/worktrees/busy/new.txt"), "x").expect("write");
    git(r, &["worktree", "add", "-q", "-b", "other", ".other"]);
    let clean = Tooloop::new(&["worktrees", "clean"]).workspace(r).run();
    assert_eq!(clean.code, Some(0), "{}", clean.stderr);
    assert!(
        clean.stdout.contains("removed tooloop/empty"),
        "{}",
        clean.stdout
    );
    assert!(
        clean.stdout.contains("kept tooloop/busy (1 changed)"),
        "{}",
        clean.stdout
    );
    assert_eq!(tooloop_branches(r), ["tooloop/busy"]);
    assert!(!r.join(".tooloop/worktrees/empty").exists());
    // Worktrees that are not tooloop's are neither listed nor touched.
    assert!(r.join(".other").is_dir());
    let list = Tooloop::new(&["worktrees"]).workspace(r).run();
    assert!(!list.stdout.contains("other"), "{}", list.stdout);
}

/// The exit line of a kept worktree says how to go on with its session, and that works:
/// `tooloop --continue` in the worktree's folder picks the session up there (its workspace
/// is the folder, so the checkout's own `--continue` finds its own sessions, not this one).
#[test]
fn a_kept_worktrees_session_goes_on_there_with_continue() {
    let repo = repo();
    let r = repo.path();
    let home = tempfile::tempdir().expect("home");
    let h = home.path();
    let server = MockServer::start();
    writes_a_file(&server);
    let base = server.anthropic_base();
    let run_in = |dir: &std::path::Path, extra: &[&str]| {
        let mut args = vec!["--provider", "anthropic", "--base-url", &base];
        args.extend_from_slice(&["--approval", "yolo", "--output-format", "json"]);
        args.extend_from_slice(extra);
        let data = h.join(".local/share").display().to_string();
        Tooloop::new(&args)
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("HOME", &h.display().to_string())
            .env("XDG_DATA_HOME", &data)
            .workspace(dir)
            .run()
    };
    let first = run_in(r, &["--worktree", "goon", "-p", "add a file"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert!(
        first
            .stderr
            .contains("go on with the session: cd .tooloop/worktrees/goon && tooloop --continue"),
        "{}",
        first.stderr
    );
    let folder = r.join(".tooloop/worktrees/goon");
    let again = run_in(&folder, &["--continue", "-p", "and now?"]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    let last = server
        .accepted()
        .last()
        .expect("a request")
        .body_text
        .clone();
    assert!(
        last.contains("add a file") && last.contains("and now?"),
        "the continued request carries the first prompt: {last}"
    );
    assert!(
        !again.stderr.contains("was recorded in"),
        "the same workspace: {}",
        again.stderr
    );
    assert_valid_history(again.result());
}
