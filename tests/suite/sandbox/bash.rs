//! The bash tool under the Landlock sandbox, run directly (no model): what a sandboxed
//! command may and may not write, the network rule, and the denial note the model gets.
//! Every test needs Landlock: `env_support` skips it visibly where the kernel has none, and
//! fails it under CI.

use crate::support;

use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use support::env::{landlock, landlock_abi};
use tooloop::sandbox::{CallSandbox, SandboxMode, resolve};
use tooloop::tools::bash::Bash;
use tooloop::tools::{Tool, ToolContext, ToolOutput, Workspace};

async fn run(workspace: &Path, mode: SandboxMode, network: bool, command: &str) -> ToolOutput {
    let resolved = resolve(Some(mode), network, workspace);
    let policy = resolved
        .policy
        .expect("a sandbox where Landlock is available");
    let mut ctx = ToolContext::for_workspace(Arc::new(Workspace::new(workspace, false).unwrap()));
    ctx.sandbox = Some(CallSandbox {
        policy,
        ask_outside: None,
    });
    Bash.run(json!({ "command": command }), ctx).await
}

fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("ws");
    std::fs::create_dir(&w).unwrap();
    let w = w.canonicalize().unwrap();
    (dir, w)
}

#[tokio::test]
async fn workspace_write_allows_the_workspace_and_tmpdir_only() {
    if landlock().is_none() {
        return;
    }
    let (dir, w) = workspace();
    let out = run(
        &w,
        SandboxMode::WorkspaceWrite,
        false,
        "echo a > inside.txt && mkdir -p sub/deeper && echo b > sub/deeper/f && \
         echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo \"tmp=$TMPDIR\" && \
         git init -q . && git -c user.email=a@b -c user.name=n commit -q --allow-empty -m x && \
         echo committed",
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("committed"), "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(w.join("inside.txt")).unwrap(),
        "a\n"
    );
    assert!(w.join("sub/deeper/f").exists());
    // The per-call temp dir is gone after the call.
    let tmp = out
        .content
        .lines()
        .find_map(|l| l.strip_prefix("tmp="))
        .expect("TMPDIR printed")
        .to_string();
    assert!(!Path::new(&tmp).exists(), "{tmp} was not removed");

    let out = run(&w, SandboxMode::WorkspaceWrite, false, "touch ../outside").await;
    assert!(out.is_error, "{}", out.content);
    assert!(!dir.path().join("outside").exists());
    assert!(
        out.content.contains(&format!(
            "blocked by the sandbox: write to {}",
            dir.path().canonicalize().unwrap().join("outside").display()
        )),
        "{}",
        out.content
    );

    let out = run(&w, SandboxMode::WorkspaceWrite, false, "echo x > /etc/x").await;
    assert!(out.is_error, "{}", out.content);
    assert!(!Path::new("/etc/x").exists());
    assert!(
        out.content
            .contains("blocked by the sandbox: write to /etc/x"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn read_only_refuses_even_the_workspace_but_not_dev_null() {
    if landlock().is_none() {
        return;
    }
    let (_dir, w) = workspace();
    std::fs::write(w.join("existing.txt"), "keep\n").unwrap();
    let out = run(
        &w,
        SandboxMode::ReadOnly,
        false,
        "cat existing.txt && echo quiet > /dev/null && echo err > /dev/stderr && echo ok",
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("keep") && out.content.contains("ok"));

    let out = run(&w, SandboxMode::ReadOnly, false, "echo x > new.txt").await;
    assert!(out.is_error, "{}", out.content);
    assert!(!w.join("new.txt").exists());
    assert!(
        out.content.contains(&format!(
            "blocked by the sandbox: write to {}",
            w.join("new.txt").display()
        )),
        "{}",
        out.content
    );
    let out = run(&w, SandboxMode::ReadOnly, false, "echo x >> existing.txt").await;
    assert!(out.is_error, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(w.join("existing.txt")).unwrap(),
        "keep\n"
    );
}

#[tokio::test]
async fn tcp_connect_needs_sandbox_network() {
    if landlock_abi(4, "TCP rules").is_none() {
        return;
    }
    let (_dir, w) = workspace();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");

    let out = run(&w, SandboxMode::WorkspaceWrite, false, &connect).await;
    assert!(out.is_error, "{}", out.content);
    assert!(!out.content.contains("connected\n"), "{}", out.content);
    assert!(
        out.content.contains("blocked by the sandbox: network"),
        "{}",
        out.content
    );

    let out = run(&w, SandboxMode::WorkspaceWrite, true, &connect).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("connected"), "{}", out.content);
}

#[tokio::test]
async fn a_command_cannot_signal_tooloop() {
    if landlock_abi(6, "signal scoping").is_none() {
        return;
    }
    let (_dir, w) = workspace();
    // SIGCONT is harmless if the sandbox failed to stop it.
    let cmd = format!("kill -CONT {}", std::process::id());
    let out = run(&w, SandboxMode::WorkspaceWrite, false, &cmd).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("Operation not permitted"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn the_sandbox_does_not_leak_into_tooloop() {
    if landlock().is_none() {
        return;
    }
    let (dir, w) = workspace();
    let out = run(&w, SandboxMode::ReadOnly, false, "true").await;
    assert!(!out.is_error, "{}", out.content);
    // This test process spawned the sandboxed child; it may still write anywhere.
    let outside = dir.path().join("after.txt");
    std::fs::write(&outside, "still free").unwrap();
    assert_eq!(std::fs::read_to_string(outside).unwrap(), "still free");
}
