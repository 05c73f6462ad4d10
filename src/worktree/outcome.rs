//! How a worktree ended, in the words of the `task` result, the exit line of `--worktree`
//! and headless `result.worktree`.

/// How a worktree ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing changed: the folder and the branch are gone.
    Removed { branch: String },
    /// Changes were committed on `branch`; the folder stays.
    Kept {
        /// Relative to the checkout it came from (`.tooloop/worktrees/NAME`).
        folder: String,
        branch: String,
        files: usize,
        /// The commit holding the carried-over changes, when there were some.
        carried_base: Option<String>,
    },
    /// Finishing failed; the worktree and its branch are left as they were.
    Failed { branch: String, error: String },
}

impl Outcome {
    /// For the `task` result and the exit line: `worktree … · branch … · N files changed`.
    pub fn summary(&self) -> String {
        match self {
            Outcome::Removed { .. } => "worktree: no changes; removed".into(),
            Outcome::Kept {
                folder,
                branch,
                files,
                ..
            } => format!(
                "worktree {folder} · branch {branch} · {files} file{} changed",
                if *files == 1 { "" } else { "s" }
            ),
            Outcome::Failed { branch, error } => {
                format!("worktree of branch {branch} left as it is: {error}")
            }
        }
    }

    /// What a person should do with it: the line `--worktree` ends with.
    pub fn exit_line(&self) -> String {
        match self {
            Outcome::Kept {
                folder,
                branch,
                carried_base,
                ..
            } => {
                let mut line = format!(
                    "tooloop: {} (committed on the branch); merge it with: git merge {branch}",
                    self.summary()
                );
                if let Some(base) = carried_base {
                    line.push_str(&format!(
                        " (its first commit holds your uncommitted changes from the start; only \
                         the session's own: git cherry-pick {}..{branch})",
                        short(base)
                    ));
                }
                // The session's workspace is the folder: `--continue` finds it there.
                line.push_str(&format!(
                    "; go on with the session: cd {folder} && tooloop --continue"
                ));
                line
            }
            other => format!("tooloop: {}", other.summary()),
        }
    }

    /// The JSON `result.worktree` of a headless run.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Outcome::Removed { branch } => {
                serde_json::json!({ "branch": branch, "kept": false, "files_changed": 0 })
            }
            Outcome::Kept {
                folder,
                branch,
                files,
                carried_base,
            } => serde_json::json!({
                "path": folder,
                "branch": branch,
                "kept": true,
                "files_changed": files,
                "carried_base": carried_base,
            }),
            Outcome::Failed { branch, error } => {
                serde_json::json!({ "branch": branch, "kept": true, "error": error })
            }
        }
    }
}

fn short(sha: &str) -> &str {
    sha.get(..10).unwrap_or(sha)
}
