//! `tooloop worktrees` and `/worktrees`: tooloop's worktrees of a repository (branches
//! under `tooloop/`) with their changes and session; `clean` removes those without changes
//! that no running tooloop holds.

use std::path::{Path, PathBuf};

use super::porcelain::parse_worktree_list;
use super::{BRANCH_PREFIX, WorktreeError, git};

#[derive(Clone, Debug)]
pub struct Listed {
    pub path: PathBuf,
    /// The path relative to the main checkout (`.tooloop/worktrees/NAME`).
    pub folder: String,
    pub branch: String,
    /// Files that differ from where its own work started; None when its folder is gone.
    pub files: Option<usize>,
    pub session: Option<String>,
    pub agent: Option<String>,
    /// The tooloop process that made it, while it still runs.
    pub in_use: Option<u32>,
    pub locked: bool,
}

/// tooloop's worktrees of the repository around `dir`, in git's order.
pub fn list(dir: &Path) -> Result<Vec<Listed>, WorktreeError> {
    let top = git::run(dir, &["rev-parse", "--show-toplevel"])?;
    if !top.ok {
        return Err(WorktreeError::NotARepo(dir.to_path_buf()));
    }
    let origin = PathBuf::from(top.text());
    let out = git::ok(&origin, &["worktree", "list", "--porcelain"])?;
    let entries = parse_worktree_list(&String::from_utf8_lossy(&out.stdout));
    // Folders are shown from the main checkout (git lists it first), wherever one asks from
    // (inside a `--worktree` session too).
    let main = entries.first().map(|e| e.path.clone()).unwrap_or(origin);
    let mut listed = Vec::new();
    for entry in entries {
        let Some(branch) = entry.branch.filter(|b| b.starts_with(BRANCH_PREFIX)) else {
            continue;
        };
        let meta = meta(&entry.path);
        let field = |k: &str| {
            meta.get(k)
                .and_then(serde_json::Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let base = field("base").unwrap_or_else(|| "HEAD".into());
        let files = if entry.prunable.is_none() && entry.path.is_dir() {
            super::lease::changed_files(&entry.path, &base)
                .ok()
                .map(|f| f.len())
        } else {
            None
        };
        let in_use = meta
            .get("pid")
            .and_then(serde_json::Value::as_u64)
            .and_then(|p| u32::try_from(p).ok())
            .filter(|p| alive(*p));
        let folder = match entry.path.strip_prefix(&main) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => entry.path.display().to_string(),
        };
        listed.push(Listed {
            folder,
            path: entry.path,
            branch,
            files,
            session: field("session"),
            agent: field("agent"),
            in_use,
            locked: entry.locked.is_some(),
        });
    }
    Ok(listed)
}

fn meta(worktree: &Path) -> serde_json::Value {
    git::run(worktree, &["rev-parse", "--absolute-git-dir"])
        .ok()
        .filter(|o| o.ok)
        .and_then(|o| std::fs::read(PathBuf::from(o.text()).join(super::lease::META)).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Whether process `pid` runs (the one that asks counts as not: its own worktrees are
/// finished by itself).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The table both `tooloop worktrees` and `/worktrees` print.
pub fn format_table(listed: &[Listed]) -> String {
    if listed.is_empty() {
        return "no tooloop worktrees in this repository\n".into();
    }
    let rows: Vec<[String; 4]> = listed
        .iter()
        .map(|l| {
            let changes = match l.files {
                None => "folder missing".to_string(),
                Some(0) => "no changes".to_string(),
                Some(1) => "1 file".to_string(),
                Some(n) => format!("{n} files"),
            };
            let mut session = l.session.clone().unwrap_or_else(|| "-".into());
            if let Some(a) = &l.agent {
                session.push_str(&format!(" (agent {a})"));
            }
            if let Some(pid) = l.in_use {
                session.push_str(&format!(" · running, pid {pid}"));
            }
            if l.locked {
                session.push_str(" · locked");
            }
            [l.folder.clone(), l.branch.clone(), changes, session]
        })
        .collect();
    let head = ["worktree", "branch", "changes", "session"].map(String::from);
    let widths: Vec<usize> = (0..3)
        .map(|i| {
            rows.iter()
                .chain(std::iter::once(&head))
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in std::iter::once(&head).chain(&rows) {
        let line = format!(
            "{:w0$}  {:w1$}  {:w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Removes every listed worktree without changes that no running tooloop holds (and is
/// not locked); one line per worktree says what became of it.
pub fn clean(dir: &Path) -> Result<String, WorktreeError> {
    let listed = list(dir)?;
    let origin = PathBuf::from(git::ok(dir, &["rev-parse", "--show-toplevel"])?.text());
    let mut out = String::new();
    let _guard = super::lease::locked();
    for l in &listed {
        let line = match (l.files, l.in_use, l.locked) {
            (_, Some(pid), _) => format!("kept {} (in use by pid {pid})", l.branch),
            (_, _, true) => format!("kept {} (locked)", l.branch),
            (Some(0), _, _) => match super::lease::remove(&origin, &l.path, &l.branch) {
                Ok(()) => format!("removed {} ({})", l.branch, l.folder),
                Err(e) => format!("could not remove {}: {e}", l.branch),
            },
            (None, _, _) => format!("kept {} (folder missing: git worktree prune)", l.branch),
            (Some(n), _, _) => format!("kept {} ({n} changed)", l.branch),
        };
        out.push_str(&line);
        out.push('\n');
    }
    if listed.is_empty() {
        out.push_str("no tooloop worktrees in this repository\n");
    }
    Ok(out)
}
