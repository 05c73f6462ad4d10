//! Which paths a sandboxed command may write, as a platform-neutral list: Landlock and
//! Seatbelt both turn it into their own rules.
//!
//! Both grant whole hierarchies and neither can take a subtree back out of a granted one, so
//! a protected directory (tooloop's config or data) inside the workspace is carved out by
//! granting its siblings instead of the parent: along the path down to it, each directory
//! keeps its existing files writable but gets no right to create entries of its own.

use std::path::{Path, PathBuf};

use super::{SandboxMode, SandboxPolicy};

/// One grant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Writable {
    pub path: PathBuf,
    /// A hierarchy (create, remove, write anything beneath) or a single file (write only).
    pub tree: bool,
}

impl Writable {
    fn tree(path: impl Into<PathBuf>) -> Self {
        Writable {
            path: path.into(),
            tree: true,
        }
    }
}

/// Every grant for a call; `tmp` is the call's own temp dir.
pub fn writable(policy: &SandboxPolicy, tmp: Option<&Path>) -> Vec<Writable> {
    let mut out = vec![Writable {
        path: "/dev/null".into(),
        tree: false,
    }];
    if policy.mode != SandboxMode::WorkspaceWrite {
        return out;
    }
    carve(&policy.workspace, &policy.protected, &mut out);
    if let Some(git) = git_dirs(&policy.workspace) {
        for dir in git {
            if !dir.starts_with(&policy.workspace) {
                carve(&dir, &policy.protected, &mut out);
            }
        }
    }
    if let Some(tmp) = tmp {
        out.push(Writable::tree(tmp));
    }
    out
}

/// Grants `dir` whole, or everything in it but the protected paths inside it.
fn carve(dir: &Path, protected: &[PathBuf], out: &mut Vec<Writable>) {
    if protected.iter().any(|p| dir.starts_with(p)) {
        return;
    }
    if !protected.iter().any(|p| p.starts_with(dir)) {
        out.push(Writable::tree(dir));
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if is_dir {
            carve(&path, protected, out);
        } else {
            out.push(Writable { path, tree: false });
        }
    }
}

/// The git directories the workspace's repository writes to when it commits: `.git` of
/// the nearest repository at or above the workspace, and for a linked worktree (`.git` is
/// a file saying `gitdir: …`) that directory and the main repository's common dir.
fn git_dirs(workspace: &Path) -> Option<Vec<PathBuf>> {
    let dot_git = workspace
        .ancestors()
        .map(|d| d.join(".git"))
        .find(|p| p.exists())?;
    if dot_git.is_dir() {
        return Some(vec![dot_git]);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let gitdir = text.strip_prefix("gitdir:")?.trim();
    let base = dot_git.parent()?;
    let gitdir = base.join(gitdir).canonicalize().ok()?;
    let mut dirs = vec![gitdir.clone()];
    if let Ok(common) = std::fs::read_to_string(gitdir.join("commondir"))
        && let Ok(common) = gitdir.join(common.trim()).canonicalize()
    {
        dirs.push(common);
    }
    Some(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(workspace: &Path, protected: Vec<PathBuf>) -> SandboxPolicy {
        SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            network: false,
            workspace: workspace.to_path_buf(),
            protected,
            abi: 7,
        }
    }

    #[test]
    fn the_workspace_is_one_grant_when_nothing_protected_is_inside() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().canonicalize().unwrap();
        let rules = writable(&policy(&w, vec!["/elsewhere".into()]), None);
        assert!(rules.contains(&Writable::tree(&w)));
    }

    #[test]
    fn a_protected_dir_inside_the_workspace_is_carved_out() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(w.join(".config/tooloop")).unwrap();
        std::fs::create_dir_all(w.join(".config/other")).unwrap();
        std::fs::create_dir_all(w.join("src")).unwrap();
        std::fs::write(w.join("notes.txt"), "x").unwrap();
        let rules = writable(&policy(&w, vec![w.join(".config/tooloop")]), None);
        assert!(rules.contains(&Writable::tree(w.join("src"))));
        assert!(rules.contains(&Writable::tree(w.join(".config/other"))));
        assert!(
            rules
                .iter()
                .any(|r| r.path == w.join("notes.txt") && !r.tree)
        );
        assert!(!rules.iter().any(|r| r.path == w));
        assert!(
            !rules
                .iter()
                .any(|r| r.path.starts_with(w.join(".config/tooloop")))
        );
    }

    #[test]
    fn read_only_grants_only_dev_null() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = policy(dir.path(), vec![]);
        p.mode = SandboxMode::ReadOnly;
        let rules = writable(&p, Some(Path::new("/tmp/x")));
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].path, Path::new("/dev/null"));
    }

    #[test]
    fn a_linked_worktree_grants_its_git_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let common = root.join("main/.git");
        let linked = common.join("worktrees/wt");
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(linked.join("commondir"), "../..\n").unwrap();
        let w = root.join("wt");
        std::fs::create_dir_all(&w).unwrap();
        std::fs::write(w.join(".git"), format!("gitdir: {}\n", linked.display())).unwrap();
        let rules = writable(&policy(&w, vec![]), None);
        assert!(rules.contains(&Writable::tree(&linked)));
        assert!(rules.contains(&Writable::tree(&common)));
    }
}
