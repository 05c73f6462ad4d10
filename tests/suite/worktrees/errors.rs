//! What cannot be made is a clear error and leaves nothing behind: not a repository, a
//! detached HEAD, an existing branch, a bad name, an index in the middle of a merge (exit 2
//! for `--worktree`, before any request), and a tool error for `task`.

use crate::support;

use serde_json::json;
use support::{MockServer, ReplyBuilder, Tooloop, assert_valid_history};

use super::{assert_git_clean, git, repo, tooloop_branches};

/// `--worktree NAME -p` in `dir`: exit 2, no request sent; the error's words.
fn refused(dir: &std::path::Path, name: &str) -> String {
    let server = MockServer::start();
    server.respond_with(|_| ReplyBuilder::new().text("never").build());
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--worktree",
        name,
        "-p",
        "hi",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .workspace(dir)
    .run();
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(server.requests().is_empty());
    assert!(
        run.stderr.starts_with("tooloop: --worktree: "),
        "{}",
        run.stderr
    );
    run.stderr
}

#[test]
fn not_a_repository() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = refused(dir.path(), "x");
    assert!(err.contains("is not in a git repository"), "{err}");
    assert!(!dir.path().join(".tooloop").exists());
}

#[test]
fn a_detached_head() {
    let repo = repo();
    git(repo.path(), &["checkout", "-q", "--detach"]);
    let err = refused(repo.path(), "x");
    assert!(err.contains("HEAD is detached (at "), "{err}");
    assert!(tooloop_branches(repo.path()).is_empty());
    assert_git_clean(repo.path());
}

#[test]
fn an_existing_branch_and_a_bad_name() {
    let repo = repo();
    let r = repo.path();
    git(r, &["branch", "tooloop/taken"]);
    let err = refused(r, "taken");
    assert!(err.contains("branch tooloop/taken already exists"), "{err}");
    let err = refused(r, "a b");
    assert!(err.contains("worktree name \"a b\""), "{err}");
    let err = refused(r, "../up");
    assert!(err.contains("worktree name"), "{err}");
    assert_eq!(tooloop_branches(r), ["tooloop/taken"]);
    assert!(!r.join(".tooloop/worktrees/taken").exists());
    assert_git_clean(r);
}

#[test]
fn an_index_in_the_middle_of_a_merge() {
    let repo = repo();
    let r = repo.path();
    git(r, &["checkout", "-q", "-b", "side"]);
    std::fs::write(r.join("shared.txt"), "side\n").expect("write");
    git(r, &["commit", "-qam", "side"]);
    git(r, &["checkout", "-q", "main"]);
    std::fs::write(r.join("shared.txt"), "main\n").expect("write");
    git(r, &["commit", "-qam", "main"]);
    let merge = std::process::Command::new("git")
        .args(["-C"])
        .arg(r)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "merge",
            "-q",
            "side",
        ])
        .output()
        .expect("git");
    assert!(!merge.status.success(), "the merge conflicts");
    let err = refused(r, "x");
    assert!(
        err.contains("cannot be carried over: unmerged paths (shared.txt)"),
        "{err}"
    );
    assert!(tooloop_branches(r).is_empty());
    assert!(!r.join(".tooloop/worktrees/x").exists());
    let list = git(r, &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 1, "{list}");
}

/// `task` with isolation where there is no repository: the call's result is an error
/// saying why; the turn goes on.
#[test]
fn task_isolation_outside_a_repository_is_a_tool_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = MockServer::start();
    server.respond_with(
        |req| match req.body["messages"].as_array().map_or(0, Vec::len) {
            1 => ReplyBuilder::new()
                .tool_use(
                    "toolu_1",
                    "task",
                    json!({"description": "edit", "prompt": "child: edit",
                       "isolation": "worktree"}),
                )
                .build(),
            _ => ReplyBuilder::new().text("it could not").build(),
        },
    );
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--output-format",
        "json",
        "-p",
        "go",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .workspace(dir.path())
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let result = run.result();
    assert_valid_history(result);
    let res = &result["messages"][2]["content"][0];
    assert_eq!(res["is_error"], true, "{res}");
    let text = res["content"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("Error: isolation worktree: ") && text.contains("not in a git repository"),
        "{text}"
    );
    // No child ran: two requests, both the parent's.
    assert_eq!(server.accepted().len(), 2);
    assert!(!dir.path().join(".tooloop").exists());
}
