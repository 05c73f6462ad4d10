//! One background job: its shell's process group, the task that copies its output to the
//! output file, and what the model has already been told about it.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::Child;
use tokio::sync::watch;
use tokio::time::{Instant, sleep_until};

use super::Shared;
use super::output::{OutputFile, Read};
use super::reaper;
use super::types::{Change, JobInfo, JobState, KilledBy};
use crate::process::{TERM_GRACE, stop_group};
use crate::sandbox::Prepared;

/// After the shell exits, how long output still written by what it left behind is read.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);
/// Output events to front ends: at most one per job in this interval (frames coalesce).
const OUTPUT_EVENT_EVERY: Duration = Duration::from_millis(500);
/// How much of the latest output is kept in memory for the last lines.
const RECENT_BYTES: usize = 4096;

pub struct Job {
    pub id: String,
    pub command: String,
    pub pid: u32,
    pgid: i32,
    inner: Mutex<Inner>,
    done: watch::Sender<bool>,
}

struct Inner {
    state: JobState,
    exit_code: Option<i32>,
    signal: Option<i32>,
    killed_by: Option<KilledBy>,
    /// None when the output file could not be written (the job still runs; reads say so).
    out: Option<OutputFile>,
    out_error: Option<String>,
    bytes: u64,
    /// Absolute offset up to which the model has read.
    cursor: u64,
    recent: Vec<u8>,
    /// The model knows how it ended (bash_output said so, or a notice was sent).
    told_end: bool,
}

impl Job {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn info(&self) -> JobInfo {
        let i = self.lock();
        JobInfo {
            shell_id: self.id.clone(),
            command: self.command.clone(),
            state: i.state,
            exit_code: i.exit_code,
            pid: Some(self.pid),
            signal: i.signal,
            killed_by: i.killed_by,
            bytes: i.bytes,
            last_line: last_lines(&i.recent, 1).pop().unwrap_or_default(),
            output: i.out.as_ref().map(|o| o.path().to_path_buf()),
        }
    }

    pub fn state(&self) -> JobState {
        self.lock().state
    }

    /// Output since the model's last read (the cursor moves to the end of what is
    /// returned). While the job runs, an unfinished last line waits for its end (unless it
    /// is long), so a line is never handed out in two pieces.
    pub fn read_new(&self) -> Result<(Read, JobInfo), super::JobError> {
        let mut i = self.lock();
        let Some(out) = &i.out else {
            return Err(super::JobError::NotSaved {
                id: self.id.clone(),
                reason: i
                    .out_error
                    .clone()
                    .unwrap_or_else(|| "unknown error".into()),
            });
        };
        let mut read = out
            .read_from(i.cursor)
            .map_err(|source| super::JobError::Read {
                id: self.id.clone(),
                source,
            })?;
        if i.state.is_running() {
            let complete = read.bytes.iter().rposition(|&b| b == b'\n').map(|p| p + 1);
            let keep = match complete {
                Some(end) => end,
                None if read.bytes.len() > RECENT_BYTES => read.bytes.len(),
                None => 0,
            };
            read.bytes.truncate(keep);
        } else {
            i.told_end = true;
        }
        i.cursor += read.skipped + read.bytes.len() as u64;
        drop(i);
        Ok((read, self.info()))
    }

    /// The notice for the next request if the job ended and the model was not told.
    pub fn take_notice(&self) -> Option<String> {
        let mut i = self.lock();
        if i.state.is_running() || i.told_end || i.killed_by == Some(KilledBy::Model) {
            return None;
        }
        i.told_end = true;
        let lines = last_lines(&i.recent, 5);
        drop(i);
        Some(crate::message::markers::job::notice(
            &self.id,
            &self.command,
            &self.info().describe_state(),
            &lines,
        ))
    }

    /// Ends the job's whole process group (SIGTERM, SIGKILL after `grace`) and waits until
    /// its task has seen it end. False if it had already ended.
    pub async fn kill(&self, by: KilledBy, grace: Duration) -> bool {
        {
            let mut i = self.lock();
            if !i.state.is_running() {
                return false;
            }
            i.killed_by.get_or_insert(by);
        }
        // Its own task: the SIGKILL still comes if the caller stops waiting (an abort).
        let pgid = self.pgid;
        tokio::spawn(async move { stop_group(pgid, grace).await });
        self.ended().await;
        true
    }

    /// Waits until the job's task is done (state final, group gone).
    pub async fn ended(&self) {
        let mut rx = self.done.subscribe();
        let _ = rx.wait_for(|done| *done).await;
    }

    /// SIGKILL now, without waiting (a drop path).
    pub fn kill_now(&self) {
        if self.state().is_running() {
            crate::process::kill_group_now(self.pgid);
        }
    }
}

