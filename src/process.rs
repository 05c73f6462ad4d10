//! Process groups for bash: every command runs as the leader of its own group, so one
//! signal reaches the command and everything it started (pipelines, `&` jobs, grandchildren).

use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::net::unix::pipe;
use tokio::process::Command;

use crate::sandbox::Prepared;

/// How long a group gets to exit after SIGTERM before SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(2);
const POLL: Duration = Duration::from_millis(10);

/// How a group kill ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Everything exited after SIGTERM.
    Terminated,
    /// SIGKILL was needed.
    Killed,
    /// Something survived even SIGKILL (stuck in the kernel); we stopped waiting.
    Lingering,
}

/// `bash -c COMMAND` in `dir` as the leader of its own process group: stdin closed, stdout
/// and stderr one pipe (so the kernel keeps the writes in the order they happened), pagers
/// off. With `sandbox`, the child enforces its rules between fork and exec. The returned
/// reader is the pipe's read end; the command's copies of the write end close with it.
pub fn shell_command(
    command: &str,
    dir: &Path,
    sandbox: Option<&Prepared>,
) -> std::io::Result<(Command, pipe::Receiver)> {
    let (reader, writer) = std::io::pipe()?;
    let writer_err = writer.try_clone()?;
    let output = pipe::Receiver::from_owned_fd(OwnedFd::from(reader))?;
    let mut cmd = match sandbox {
        Some(prepared) => prepared.command("bash"),
        None => Command::new("bash"),
    };
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::from(writer_err))
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        .env("GIT_TERMINAL_PROMPT", "0")
        .process_group(0);
    Ok((cmd, output))
}

/// SIGTERM to the whole group, SIGKILL after `grace`, and wait until no member is left.
pub async fn stop_group(pgid: i32, grace: Duration) -> Stopped {
    if !group_alive(pgid) {
        return Stopped::Terminated;
    }
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGTERM);
    if wait_gone(pgid, grace).await {
        return Stopped::Terminated;
    }
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    if wait_gone(pgid, Duration::from_secs(2)).await {
        Stopped::Killed
    } else {
        Stopped::Lingering
    }
}

/// SIGKILL without waiting, for a drop path that cannot await.
pub fn kill_group_now(pgid: i32) {
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
}

async fn wait_gone(pgid: i32, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if !group_alive(pgid) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Whether any live process is in the group. Zombies do not count: they are dead, and an
/// init that does not reap (common in containers) would keep them around forever, so
/// `kill(-pgid, 0)` alone would say "alive" long after everything exited.
pub fn group_alive(pgid: i32) -> bool {
    match live_members(pgid) {
        Some(n) => n > 0,
        None => killpg(Pid::from_raw(pgid), None).is_ok(),
    }
}

/// Live members of the group from /proc, or None where /proc is not available.
pub fn live_members(pgid: i32) -> Option<usize> {
    let entries = std::fs::read_dir("/proc").ok()?;
    let mut n = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // A process may exit between read_dir and this read; that is fine.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{name}/stat")) else {
            continue;
        };
        if let Some((state, group)) = parse_stat(&stat)
            && group == pgid
            && state != 'Z'
            && state != 'X'
        {
            n += 1;
        }
    }
    Some(n)
}

/// (state, pgrp) from a /proc/PID/stat line. The command name may contain spaces and
/// parentheses, so fields are counted from the last ')'.
fn parse_stat(stat: &str) -> Option<(char, i32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_lines_with_odd_names() {
        assert_eq!(parse_stat("42 (a) b)) S 1 40 40 0 -1"), Some(('S', 40)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn our_own_group_is_alive() {
        let own = nix::unistd::getpgrp().as_raw();
        assert!(group_alive(own));
    }
}
