//! Background jobs (DESIGN.md §12): processes the model starts with `bash`
//! (`run_in_background`), reads with `bash_output` and stops with `kill_shell`. The
//! registry lives for the session, not the turn: aborting a turn leaves jobs running,
//! `/new` and compaction keep them, and ending the session (every exit path) ends every
//! job's process group. The loop only reads the registry, to tell the model once about each
//! job that ended while it was not looking.

mod job;
pub mod output;
pub mod reaper;
pub mod types;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::sandbox::Prepared;
use job::Job;
pub use types::{Change, JobEvent, JobInfo, JobState, KilledBy};

/// `[background] max_jobs`: jobs running at once.
pub const DEFAULT_MAX_JOBS: usize = 8;
/// How long jobs get after SIGTERM when tooloop ends (kill_shell gives 2 s).
pub const EXIT_GRACE: Duration = Duration::from_secs(1);

/// Told about every change (the engine turns it into `AgentEvent::Background`).
pub type OnChange = Arc<dyn Fn(JobEvent) + Send + Sync>;

/// What the jobs' tasks share with the registry: who hears of changes, and the changes the
/// transcript has not recorded yet.
pub struct Shared {
    on_change: OnChange,
    unrecorded: Mutex<Vec<JobInfo>>,
}

impl Shared {
    fn changed(&self, change: Change, job: JobInfo) {
        if change != Change::Output {
            lock(&self.unrecorded).push(job.clone());
        }
        (self.on_change)(JobEvent { change, job });
    }
}

/// Why a job could not be read or killed (the model reads it as an error result).
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("no background job {0}: none was started in this session")]
    NoJobs(String),
    #[error("no background job {id} (this session's jobs: {known})")]
    Unknown { id: String, known: String },
    #[error(
        "{id} ({command}) belonged to an earlier run of this session and {state}; its output \
         is gone"
    )]
    Earlier {
        id: String,
        command: String,
        state: String,
    },
    #[error("the output of {id} could not be saved: {reason}")]
    NotSaved { id: String, reason: String },
    #[error("cannot read the output of {id}: {source}")]
    Read { id: String, source: std::io::Error },
}

/// Why a job could not start (the model reads it as an error result).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "{0} background jobs are running, the most allowed at once ([background] max_jobs); \
         end one with kill_shell first"
    )]
    TooMany(usize),
    #[error("could not start bash: {0}")]
    Spawn(std::io::Error),
}

/// The session's jobs.
pub struct Jobs {
    dir: PathBuf,
    max_jobs: usize,
    shared: Arc<Shared>,
    inner: Mutex<Registry>,
}

