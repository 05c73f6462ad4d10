//! The transcript writer: the agent's [`HistoryObserver`], one JSON line per record.
//!
//! Each record is one `write` of the whole line to an unbuffered file, so a crash tears at
//! most the last line; `prompt_end` also fsyncs. A new session's file is created with its
//! first record, so starting tooloop and quitting leaves nothing behind. The file is locked
//! (flock) while a run writes it, so a second run cannot resume it at the same time.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::message::Message;
use crate::protocol::events::EventSink;
use crate::protocol::history_observer::HistoryObserver;
use crate::protocol::{AgentEvent, TurnSummary};

use super::transcript_line::{self, FORMAT, Header, Record};
use crate::protocol::history_observer::RewindRecord;
use crate::protocol::session_error::SessionError;
use crate::protocol::status::ToolTiming;

/// A message record borrowing the agent's message: serialized exactly like
/// `Record::Message`, without copying the message first.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename = "message")]
struct MessageRecord<'a> {
    index: usize,
    message: &'a Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolTiming>,
}

use crate::protocol::history_observer::SessionHandle;

pub struct Transcript {
    dir: PathBuf,
    workspace: String,
    id: String,
    path: PathBuf,
    /// None until the first record of a new session.
    file: Option<File>,
    /// Writing failed once; the rest of the session is not saved (a half-written line
    /// followed by more lines would damage the file).
    failed: bool,
    events: EventSink,
    handle: SessionHandle,
    /// How the last reply's calls ran, written with the message that answers them.
    pending: Vec<ToolTiming>,
    /// The provider's name, written with each prompt (see [`Transcript::set_provider`]).
    provider: Option<String>,
}

impl Transcript {
    /// A new session in `dir` (created on its first record).
    pub fn create(dir: &Path, workspace: &str, events: EventSink) -> Transcript {
        let (id, path) = super::store::new_name(dir);
        let handle = SessionHandle::default();
        handle.set(&id, &path);
        tracing::info!(session = %id, path = %path.display(), "new session");
        Transcript {
            dir: dir.to_path_buf(),
            workspace: workspace.to_string(),
            id,
            path,
            file: None,
            failed: false,
            events,
            handle,
            pending: Vec::new(),
            provider: None,
        }
    }

    /// Each prompt record names `provider` from now on, so a later resume can say where the
    /// session last ran.
    pub fn set_provider(&mut self, provider: &str) {
        self.provider = Some(provider.to_string());
    }

    /// Appends to an existing transcript, cutting a torn tail at `good_len` first so the
    /// next record starts on a line of its own.
    pub fn resume(
        dir: &Path,
        path: &Path,
        header: &Header,
        good_len: u64,
        missing_newline: bool,
        events: EventSink,
    ) -> Result<Transcript, SessionError> {
        let shown = path.display();
        let io = |what: &str, e: std::io::Error| SessionError::Io {
            path: path.to_path_buf(),
            source: if what.is_empty() {
                e
            } else {
                std::io::Error::new(e.kind(), format!("{what}: {e}"))
            },
        };
        let mut file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| io("", e))?;
        // Two runs appending to one transcript would interleave their histories.
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => SessionError::Locked(header.id.clone()),
            std::fs::TryLockError::Error(e) => io("cannot lock", e),
        })?;
        file.set_len(good_len)
            .map_err(|e| io("cannot cut the partial line", e))?;
        if missing_newline {
            file.write_all(b"\n").map_err(|e| io("", e))?;
        }
        crate::paths::set_mode(path, 0o600).map_err(|e| io("", e))?;
        let handle = SessionHandle::default();
        handle.set(&header.id, path);
        tracing::info!(session = %header.id, path = %shown, "resumed session");
        Ok(Transcript {
            dir: dir.to_path_buf(),
            workspace: header.workspace.clone(),
            id: header.id.clone(),
            path: path.to_path_buf(),
            file: Some(file),
            failed: false,
            events,
            handle,
            pending: Vec::new(),
            provider: None,
        })
    }

    pub fn handle(&self) -> SessionHandle {
        self.handle.clone()
    }

    /// Reports through `handle` from now on (a front end's live handle follows a switch).
    pub fn adopt(&mut self, handle: SessionHandle) {
        handle.set(&self.id, &self.path);
        self.handle = handle;
    }

    fn write<R: serde::Serialize>(&mut self, record: &R) {
        if self.failed {
            return;
        }
        if let Err(e) = self.try_write(record) {
            self.failed = true;
            tracing::error!(path = %self.path.display(), "transcript write failed: {e}");
            self.events.send(AgentEvent::Error {
                message: format!(
                    "transcript {}: {e}; the rest of this session is not saved",
                    self.path.display()
                ),
            });
        }
    }

    fn try_write<R: serde::Serialize>(&mut self, record: &R) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        let file = match &mut self.file {
            Some(f) => f,
            None => {
                let mut f = open_new(&self.path)?;
                let header = Record::Header(Header {
                    id: self.id.clone(),
                    created: transcript_line::now_rfc3339(),
                    workspace: self.workspace.clone(),
                    tooloop_version: env!("CARGO_PKG_VERSION").to_string(),
                    format: FORMAT,
                    forked_from: None,
                });
                let mut head = serde_json::to_vec(&header)?;
                head.push(b'\n');
                f.write_all(&head)?;
                self.file.insert(f)
            }
        };
        file.write_all(&line)
    }
}

