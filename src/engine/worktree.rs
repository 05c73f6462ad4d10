//! `--worktree [NAME]` and `tooloop worktrees [clean]` as main wires them: the worktree is
//! made before the config is read (so the workspace, project settings, hooks, sandbox and
//! file tools are all rooted in it) and finished by the front end once the agent stopped.

use crate::cli::Cli;
use crate::session::SessionInfo;
use crate::worktree::{Create, Worktree, WorktreeError};

/// `--worktree [NAME]`: a new worktree of the repository around the workspace (or the
/// current directory), which becomes the workspace. Exit 2 when it cannot be made.
pub fn start(cli: &mut Cli) -> Result<Option<Worktree>, i32> {
    let Some(name) = cli.worktree.clone() else {
        return Ok(None);
    };
    let from = match cli.workspace.clone() {
        Some(dir) => dir,
        None => std::env::current_dir().map_err(|e| {
            eprintln!("tooloop: --worktree: current directory: {e}");
            2
        })?,
    };
    let how = Create {
        name: (!name.is_empty()).then_some(name),
        carry: true,
        ..Default::default()
    };
    match Worktree::create(&from, &how) {
        Ok(wt) => {
            tracing::info!(branch = %wt.branch, path = %wt.path.display(), "worktree");
            cli.workspace = Some(wt.workspace.clone());
            Ok(Some(wt))
        }
        Err(e) => {
            eprintln!(
                "tooloop: --worktree: {}",
                crate::sanitize::output::for_stderr(&e.to_string())
            );
            Err(2)
        }
    }
}

/// The worktree with the session that owns it written down (`tooloop worktrees` shows it).
pub fn owned(worktree: Option<Worktree>, session: Option<&SessionInfo>) -> Option<Worktree> {
    let wt = worktree?;
    if let Some(s) = session {
        wt.set_session(&s.id);
    }
    Some(wt)
}

/// `tooloop worktrees [clean]`, in the repository around the workspace.
pub fn command(cli: &Cli, clean: bool) -> i32 {
    let dir = match cli
        .workspace
        .clone()
        .map(Ok)
        .unwrap_or_else(std::env::current_dir)
    {
        Ok(d) => d,
        Err(e) => {
            eprintln!("tooloop: {e}");
            return 1;
        }
    };
    let out = if clean {
        crate::worktree::clean(&dir)
    } else {
        crate::worktree::list(&dir).map(|l| crate::worktree::format_table(&l))
    };
    match out {
        Ok(text) => {
            print!("{}", crate::sanitize::output::for_stderr(&text));
            0
        }
        Err(e) => {
            eprintln!(
                "tooloop: {}",
                crate::sanitize::output::for_stderr(&e.to_string())
            );
            if matches!(e, WorktreeError::NotARepo(_)) {
                2
            } else {
                1
            }
        }
    }
}

/// Commits and keeps, or removes, the worktree of a front end that stopped its agent
/// (None without a worktree).
pub async fn finish(worktree: Option<Worktree>, what: &str) -> Option<crate::worktree::Outcome> {
    let wt = worktree?;
    let message = format!("tooloop: the changes of {what}");
    tokio::task::spawn_blocking(move || wt.finish(&message))
        .await
        .ok()
}