#[derive(Default)]
struct Registry {
    jobs: Vec<Arc<Job>>,
    /// Jobs listed by a resumed transcript: ended, their ids taken.
    earlier: Vec<JobInfo>,
    next: u32,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Jobs {
    /// Output files go to `dir` (created with the first job, removed when the registry
    /// is dropped).
    pub fn new(dir: PathBuf, max_jobs: usize, on_change: OnChange) -> Jobs {
        Jobs {
            dir,
            max_jobs: max_jobs.max(1),
            shared: Arc::new(Shared {
                on_change,
                unrecorded: Mutex::new(Vec::new()),
            }),
            inner: Mutex::new(Registry {
                next: 1,
                ..Registry::default()
            }),
        }
    }

    /// A registry under the state directory, in a directory of its own for this process.
    pub fn in_state_dir(max_jobs: usize, on_change: OnChange) -> Jobs {
        let base = crate::paths::log_dir().unwrap_or_else(|_| std::env::temp_dir().join("tooloop"));
        let dir = base.join("background").join(format!(
            "{}-{:08x}",
            std::process::id(),
            fastrand::u32(..)
        ));
        Jobs::new(dir, max_jobs, on_change)
    }

    /// Tests and tools used alone: a registry in a temp directory, events dropped.
    pub fn for_tests() -> Jobs {
        let dir = std::env::temp_dir().join(format!(
            "tooloop-jobs-{}-{:08x}",
            std::process::id(),
            fastrand::u32(..)
        ));
        Jobs::new(dir, DEFAULT_MAX_JOBS, Arc::new(|_| {}))
    }

    /// Starts `command` (bash -c) in `dir`, sandboxed by `sandbox` when given.
    pub fn start(
        &self,
        command: &str,
        dir: &Path,
        sandbox: Option<Prepared>,
    ) -> Result<JobInfo, StartError> {
        let mut reg = lock(&self.inner);
        let running = reg.jobs.iter().filter(|j| j.state().is_running()).count();
        if running >= self.max_jobs {
            return Err(StartError::TooMany(running));
        }
        let id = format!("b{}", reg.next);
        let out = crate::paths::create_private_dir(&self.dir, &self.dir)
            .and_then(|()| output::OutputFile::create(&self.dir.join(format!("{id}.log"))));
        let job = job::spawn(id, command, dir, sandbox, out, self.shared.clone())
            .map_err(StartError::Spawn)?;
        reg.next += 1;
        let info = job.info();
        reg.jobs.push(job);
        Ok(info)
    }

    fn find(&self, id: &str) -> Option<Arc<Job>> {
        lock(&self.inner).jobs.iter().find(|j| j.id == id).cloned()
    }

    /// The error for an id that is not a job of this run.
    fn unknown(&self, id: &str) -> JobError {
        let reg = lock(&self.inner);
        if let Some(e) = reg.earlier.iter().find(|j| j.shell_id == id) {
            return JobError::Earlier {
                id: id.to_string(),
                command: e.command.clone(),
                state: e.describe_state(),
            };
        }
        let ids: Vec<&str> = reg.jobs.iter().map(|j| j.id.as_str()).collect();
        if ids.is_empty() {
            JobError::NoJobs(id.to_string())
        } else {
            JobError::Unknown {
                id: id.to_string(),
                known: ids.join(", "),
            }
        }
    }

    /// New output of job `id` since the last read, and its state.
    pub fn read(&self, id: &str) -> Result<(output::Read, JobInfo), JobError> {
        let job = self.find(id).ok_or_else(|| self.unknown(id))?;
        job.read_new()
    }

    /// Ends job `id`'s process group (SIGTERM, then SIGKILL after 2 s). Ok(false): it had
    /// already ended.
    pub async fn kill(&self, id: &str, by: KilledBy) -> Result<(bool, JobInfo), JobError> {
        let job = self.find(id).ok_or_else(|| self.unknown(id))?;
        let killed = job.kill(by, crate::process::TERM_GRACE).await;
        Ok((killed, job.info()))
    }

    /// Every job of this session, oldest first (earlier runs' first).
    pub fn list(&self) -> Vec<JobInfo> {
        let reg = lock(&self.inner);
        reg.earlier
            .iter()
            .cloned()
            .chain(reg.jobs.iter().map(|j| j.info()))
            .collect()
    }

    /// (id, command, state) of each job this run started that still runs: for the
    /// compaction summary's state block.
    pub fn running(&self) -> Vec<(String, String, JobState)> {
        lock(&self.inner)
            .jobs
            .iter()
            .filter(|j| j.state().is_running())
            .map(|j| (j.id.clone(), j.command.clone(), JobState::Running))
            .collect()
    }

    pub fn running_count(&self) -> usize {
        lock(&self.inner)
            .jobs
            .iter()
            .filter(|j| j.state().is_running())
            .count()
    }

    /// One notice per job that ended since the model last heard of it, for the next
    /// request (each is given once).
    pub fn take_notices(&self) -> Vec<String> {
        let jobs = lock(&self.inner).jobs.clone();
        jobs.iter().filter_map(|j| j.take_notice()).collect()
    }

    /// Starts and ends the transcript has not recorded yet.
    pub fn take_unrecorded(&self) -> Vec<JobInfo> {
        std::mem::take(&mut *lock(&self.shared.unrecorded))
    }

    /// Lists the jobs a resumed transcript recorded: ended whatever they were (their
    /// processes did not outlive that run), their ids not given out again.
    pub fn adopt_earlier(&self, recorded: Vec<JobInfo>) {
        let mut reg = lock(&self.inner);
        for mut job in recorded {
            if reg.jobs.iter().any(|j| j.id == job.shell_id)
                || reg.earlier.iter().any(|j| j.shell_id == job.shell_id)
            {
                continue;
            }
            if job.state.is_running() {
                job.state = JobState::Ended;
            }
            job.output = None;
            if let Some(n) = job
                .shell_id
                .strip_prefix('b')
                .and_then(|n| n.parse::<u32>().ok())
            {
                reg.next = reg.next.max(n.saturating_add(1));
            }
            (self.shared.on_change)(JobEvent {
                change: Change::Resumed,
                job: job.clone(),
            });
            reg.earlier.push(job);
        }
    }

    /// Leaving the session (another one resumed, a fork): its running jobs end as they do
    /// at exit (SIGTERM, SIGKILL after `grace`), waited for. Returns them as they ended.
    pub async fn stop_running(&self, grace: Duration) -> Vec<JobInfo> {
        let running: Vec<Arc<Job>> = lock(&self.inner)
            .jobs
            .iter()
            .filter(|j| j.state().is_running())
            .cloned()
            .collect();
        futures::future::join_all(running.iter().map(|j| j.kill(KilledBy::Exit, grace))).await;
        running.iter().map(|j| j.info()).collect()
    }

    /// Empties the list (the session the jobs belong to was left): each listed job is told
    /// to front ends as dropped, its output file removed; the ids start again at b1 (the
    /// next session's own jobs raise that). Returns them as they were, oldest first.
    pub fn forget(&self) -> Vec<JobInfo> {
        let mut reg = lock(&self.inner);
        for job in &reg.jobs {
            // Stopped by `stop_running` before; nothing outlives the list it was in.
            job.kill_now();
        }
        let gone: Vec<JobInfo> = std::mem::take(&mut reg.earlier)
            .into_iter()
            .chain(std::mem::take(&mut reg.jobs).iter().map(|j| j.info()))
            .collect();
        reg.next = 1;
        drop(reg);
        for job in &gone {
            if let Some(path) = &job.output {
                let _ = std::fs::remove_file(path);
            }
            (self.shared.on_change)(JobEvent {
                change: Change::Dropped,
                job: job.clone(),
            });
        }
        gone
    }

    /// Ends every running job (SIGTERM, SIGKILL after `grace`) and waits for them.
    pub async fn shutdown(&self, grace: Duration) {
        let jobs = lock(&self.inner).jobs.clone();
        let kills = jobs.iter().map(|j| j.kill(KilledBy::Exit, grace));
        futures::future::join_all(kills).await;
    }

    /// SIGKILL to every running job, without waiting.
    pub fn kill_now(&self) {
        for job in lock(&self.inner).jobs.iter() {
            job.kill_now();
        }
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.kill_now();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(id: &str, state: JobState) -> JobInfo {
        JobInfo {
            shell_id: id.into(),
            command: "npm run dev".into(),
            state,
            exit_code: None,
            pid: Some(7),
            signal: None,
            killed_by: None,
            bytes: 0,
            last_line: String::new(),
            output: Some("/gone/b1.log".into()),
        }
    }

    #[test]
    fn earlier_jobs_are_listed_as_ended_and_their_ids_are_not_given_again() {
        let jobs = Jobs::for_tests();
        jobs.adopt_earlier(vec![
            recorded("b1", JobState::Running),
            recorded("b3", JobState::Killed),
        ]);
        let listed = jobs.list();
        assert_eq!(listed[0].state, JobState::Ended);
        assert_eq!(listed[0].output, None);
        assert_eq!(listed[1].state, JobState::Killed);
        assert!(jobs.running().is_empty());
        assert_eq!(lock(&jobs.inner).next, 4);
        let err = jobs.read("b1").unwrap_err().to_string();
        assert!(err.contains("earlier run"), "{err}");
    }
}