impl HistoryObserver for Transcript {
    fn message(&mut self, index: usize, message: &Message) {
        let tools = transcript_line::answered(&mut self.pending, message);
        self.write(&MessageRecord {
            index,
            message,
            tools,
        });
    }

    fn tool_runs(&mut self, runs: &[ToolTiming]) {
        // Only the latest reply's calls can still be answered.
        self.pending = runs.to_vec();
    }

    fn prompt_start(&mut self, prompt: &str, model: &str) {
        self.write(&Record::PromptStart {
            time: transcript_line::now_rfc3339(),
            prompt: prompt.to_string(),
            model: model.to_string(),
            provider: self.provider.clone(),
        });
    }

    fn prompt_end(&mut self, summary: &TurnSummary) {
        self.write(&Record::PromptEnd {
            time: transcript_line::now_rfc3339(),
            reason: summary.reason.as_str().to_string(),
            turns: summary.turns,
            usage: summary.usage,
            error: summary.error.clone(),
        });
        if let (Some(f), false) = (&self.file, self.failed)
            && let Err(e) = f.sync_data()
        {
            tracing::warn!(path = %self.path.display(), "fsync failed: {e}");
        }
    }

    fn background(&mut self, job: &crate::background::JobInfo) {
        // A session with nothing in it yet (just after /new) is not created for a job of
        // the one before.
        if self.file.is_none() {
            return;
        }
        let mut job = job.clone();
        // The output file goes with this run of tooloop.
        job.output = None;
        self.write(&Record::Background {
            time: transcript_line::now_rfc3339(),
            job,
        });
    }

    fn todos(&mut self, todos: &[crate::todo::TodoItem]) {
        self.write(&Record::Todos {
            time: transcript_line::now_rfc3339(),
            todos: todos.to_vec(),
        });
    }

    fn session_id(&self) -> Option<String> {
        Some(self.id.clone())
    }

    fn handle(&self) -> Option<SessionHandle> {
        Some(self.handle.clone())
    }

    fn compaction(
        &mut self,
        info: &crate::protocol::compaction::Compaction,
        history: &[Arc<Message>],
    ) {
        self.write(&Record::Compaction {
            time: transcript_line::now_rfc3339(),
            trigger: info.trigger.as_str().to_string(),
            summary: info.summary.clone(),
            replaced: info.messages_before,
            pre_tokens: info.pre_tokens,
            post_tokens: info.post_tokens,
            messages: history.iter().map(|m| Message::clone(m)).collect(),
        });
    }

    fn path(&self) -> Option<PathBuf> {
        Some(self.path.clone())
    }

    fn rewind(&mut self, record: &RewindRecord, trimmed: Option<(usize, &Message)>) {
        self.write(&Record::Rewind(record.clone()));
        if let Some((index, message)) = trimmed {
            self.message(index, message);
        }
        if let (Some(f), false) = (&self.file, self.failed)
            && let Err(e) = f.sync_data()
        {
            tracing::warn!(path = %self.path.display(), "fsync failed: {e}");
        }
    }

    fn fork(&mut self) -> Result<String, SessionError> {
        if self.file.is_none() {
            return Err(SessionError::NothingToFork);
        }
        let (header, path, _) = super::fork::create(&self.dir, &self.path)?;
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|source| SessionError::Io {
                path: path.clone(),
                source,
            })?;
        if let Err(e) = file.try_lock() {
            tracing::warn!(path = %path.display(), "cannot lock the fork: {e}");
        }
        // Dropping the parent's file releases its lock: another tooloop may resume it.
        self.file = Some(file);
        self.id = header.id;
        self.path = path;
        self.failed = false;
        self.handle.set(&self.id, &self.path);
        Ok(self.id.clone())
    }

    fn reset(&mut self, messages: &[Arc<Message>]) {
        if let Some(f) = self.file.take() {
            let _ = f.sync_data();
        }
        let (id, path) = super::store::new_name(&self.dir);
        tracing::info!(old = %self.id, session = %id, "new session after reset");
        self.id = id;
        self.path = path;
        self.failed = false;
        self.pending.clear();
        self.handle.set(&self.id, &self.path);
        for (i, m) in messages.iter().enumerate() {
            self.message(i, m);
        }
    }
}

/// Creates the file owner-only. The mode is set again after creation because the umask
/// may have taken bits away from it (and must not be trusted to add none).
fn open_new(path: &Path) -> std::io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.append(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let file = opts.open(path)?;
    crate::paths::set_mode(path, 0o600)?;
    if let Err(e) = file.try_lock() {
        tracing::warn!(path = %path.display(), "cannot lock the new transcript: {e}");
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_message_record_is_the_record_format() {
        let message = Message::user_text("hi \"you\"");
        let borrowed = serde_json::to_string(&MessageRecord {
            index: 3,
            message: &message,
            tools: Vec::new(),
        })
        .expect("borrowed");
        let owned = serde_json::to_string(&Record::Message {
            index: 3,
            message,
            tools: Vec::new(),
        })
        .expect("owned");
        assert_eq!(borrowed, owned);
    }
}
