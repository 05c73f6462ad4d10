//! Git worktrees (issue 40): `--worktree` and `isolation: worktree` against the mock model
//! with real git in temp repositories; the state git is left in after every run.

mod children;
mod errors;
mod flag;
mod sigint;

use std::path::Path;
use std::process::Command;

use tooloop::worktree::porcelain::parse_worktree_list;

/// `git -C dir ARGS` (with an identity, so setup commits work without a global config);
/// its stdout, or a panic with its stderr.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@localhost"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository on `main` with `shared.txt` and `notes.txt` committed.
pub fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    git(p, &["init", "-q", "-b", "main"]);
    std::fs::write(p.join("shared.txt"), "base\n").expect("write");
    std::fs::write(p.join("notes.txt"), "notes\n").expect("write");
    git(p, &["add", "."]);
    git(p, &["commit", "-q", "-m", "init"]);
    dir
}

/// The branches under `tooloop/`.
pub fn tooloop_branches(repo: &Path) -> Vec<String> {
    git(
        repo,
        &["branch", "--list", "tooloop/*", "--format=%(refname:short)"],
    )
    .lines()
    .map(str::to_string)
    .collect()
}

/// What git is left with after any run, finished or interrupted: every worktree but the
/// main one is on a `tooloop/` branch, none is locked or prunable (nothing for
/// `git worktree prune` to do), and every folder under `.tooloop/worktrees` is a worktree
/// git knows. A branch without a folder is allowed (kept work); a folder without its branch
/// is not.
pub fn assert_git_clean(repo: &Path) {
    let list = parse_worktree_list(&git(repo, &["worktree", "list", "--porcelain"]));
    assert!(!list.is_empty());
    for entry in &list[1..] {
        let branch = entry.branch.as_deref().unwrap_or("");
        assert!(
            branch.starts_with("tooloop/"),
            "a worktree without its branch: {entry:?}"
        );
        assert!(entry.locked.is_none(), "a stale lock: {entry:?}");
        assert!(entry.prunable.is_none(), "a prunable worktree: {entry:?}");
        assert!(entry.path.is_dir(), "{entry:?}");
    }
    let prune = git(repo, &["worktree", "prune", "--dry-run", "-v"]);
    assert!(prune.trim().is_empty(), "git worktree prune would: {prune}");
    let dir = repo.join(".tooloop/worktrees");
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let path = e.path().canonicalize().expect("canonical");
            assert!(
                list.iter()
                    .any(|w| w.path.canonicalize().ok().as_ref() == Some(&path)),
                "a folder git does not know: {}",
                path.display()
            );
        }
    }
    // The exclude line keeps the user's status clean of tooloop's folders.
    let status = git(repo, &["status", "--porcelain"]);
    assert!(!status.contains(".tooloop"), "{status}");
}