/// Starts `command` in the background; its output goes to `out`. The sandbox (its temp
/// dir) lives as long as the job.
pub fn spawn(
    id: String,
    command: &str,
    dir: &std::path::Path,
    sandbox: Option<Prepared>,
    out: std::io::Result<OutputFile>,
    shared: Arc<Shared>,
) -> std::io::Result<Arc<Job>> {
    let (mut cmd, pipe) = crate::process::shell_command(command, dir, sandbox.as_ref())?;
    let child = cmd.spawn()?;
    drop(cmd);
    let pid = child
        .id()
        .ok_or_else(|| std::io::Error::other("bash exited before its pid was known"))?;
    let pgid = pid as i32;
    reaper::register(pgid);
    let (out, out_error) = match out {
        Ok(o) => (Some(o), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let job = Arc::new(Job {
        id,
        command: command.to_string(),
        pid,
        pgid,
        inner: Mutex::new(Inner {
            state: JobState::Running,
            exit_code: None,
            signal: None,
            killed_by: None,
            out,
            out_error,
            bytes: 0,
            cursor: 0,
            recent: Vec::new(),
            told_end: false,
        }),
        done: watch::channel(false).0,
    });
    shared.changed(Change::Started, job.info());
    tokio::spawn(watch(job.clone(), child, pipe, sandbox, shared));
    Ok(job)
}

/// Copies the output until the shell exits, stops what it left behind, records the end.
async fn watch(
    job: Arc<Job>,
    mut child: Child,
    mut pipe: pipe::Receiver,
    sandbox: Option<Prepared>,
    shared: Arc<Shared>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut eof = false;
    let mut status: Option<std::io::Result<ExitStatus>> = None;
    let mut drain_until: Option<Instant> = None;
    let mut dirty = false;
    let mut next_event = Instant::now();
    loop {
        if eof && status.is_some() {
            break;
        }
        tokio::select! {
            n = pipe.read(&mut buf), if !eof => match n {
                Ok(0) | Err(_) => eof = true,
                Ok(n) => {
                    append(&job, &buf[..n]);
                    dirty = true;
                }
            },
            st = child.wait(), if status.is_none() => {
                status = Some(st);
                drain_until = Some(Instant::now() + DRAIN_AFTER_EXIT);
            }
            // The shell is done but something it started still holds the pipe open.
            _ = sleep_until(drain_until.unwrap_or(next_event)), if drain_until.is_some() => break,
            _ = sleep_until(next_event), if dirty => {
                dirty = false;
                next_event = Instant::now() + OUTPUT_EVENT_EVERY;
                shared.changed(Change::Output, job.info());
            }
        }
    }
    // Nothing of the group outlives its shell (as for a foreground bash call).
    let stopped = stop_group(job.pgid, TERM_GRACE).await;
    while let Ok(Ok(n)) = tokio::time::timeout(DRAIN_AFTER_EXIT, pipe.read(&mut buf)).await {
        if n == 0 {
            break;
        }
        append(&job, &buf[..n]);
    }
    if status.is_none() {
        status = tokio::time::timeout(Duration::from_secs(1), child.wait())
            .await
            .ok();
    }
    {
        let mut i = job.lock();
        match (i.killed_by, status.and_then(Result::ok)) {
            (Some(_), st) => {
                i.state = JobState::Killed;
                i.signal = st.and_then(|s| s.signal());
            }
            (None, Some(st)) if st.code().is_some() => {
                i.state = JobState::Exited;
                i.exit_code = st.code();
            }
            (None, st) => {
                i.state = JobState::Killed;
                i.signal = st.and_then(|s| s.signal());
            }
        }
    }
    if stopped != crate::process::Stopped::Lingering {
        reaper::unregister(job.pgid);
    }
    drop(sandbox);
    shared.changed(Change::Ended, job.info());
    job.done.send_replace(true);
}

fn append(job: &Job, bytes: &[u8]) {
    let mut i = job.lock();
    i.bytes += bytes.len() as u64;
    i.recent.extend_from_slice(bytes);
    if i.recent.len() > RECENT_BYTES * 2 {
        let cut = i.recent.len() - RECENT_BYTES;
        i.recent.drain(..cut);
    }
    let failed = match &mut i.out {
        Some(out) => out.append(bytes).err(),
        None => None,
    };
    if let Some(e) = failed {
        // Keep the job; the model is told when it reads.
        tracing::warn!(job = %job.id, "cannot write background output: {e}");
        i.out = None;
        i.out_error = Some(e.to_string());
    }
}

/// The last `n` non-empty lines of `recent`, oldest first, each cut to 200 characters.
fn last_lines(recent: &[u8], n: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(recent);
    let mut lines: Vec<String> = text
        .split(['\n', '\r'])
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .rev()
        .take(n)
        .map(|l| match l.char_indices().nth(200) {
            Some((end, _)) => format!("{}…", &l[..end]),
            None => l.to_string(),
        })
        .collect();
    lines.reverse();
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_lines_skip_blank_ones_and_keep_order() {
        assert_eq!(last_lines(b"a\n\nb\r\nc\n\n", 2), vec!["b", "c"]);
        assert!(last_lines(b"\n\n", 3).is_empty());
        assert_eq!(last_lines(b"partial", 1), vec!["partial"]);
    }
}
