//! Runs one hook command: `bash -c COMMAND` in the workspace, as the leader of its own
//! process group, with the event's JSON on stdin. A hook that outlives its timeout (or the
//! user's Ctrl+C) is stopped with its whole group, like the bash tool.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::process::{group_alive, stop_group};

/// Most bytes kept of a hook's stdout or stderr; the rest is read and dropped.
const MAX_CAPTURE: usize = 64 * 1024;
/// How long a hook that exited may keep its pipes open (a background job) before its group
/// is stopped.
const AFTER_EXIT: Duration = Duration::from_millis(200);
/// A stopped hook gets this long between SIGTERM and SIGKILL.
const STOP_GRACE: Duration = Duration::from_millis(500);

/// How one hook process ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookProcess {
    /// The exit code; None when it was killed (timeout, abort) or never started.
    pub exit: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
    pub timed_out: bool,
    pub cancelled: bool,
    /// Why it could not be started at all.
    pub spawn_error: Option<String>,
}

pub async fn run_hook(
    command: &str,
    cwd: &Path,
    stdin: Vec<u8>,
    timeout: Duration,
    cancel: &CancellationToken,
) -> HookProcess {
    let started = Instant::now();
    let mut cmd = tokio::process::Command::new("bash");
    // Under tooloop's span when telemetry is on (its own TRACEPARENT passes through else).
    crate::child_trace_context::apply(&mut cmd);
    let spawned = cmd
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Hooks written for Claude Code find the project by it; the same for tooloop's.
        .env("CLAUDE_PROJECT_DIR", cwd)
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        .env("GIT_TERMINAL_PROMPT", "0")
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return HookProcess {
                spawn_error: Some(format!("cannot run bash: {e}")),
                duration: started.elapsed(),
                ..HookProcess::default()
            };
        }
    };
    let pgid = child.id().map(|p| p as i32);
    // Writing stdin may fail (the hook never reads it): that is the hook's business.
    let input = child.stdin.take().map(|mut pipe| {
        tokio::spawn(async move {
            let _ = pipe.write_all(&stdin).await;
            let _ = pipe.shutdown().await;
        })
    });
    let out = child.stdout.take().map(|p| tokio::spawn(read_capped(p)));
    let err = child.stderr.take().map(|p| tokio::spawn(read_capped(p)));

    let mut result = HookProcess::default();
    tokio::select! {
        biased;
        _ = cancel.cancelled() => result.cancelled = true,
        status = child.wait() => result.exit = status.ok().and_then(|s| s.code()),
        _ = tokio::time::sleep(timeout) => result.timed_out = true,
    }
    if let Some(pgid) = pgid {
        if result.exit.is_some() {
            // Exited: give readers a moment, then stop anything it left running.
            tokio::time::sleep(AFTER_EXIT.min(timeout)).await;
        }
        if group_alive(pgid) {
            stop_group(pgid, STOP_GRACE).await;
        }
    }
    let _ = child.wait().await;
    if let Some(task) = input {
        task.abort();
    }
    result.stdout = join(out).await;
    result.stderr = join(err).await;
    result.duration = started.elapsed();
    result
}

async fn join(task: Option<tokio::task::JoinHandle<String>>) -> String {
    match task {
        Some(t) => t.await.unwrap_or_default(),
        None => String::new(),
    }
}

async fn read_capped(mut pipe: impl AsyncRead + Unpin) -> String {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = MAX_CAPTURE.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(command: &str, timeout_ms: u64) -> HookProcess {
        let dir = std::env::temp_dir();
        run_hook(
            command,
            &dir,
            br#"{"event":"stop"}"#.to_vec(),
            Duration::from_millis(timeout_ms),
            &CancellationToken::new(),
        )
        .await
    }

    #[tokio::test]
    async fn exit_code_stdout_stderr_and_stdin() {
        let p = run("cat; echo oops >&2; exit 2", 5_000).await;
        assert_eq!(p.exit, Some(2));
        assert_eq!(p.stdout, r#"{"event":"stop"}"#);
        assert_eq!(p.stderr.trim(), "oops");
        assert!(!p.timed_out);
    }

    #[tokio::test]
    async fn a_hanging_hook_is_killed_with_its_group_at_the_timeout() {
        let marker = format!("tooloop-hook-{}", std::process::id());
        let p = run(
            &format!("sleep 300 & echo $$; exec -a {marker} sleep 300"),
            300,
        )
        .await;
        assert!(p.timed_out);
        assert_eq!(p.exit, None);
        let pgid: i32 = p.stdout.trim().parse().expect("the hook printed its pid");
        assert!(!group_alive(pgid), "the whole group is gone");
        assert!(p.duration < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn cancel_stops_the_hook() {
        let cancel = CancellationToken::new();
        let c = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            c.cancel();
        });
        let p = run_hook(
            "sleep 300",
            &std::env::temp_dir(),
            Vec::new(),
            Duration::from_secs(60),
            &cancel,
        )
        .await;
        assert!(p.cancelled);
        assert!(p.duration < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn output_is_capped() {
        let p = run("head -c 200000 /dev/zero | tr '\\0' x", 5_000).await;
        assert_eq!(p.exit, Some(0));
        assert_eq!(p.stdout.len(), MAX_CAPTURE);
    }
}
