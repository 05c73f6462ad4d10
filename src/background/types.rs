//! What front ends, transcripts and the model learn about a background job. Plain data:
//! the same shape travels in `AgentEvent::Background`, in transcripts and in stream-json.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Running,
    /// Its shell exited by itself; `exit_code` says how.
    Exited,
    /// Ended by a signal: `kill_shell`, `/kill`, tooloop's own exit, or a signal from elsewhere.
    Killed,
    /// Listed by an earlier run of tooloop that did not record its end: whatever it was
    /// doing, its processes did not outlive that run.
    Ended,
}

impl JobState {
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Running => "running",
            JobState::Exited => "exited",
            JobState::Killed => "killed",
            JobState::Ended => "ended",
        }
    }

    pub fn is_running(self) -> bool {
        self == JobState::Running
    }
}

/// Who ended a job that was killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KilledBy {
    /// The model, with `kill_shell`.
    Model,
    /// The user (`/kill`, `x` in the tools pane).
    User,
    /// tooloop was ending, or the session the job belongs to was left.
    Exit,
}

/// One job as it is now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobInfo {
    pub shell_id: String,
    pub command: String,
    pub state: JobState,
    #[serde(default)]
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub pid: Option<u32>,
    /// The signal that ended it, when a signal did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killed_by: Option<KilledBy>,
    /// Bytes of output so far.
    #[serde(default)]
    pub bytes: u64,
    /// The last non-empty line of output, raw (front ends sanitize what they draw).
    #[serde(default)]
    pub last_line: String,
    /// The file holding its output (the last 8 MiB), while this run of tooloop lasts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<PathBuf>,
}

impl JobInfo {
    /// "running", "exited with code 3", "killed", "killed by signal SIGSEGV (11)", …
    pub fn describe_state(&self) -> String {
        match self.state {
            JobState::Running => "running".into(),
            JobState::Exited => match self.exit_code {
                Some(code) => format!("exited with code {code}"),
                None => "exited".into(),
            },
            JobState::Killed => match (self.killed_by, self.signal) {
                (Some(KilledBy::User), _) => "killed by the user".into(),
                (Some(_), _) | (None, None) => "killed".into(),
                (None, Some(sig)) => match nix::sys::signal::Signal::try_from(sig) {
                    Ok(s) => format!("killed by signal {} ({sig})", s.as_str()),
                    Err(_) => format!("killed by signal {sig}"),
                },
            },
            JobState::Ended => "ended (it did not outlive the earlier tooloop run)".into(),
        }
    }

    /// The fields of a stream-json `background` line and of `result.background` (CLI.md).
    pub fn json_fields(&self, state: &str) -> Value {
        json!({
            "shell_id": self.shell_id,
            "command": self.command,
            "state": state,
            "exit_code": self.exit_code,
            "pid": self.pid,
        })
    }
}

/// What changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Started,
    /// New output (at most a couple of these a second per job: front ends redraw on them).
    Output,
    Ended,
    /// Listed from a resumed transcript (never running).
    Resumed,
    /// No longer listed: the session it belongs to was left (`/sessions`, `/fork`); front
    /// ends drop its row.
    Dropped,
}

/// `AgentEvent::Background`: a job and what just changed about it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobEvent {
    pub change: Change,
    pub job: JobInfo,
}

impl JobEvent {
    /// The stream-json `background` line, for the changes CLI.md names (started, and the
    /// end as exited or killed).
    pub fn stream_json(&self) -> Option<Value> {
        let state = match self.change {
            Change::Started => "started",
            Change::Ended => self.job.state.as_str(),
            Change::Output | Change::Resumed | Change::Dropped => return None,
        };
        let mut line = self.job.json_fields(state);
        if let Value::Object(map) = &mut line {
            map.insert("type".into(), json!("background"));
        }
        Some(line)
    }
}
