//! bash with real processes: process-group kill on cancel and timeout, output order, exit
//! codes, the output cut, live progress.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::mpsc;
use tooloop::tools::bash::Bash;
use tooloop::tools::{Tool, ToolContext, ToolOutput, Workspace};

fn ctx() -> (
    tempfile::TempDir,
    ToolContext,
    mpsc::UnboundedReceiver<String>,
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = Workspace::new(dir.path(), false).expect("workspace");
    let mut ctx = ToolContext::for_workspace(Arc::new(ws));
    let (tx, rx) = mpsc::unbounded_channel();
    ctx.progress = Arc::new(move |chunk| {
        let _ = tx.send(chunk);
    });
    (dir, ctx, rx)
}

async fn bash(command: &str, ctx: &ToolContext) -> ToolOutput {
    Bash.run(json!({ "command": command }), ctx.clone()).await
}

/// Live (non-zombie) processes whose process group is `pgid`, read straight from /proc.
/// Zombies are ignored: this container's init does not reap orphans, so they linger dead.
fn live_in_group(pgid: i32) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let after = &stat[stat.rfind(')').expect("comm") + 2..];
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields[2].parse::<i32>() == Ok(pgid) && fields[0] != "Z" && fields[0] != "X" {
            pids.push(pid);
        }
    }
    pids
}

fn is_live(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat[stat.rfind(')').expect("comm") + 2..].chars().next();
            !matches!(state, Some('Z') | Some('X'))
        }
        Err(_) => false,
    }
}

/// Reads progress until `KEY=number` lines for every key have been seen.
async fn wait_for_keys(rx: &mut mpsc::UnboundedReceiver<String>, keys: &[&str]) -> Vec<i32> {
    let mut seen = String::new();
    loop {
        let values: Vec<Option<i32>> = keys
            .iter()
            .map(|k| {
                seen.lines()
                    .find_map(|l| l.strip_prefix(&format!("{k}=")))
                    .and_then(|v| v.trim().parse().ok())
            })
            .collect();
        if values.iter().all(Option::is_some) {
            return values.into_iter().flatten().collect();
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("progress within 10 s")
            .expect("progress channel open");
        seen.push_str(&chunk);
    }
}

#[tokio::test]
async fn cancel_kills_the_whole_process_group() {
    let (_d, ctx, mut rx) = ctx();
    let cancel = ctx.cancel.clone();
    let task = tokio::spawn({
        let ctx = ctx.clone();
        async move { bash("echo PGID=$$; sleep 300 & echo BG=$!; sleep 300", &ctx).await }
    });
    let ids = wait_for_keys(&mut rx, &["PGID", "BG"]).await;
    let (pgid, grandchild) = (ids[0], ids[1]);
    // bash may exec the last command in place, so the leader pid can become `sleep`.
    let before = live_in_group(pgid);
    assert!(
        before.contains(&pgid),
        "bash leads its own group: {before:?}"
    );
    assert!(
        before.contains(&grandchild),
        "the & job is in the group: {before:?}"
    );

    cancel.cancel();
    let out = tokio::time::timeout(Duration::from_secs(8), task)
        .await
        .expect("bash returns after cancel")
        .expect("join");
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("PGID="),
        "output so far is kept: {}",
        out.content
    );
    assert!(out.content.contains("[stopped:"), "{}", out.content);
    assert_eq!(
        live_in_group(pgid),
        Vec::<i32>::new(),
        "nothing of the group survives"
    );
    assert!(!is_live(grandchild));
}

#[tokio::test]
async fn timeout_names_itself_and_kills_the_group() {
    let (_d, ctx, _rx) = ctx();
    let out = Bash
        .run(
            json!({"command": "echo PGID=$$; sleep 300 & sleep 300", "timeout_ms": 500}),
            ctx.clone(),
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("timed out after 500 ms"),
        "{}",
        out.content
    );
    let pgid: i32 = out
        .content
        .lines()
        .find_map(|l| l.strip_prefix("PGID="))
        .and_then(|v| v.parse().ok())
        .expect("pgid in output");
    assert_eq!(live_in_group(pgid), Vec::<i32>::new());
}

#[tokio::test]
async fn a_group_that_ignores_sigterm_gets_sigkill() {
    let (_d, ctx, _rx) = ctx();
    let started = std::time::Instant::now();
    let out = Bash
        .run(
            json!({"command": "trap '' TERM; echo PGID=$$; sleep 300 & sleep 300", "timeout_ms": 300}),
            ctx.clone(),
        )
        .await;
    assert!(
        out.content.contains("timed out after 300 ms"),
        "{}",
        out.content
    );
    // SIGTERM was ignored, so only the SIGKILL after the grace period could end it.
    assert!(started.elapsed() >= tooloop::process::TERM_GRACE);
    let pgid: i32 = out
        .content
        .lines()
        .find_map(|l| l.strip_prefix("PGID="))
        .and_then(|v| v.parse().ok())
        .expect("pgid in output");
    assert_eq!(live_in_group(pgid), Vec::<i32>::new());
}

