//! The controller for background jobs in the TUI: `b` / `x` / Enter on the tools pane's
//! `background` group, `/jobs` and `/kill`. The group itself only holds state
//! (panes/tools/jobs.rs); killing goes to the agent as a command.

use serde_json::{Value, json};

use crate::background::types::JobInfo;
use crate::protocol::AgentCommand;
use crate::tui::app::{App, Focus};
use crate::tui::keys::Action;
use crate::tui::panes::cells::CellKind;

/// How much of a job's output file Enter shows (its end).
const OUTPUT_SHOWN: u64 = 64 * 1024;

impl App {
    /// A tools-pane key for the jobs' group; true if it was one.
    pub(super) fn job_key(&mut self, action: Action) -> bool {
        match action {
            Action::SelectJob => {
                self.panes.tools.jobs.select_next();
                // One selection at a time: Enter then opens the job, not a timeline bar.
                self.panes.tools.bars.armed = false;
                true
            }
            Action::KillJob => match self.panes.tools.jobs.selected_job() {
                Some(job) => {
                    let id = job.shell_id.clone();
                    self.kill_job(&id);
                    true
                }
                None => false,
            },
            Action::Toggle => match self.panes.tools.jobs.selected_job().cloned() {
                Some(job) if !self.panes.tools.bars.armed => {
                    self.open_job_output(&job);
                    true
                }
                _ => false,
            },
            // ←/→ pick a timeline bar instead.
            Action::PrevItem | Action::NextItem => {
                self.panes.tools.jobs.selected = None;
                false
            }
            _ => false,
        }
    }

    /// `/kill ID` and `x`: the agent ends the job's process group.
    pub(super) fn kill_job(&mut self, id: &str) {
        let known = self
            .panes
            .tools
            .jobs
            .rows
            .iter()
            .find(|r| r.info.shell_id == id);
        let text = match known {
            None if id.is_empty() => "usage: /kill ID (see /jobs)".to_string(),
            None => format!("no background job {id} (see /jobs)"),
            Some(r) if !r.info.state.is_running() => {
                format!("{id} already ended: {}", r.info.describe_state())
            }
            Some(_) => {
                self.send(AgentCommand::KillJob { id: id.to_string() });
                format!("stopping {id} (SIGTERM, then SIGKILL after 2 s)")
            }
        };
        self.panes.conversation.push(CellKind::Notice(text));
        self.panes.conversation.scroll.bottom();
    }

    /// `/jobs`: one line per job.
    pub(super) fn show_jobs(&mut self) {
        let rows = &self.panes.tools.jobs.rows;
        let text = if rows.is_empty() {
            "no background jobs (the model starts them with bash run_in_background)".to_string()
        } else {
            rows.iter()
                .map(|r| describe(&r.info))
                .collect::<Vec<_>>()
                .join("\n")
        };
        self.panes.conversation.push(CellKind::Notice(text));
        self.panes.conversation.scroll.bottom();
    }

    /// Enter on a job: its output so far in the JSON pane's tool view.
    fn open_job_output(&mut self, job: &JobInfo) {
        let output = match &job.output {
            Some(path) => read_tail(path),
            None => Value::Null,
        };
        // The job as the transcript keeps it, with its state in words and its output so far.
        let mut shown = serde_json::to_value(job).unwrap_or_else(|_| json!({}));
        if let Some(map) = shown.as_object_mut() {
            map.insert("state".into(), json!(job.describe_state()));
            map.insert("output".into(), output);
        }
        self.panes.json.show_tool(shown);
        self.panes.json_open = true;
        self.set_focus(Focus::Json);
    }
}

fn describe(j: &JobInfo) -> String {
    let pid = j.pid.map(|p| format!(" pid {p}")).unwrap_or_default();
    format!(
        "{} {} — {}{pid}",
        crate::sanitize::sanitize(&j.shell_id),
        crate::sanitize::sanitize(&j.command),
        j.describe_state()
    )
}

/// The last [`OUTPUT_SHOWN`] bytes of the file, as text (the JSON view escapes what it must).
fn read_tail(path: &std::path::Path) -> Value {
    use std::io::{Read, Seek, SeekFrom};
    let read = || -> std::io::Result<String> {
        let mut f = std::fs::File::open(path)?;
        let len = f.metadata()?.len();
        f.seek(SeekFrom::Start(len.saturating_sub(OUTPUT_SHOWN)))?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)?;
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if len > OUTPUT_SHOWN {
            text.insert_str(0, &format!("[… {} earlier bytes …]\n", len - OUTPUT_SHOWN));
        }
        Ok(text)
    };
    match read() {
        Ok(text) => json!(text),
        Err(e) => json!(format!("(the output file cannot be read: {e})")),
    }
}
