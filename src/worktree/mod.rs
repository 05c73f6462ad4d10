//! Git worktrees for a session (`--worktree`) and for subagents (`isolation: worktree`):
//! create one branched from the current HEAD (carrying the uncommitted changes over), finish
//! it (commit what changed on its branch, or remove it with its branch when nothing did),
//! list and clean tooloop's worktrees. Only git operations live here; the engine and the
//! `task` tool decide when.
//!
//! The folder is `.tooloop/worktrees/NAME` inside the repository (ignored through
//! `.git/info/exclude`, so the user's `.gitignore` is untouched): it lies inside the parent's
//! workspace, so the parent's file tools can read and diff a child's work and the shell
//! sandbox that lets the parent write its workspace covers the child's folder as well.

mod git;
mod lease;
mod list;
mod outcome;
pub mod porcelain;

use std::path::PathBuf;

pub use lease::{Create, Worktree};
pub use list::{Listed, clean, format_table, list};
pub use outcome::Outcome;

/// Where tooloop's worktrees live, relative to the repository's top.
pub const DIR: &str = ".tooloop/worktrees";
/// Every branch tooloop makes for a worktree starts with this.
pub const BRANCH_PREFIX: &str = "tooloop/";

#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("git cannot be started: {0}")]
    NoGit(std::io::Error),
    #[error("{} is not in a git repository: a worktree needs one", .0.display())]
    NotARepo(PathBuf),
    #[error(
        "HEAD is detached ({0}): a worktree branches from the current branch; check a branch \
         out first"
    )]
    Detached(String),
    #[error("the repository has no commit yet: a worktree needs one to branch from")]
    NoCommit,
    #[error(
        "worktree name {0:?}: use letters, digits, `-`, `_` and `.` (at most 64 characters, \
         not starting with `-` or `.`)"
    )]
    BadName(String),
    #[error("branch {0} already exists: pick another name, or delete it (git branch -D {0})")]
    BranchExists(String),
    #[error("{} already exists: pick another name", .0.display())]
    FolderExists(PathBuf),
    #[error("the uncommitted changes cannot be carried over: {0}")]
    DirtyIndex(String),
    #[error("{command} failed: {stderr}")]
    Git { command: String, stderr: String },
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

/// A name is a path segment and part of a branch name: kept to a safe alphabet.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['-', '.'])
        && !name.ends_with(".lock")
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// A short id for a worktree nobody named: 6 hex digits from the clock, the process and a
/// counter (two made in the same instant still differ).
pub fn short_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    format!("{:06x}", h.finish() & 0xff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["a", "fix-tests", "a1-3f9c2b", "v1.2_x"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in [
            "",
            "-x",
            ".x",
            "a/b",
            "a b",
            "a..b",
            "x.lock",
            "ä",
            &"x".repeat(65),
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert_eq!(short_id().len(), 6);
        assert_ne!(short_id(), short_id());
    }
}
