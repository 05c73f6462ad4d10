//! The environment block: where the model works (workspace, OS, shell, today's date, git).
//! Detected once per session; the date is fixed then, so the block stays byte-stable for
//! prompt caching even across midnight.

use std::path::{Path, PathBuf};

/// The git repository the workspace is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitInfo {
    /// The directory that holds `.git` (the top of the work tree).
    pub root: PathBuf,
    /// The checked-out branch, or "detached at abc1234"; None if HEAD cannot be read.
    pub branch: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Environment {
    pub workspace: PathBuf,
    /// "linux (x86_64)".
    pub platform: String,
    pub shell: String,
    /// `YYYY-MM-DD`, local time, taken at session start.
    pub date: String,
    pub git: Option<GitInfo>,
}

impl Environment {
    /// Looks at the real system: the OS, `$SHELL`, today's local date and the git
    /// repository around `workspace`.
    pub fn detect(workspace: &Path) -> Self {
        let shell = std::env::var("SHELL")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "sh".into());
        let date = jiff::Zoned::now().strftime("%Y-%m-%d").to_string();
        Environment {
            workspace: workspace.to_path_buf(),
            platform: format!("{} ({})", std::env::consts::OS, std::env::consts::ARCH),
            shell,
            date,
            git: git_info(workspace),
        }
    }

    /// The block as the model reads it.
    pub fn render(&self) -> String {
        let git = match &self.git {
            None => "no".to_string(),
            Some(g) => {
                let branch = g
                    .branch
                    .as_deref()
                    .map(|b| format!(", branch {b}"))
                    .unwrap_or_default();
                format!("yes (root {}{branch})", g.root.display())
            }
        };
        format!(
            "<environment>\nWorkspace: {}\nPlatform: {}\nShell: {}\nToday's date: {}\n\
             Git repository: {git}\n</environment>",
            self.workspace.display(),
            self.platform,
            self.shell,
            self.date,
        )
    }
}

/// The repository around `dir`: the nearest ancestor (itself included) with a `.git`
/// directory, or a `.git` file (a linked worktree or submodule: `gitdir: PATH`).
pub fn git_info(dir: &Path) -> Option<GitInfo> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for root in dir.ancestors() {
        let dot_git = root.join(".git");
        let git_dir = if dot_git.is_dir() {
            dot_git
        } else if dot_git.is_file() {
            match linked_git_dir(&dot_git, root) {
                Some(d) => d,
                None => continue,
            }
        } else {
            continue;
        };
        return Some(GitInfo {
            root: root.to_path_buf(),
            branch: read_branch(&git_dir),
        });
    }
    None
}

fn linked_git_dir(file: &Path, root: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let path = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let path = PathBuf::from(path);
    Some(if path.is_absolute() {
        path
    } else {
        root.join(path)
    })
}

/// The branch HEAD points at, read from the file (no `git` process per session start).
fn read_branch(git_dir: &Path) -> Option<String> {
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    if let Some(r) = head.strip_prefix("ref:") {
        let r = r.trim();
        return Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_string());
    }
    let short: String = head.chars().take(7).collect();
    (!short.is_empty() && short.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| format!("detached at {short}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_every_field() {
        let env = Environment {
            workspace: "/w/app".into(),
            platform: "linux (x86_64)".into(),
            shell: "/bin/zsh".into(),
            date: "2026-12-01".into(),
            git: Some(GitInfo {
                root: "/w".into(),
                branch: Some("main".into()),
            }),
        };
        assert_eq!(
            env.render(),
            "<environment>\nWorkspace: /w/app\nPlatform: linux (x86_64)\nShell: /bin/zsh\n\
             Today's date: 2026-12-01\nGit repository: yes (root /w, branch main)\n</environment>"
        );
        let no_git = Environment { git: None, ..env };
        assert!(no_git.render().contains("Git repository: no\n"));
    }

    #[test]
    fn finds_the_repository_and_its_branch() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join(".git")).expect("mkdir");
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/feature/x\n").expect("HEAD");
        std::fs::create_dir_all(root.join("a/b")).expect("mkdir");
        let info = git_info(&root.join("a/b")).expect("repo");
        assert_eq!(info.root, root);
        assert_eq!(info.branch.as_deref(), Some("feature/x"));
        std::fs::write(root.join(".git/HEAD"), "0123456789abcdef\n").expect("HEAD");
        let info = git_info(&root).expect("repo");
        assert_eq!(info.branch.as_deref(), Some("detached at 0123456"));
    }

    #[test]
    fn a_linked_worktree_reads_its_own_head() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let gitdir = root.join("main/.git/worktrees/wt");
        std::fs::create_dir_all(&gitdir).expect("mkdir");
        std::fs::write(gitdir.join("HEAD"), "ref: refs/heads/wt\n").expect("HEAD");
        std::fs::create_dir_all(root.join("wt")).expect("mkdir");
        std::fs::write(
            root.join("wt/.git"),
            format!("gitdir: {}\n", gitdir.display()),
        )
        .expect(".git file");
        let info = git_info(&root.join("wt")).expect("repo");
        assert_eq!(info.root, root.join("wt"));
        assert_eq!(info.branch.as_deref(), Some("wt"));
    }
}
