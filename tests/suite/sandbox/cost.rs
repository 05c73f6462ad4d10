//! The shell sandbox's cost per call (BENCHMARKS.md, "Shell sandbox cost"): `bash -c true`
//! through the bash tool, unsandboxed and under the workspace-write Landlock sandbox, in
//! alternating rounds. A measurement, not a check of speed, so it is ignored in the suite:
//! `cargo test --release --test all suite::sandbox::cost -- --ignored --nocapture`
//! (`SANDBOX_COST_CALLS=N` calls per round, default 30).

use crate::support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tooloop::sandbox::{CallSandbox, SandboxMode, resolve};
use tooloop::tools::bash::Bash;
use tooloop::tools::{Tool, ToolContext, Workspace};

/// Mean wall time of `calls` calls of `true`, sandboxed or not; every call must succeed.
async fn per_call(ws: &std::path::Path, sandboxed: bool, calls: u32) -> Duration {
    let start = Instant::now();
    for _ in 0..calls {
        let mut ctx = ToolContext::for_workspace(Arc::new(Workspace::new(ws, false).unwrap()));
        if sandboxed {
            let policy = resolve(Some(SandboxMode::WorkspaceWrite), false, ws)
                .policy
                .expect("a sandbox where Landlock is available");
            ctx.sandbox = Some(CallSandbox {
                policy,
                ask_outside: None,
            });
        }
        let out = Bash.run(json!({"command": "true"}), ctx).await;
        assert!(!out.is_error, "{}", out.content);
    }
    start.elapsed() / calls
}

#[tokio::test]
#[ignore = "a measurement: cargo test --release --test all suite::sandbox::cost -- --ignored --nocapture"]
async fn shell_sandbox_cost_per_call() {
    if support::env::landlock().is_none() {
        return;
    }
    let calls = std::env::var("SANDBOX_COST_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for round in 1..=2 {
        let plain = per_call(&ws, false, calls).await;
        let boxed = per_call(&ws, true, calls).await;
        println!(
            "round {round}: {calls} calls of `bash -c true`: unsandboxed {:.1} ms per call, \
             sandboxed {:.1} ms per call",
            ms(plain),
            ms(boxed)
        );
    }
}