#[tokio::test]
async fn stdout_and_stderr_interleave_in_order() {
    let (_d, ctx, _rx) = ctx();
    let out = bash(
        "echo out1; echo err1 >&2; echo out2; echo err2 >&2; printf 'no newline'",
        &ctx,
    )
    .await;
    assert_eq!(
        out,
        ToolOutput::ok("out1\nerr1\nout2\nerr2\nno newline\nexit code 0")
    );
}

#[tokio::test]
async fn exit_codes_and_signals_are_reported() {
    let (_d, ctx, _rx) = ctx();
    assert_eq!(
        bash("true", &ctx).await,
        ToolOutput::ok("(no output)\nexit code 0")
    );
    assert_eq!(
        bash("echo failing >&2; exit 3", &ctx).await,
        ToolOutput::error("failing\nexit code 3")
    );
    let out = bash("kill -9 $$", &ctx).await;
    assert_eq!(
        out,
        ToolOutput::error("(no output)\nkilled by signal SIGKILL (9)")
    );
    let out = bash("no_such_command_xyz", &ctx).await;
    assert!(
        out.is_error && out.content.contains("command not found"),
        "{}",
        out.content
    );
    assert!(out.content.ends_with("exit code 127"), "{}", out.content);
}

#[tokio::test]
async fn runs_in_the_workspace_with_stdin_closed() {
    let (d, ctx, _rx) = ctx();
    let root = d.path().canonicalize().expect("canonical");
    let out = bash("pwd; cat; echo after-cat", &ctx).await;
    assert_eq!(
        out,
        ToolOutput::ok(format!("{}\nafter-cat\nexit code 0", root.display()))
    );
}

#[tokio::test]
async fn long_output_keeps_head_and_tail_and_says_how_much_was_cut() {
    let (_d, mut ctx, _rx) = ctx();
    ctx.max_output_bytes = 2000;
    let out = bash("seq 1 100000", &ctx).await;
    assert!(!out.is_error);
    assert!(out.content.len() <= 2000, "{}", out.content.len());
    assert!(
        out.content.starts_with("1\n2\n3\n"),
        "{}",
        &out.content[..20]
    );
    assert!(
        out.content.ends_with("99999\n100000\nexit code 0"),
        "{}",
        out.content
    );
    // seq 1 100000 prints 588895 bytes.
    let note =
        regex::Regex::new(r"\[… output cut: (\d+) of 588895 bytes not shown …\]").expect("regex");
    let cut: usize = note
        .captures(&out.content)
        .and_then(|c| c[1].parse().ok())
        .unwrap_or_else(|| panic!("no cut note in {}", out.content));
    assert!(cut > 580_000, "{cut}");
}

#[tokio::test]
async fn output_streams_live_as_progress() {
    let (_d, ctx, mut rx) = ctx();
    let task = tokio::spawn({
        let ctx = ctx.clone();
        async move { bash("echo first; sleep 1; echo second", &ctx).await }
    });
    let first = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("first chunk")
        .expect("open");
    assert_eq!(first, "first\n");
    assert!(
        !task.is_finished(),
        "the first line arrived while the command still ran"
    );
    let out = task.await.expect("join");
    assert_eq!(out, ToolOutput::ok("first\nsecond\nexit code 0"));
    let mut rest = String::new();
    while let Ok(chunk) = rx.try_recv() {
        rest.push_str(&chunk);
    }
    assert_eq!(rest, "second\n");
}

#[tokio::test]
async fn background_jobs_do_not_outlive_the_command() {
    let (_d, ctx, _rx) = ctx();
    // The job does not hold the pipe: bash exits, the job is found and stopped.
    let out = bash("sleep 300 >/dev/null 2>&1 & echo BG=$!", &ctx).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.contains("background processes"),
        "{}",
        out.content
    );
    let bg: i32 = out
        .content
        .lines()
        .find_map(|l| l.strip_prefix("BG="))
        .and_then(|v| v.parse().ok())
        .expect("bg pid");
    assert!(!is_live(bg));
    // The job holds the pipe open: we stop reading shortly after bash exits.
    let started = std::time::Instant::now();
    let out = bash("sleep 300 & echo BG=$!", &ctx).await;
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(out.content.contains("exit code 0"), "{}", out.content);
    let bg: i32 = out
        .content
        .lines()
        .find_map(|l| l.strip_prefix("BG="))
        .and_then(|v| v.parse().ok())
        .expect("bg pid");
    assert!(!is_live(bg));
}

#[test]
fn timeout_is_clamped_and_the_executor_limit_has_a_margin() {
    let t = |ms: u64| Bash.timeout(&json!({"command": "x", "timeout_ms": ms}));
    assert_eq!(t(500), Some(Duration::from_millis(10_500)));
    assert_eq!(t(10_000_000), Some(Duration::from_secs(610)));
    assert_eq!(
        Bash.timeout(&json!({"command": "x"})),
        Some(Duration::from_secs(130))
    );
    assert!(!Bash.is_concurrency_safe(&json!({"command": "ls"})));
    assert_eq!(
        Bash.summary(&json!({"command": "cargo test\n--lib"})),
        "cargo test…"
    );
}
