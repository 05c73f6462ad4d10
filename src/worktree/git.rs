//! Running git: one function, so every call gets the same isolation. Each git runs in its
//! own process group (a Ctrl+C at the terminal reaches tooloop, which finishes or rolls
//! back, and never kills a `git worktree add` half-way, leaving its lock), with no
//! terminal prompt, no pager, hooks off and messages in English (errors are shown as git
//! says them).

use std::path::Path;
use std::process::{Command, Stdio};

use super::WorktreeError;

/// What one git run printed; `ok` is its exit status.
pub struct Output {
    pub ok: bool,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Output {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).trim_end().to_string()
    }
}

/// `git -C dir ARGS`; an Err only when git could not be started.
pub fn run(dir: &Path, args: &[&str]) -> Result<Output, WorktreeError> {
    use std::os::unix::process::CommandExt;
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        // Hooks are the user's: a post-checkout or pre-commit hook must not run for the
        // bookkeeping tooloop does (nor sign, nor prompt).
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .output()
        .map_err(WorktreeError::NoGit)?;
    Ok(Output {
        ok: out.status.success(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
    })
}

/// [`run`], and a failure becomes [`WorktreeError::Git`] naming the command.
pub fn ok(dir: &Path, args: &[&str]) -> Result<Output, WorktreeError> {
    let out = run(dir, args)?;
    if out.ok {
        Ok(out)
    } else {
        Err(WorktreeError::Git {
            command: format!("git {}", args.join(" ")),
            stderr: out.stderr,
        })
    }
}
