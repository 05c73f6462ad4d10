//! `isolation: worktree`: a child that works in its own git worktree, branched from its
//! parent's HEAD with the parent's uncommitted changes carried over (so it sees what the
//! parent sees). Its workspace, file tools, shell sandbox and environment block are rooted
//! there; at its end its changes are committed on its branch, or the worktree and branch go.

use std::path::Path;
use std::sync::Arc;

use crate::agent::exec_env::ExecEnv;
use crate::provider::{SystemPart, SystemPrompt};
use crate::tools::{ToolContext, Workspace};
use crate::worktree::{Create, Outcome, Worktree, WorktreeError};

/// A worktree of the repository the calling agent works in (git runs off the async
/// threads).
pub(super) async fn create(
    hub: &super::Subagents,
    ctx: &ToolContext,
    agent_id: &str,
) -> Result<Worktree, WorktreeError> {
    let from = ctx.workspace.root().to_path_buf();
    let how = Create {
        name: Some(format!("{agent_id}-{}", crate::worktree::short_id())),
        carry: true,
        session: hub.session(),
        agent: Some(agent_id.to_string()),
    };
    match tokio::task::spawn_blocking(move || Worktree::create(&from, &how)).await {
        Ok(result) => result,
        Err(e) => Err(WorktreeError::Io {
            what: "creating the worktree".into(),
            source: std::io::Error::other(e.to_string()),
        }),
    }
}

/// Commits or removes it (None when there was none).
pub(super) async fn finish(worktree: Option<Worktree>, message: String) -> Option<Outcome> {
    let wt = worktree?;
    let branch = wt.branch.clone();
    Some(
        tokio::task::spawn_blocking(move || wt.finish(&message))
            .await
            .unwrap_or_else(|e| Outcome::Failed {
                branch,
                error: e.to_string(),
            }),
    )
}

/// The child's workspace, sandbox and environment block at `root` instead of the
/// top-level agent's.
pub(super) fn reroot(
    exec: &mut ExecEnv,
    system: &mut SystemPrompt,
    root: &Path,
    ctx: &ToolContext,
    worktree: Option<&Worktree>,
) -> std::io::Result<()> {
    let workspace = Workspace::new(root, ctx.workspace.allows_outside())?;
    exec.sandbox = exec.sandbox.as_ref().map(|p| {
        Arc::new(crate::sandbox::SandboxPolicy {
            workspace: workspace.root().to_path_buf(),
            ..(**p).clone()
        })
    });
    let environment = crate::prompt::Environment::detect(workspace.root()).render();
    let mut parts: Vec<SystemPart> = system
        .parts()
        .iter()
        .map(|p| match p.name {
            "environment" => SystemPart {
                name: "environment",
                text: environment.clone(),
            },
            _ => p.clone(),
        })
        .collect();
    if let Some(wt) = worktree {
        parts.push(SystemPart {
            name: "worktree",
            text: format!(
                "You work in your own git worktree (branch {}), not in the main agent's \
                 checkout: other agents may change the same files in theirs. When you finish, \
                 everything you changed is committed on your branch for the main agent to \
                 review and merge; do not commit or switch branches yourself.",
                wt.branch
            ),
        });
    }
    *system = SystemPrompt::new(parts);
    exec.workspace = Arc::new(workspace);
    Ok(())
}
