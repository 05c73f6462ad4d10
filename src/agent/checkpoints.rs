//! The executor's side of checkpoints: save the files an editing tool is about to change,
//! and note how it left them. Off the async threads (it reads and hashes whole files).

use std::path::PathBuf;

use super::exec_env::ExecEnv;
use crate::protocol::AgentEvent;

pub(super) async fn before(env: &ExecEnv, paths: &[PathBuf]) {
    each(env, paths, true).await
}

pub(super) async fn after(env: &ExecEnv, paths: &[PathBuf]) {
    each(env, paths, false).await
}

async fn each(env: &ExecEnv, paths: &[PathBuf], before: bool) {
    let Some(cp) = env.checkpoints.clone() else {
        return;
    };
    if paths.is_empty() {
        return;
    }
    let paths = paths.to_vec();
    let errors = tokio::task::spawn_blocking(move || {
        paths
            .iter()
            .filter_map(|p| if before { cp.before(p) } else { cp.after(p) }.err())
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_else(|e| vec![format!("checkpoint task failed: {e}")]);
    for e in errors {
        tracing::warn!("checkpoint: {e}");
        // The edit goes ahead; the user learns it cannot be rewound.
        env.events.send(AgentEvent::Error {
            message: format!("checkpoint: {e}; a rewind cannot undo this change"),
        });
    }
}
