//! Taking checkpoints while a session runs: before a tool that edits files changes a path,
//! its previous state is saved once per prompt; after the tool, the state it left is noted,
//! so a later rewind can tell the model's change from a change the user made by hand.

use super::error::CheckpointError;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::store::{Entry, Store};
use crate::message::Message;
use crate::protocol::TurnSummary;
use crate::protocol::history_observer::HistoryObserver;
use crate::protocol::history_observer::RewindRecord;

/// Which session and prompt edits belong to now, shared by the observer (which sees prompts
/// begin) and the executor (which sees tools run).
pub struct Checkpoints {
    store: Store,
    current: Mutex<Current>,
}

#[derive(Default)]
struct Current {
    session: String,
    /// The running prompt's number (0 before the first).
    prompt: usize,
    /// Paths whose previous state this prompt already saved.
    saved: HashSet<PathBuf>,
}

impl Checkpoints {
    pub fn new(store: Store, session: &str, prompts: usize) -> Arc<Checkpoints> {
        Arc::new(Checkpoints {
            store,
            current: Mutex::new(Current {
                session: session.to_string(),
                prompt: prompts,
                saved: HashSet::new(),
            }),
        })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The session now counts `prompts` prompts (a new prompt, a rewind, a new session).
    pub fn set(&self, session: &str, prompts: usize) {
        let mut c = self.lock();
        c.session = session.to_string();
        c.prompt = prompts;
        c.saved.clear();
    }

    pub fn prompts(&self) -> usize {
        self.lock().prompt
    }

    /// Saves how `path` is before a tool changes it (the first time in this prompt only).
    /// Err says why this change cannot be rewound; the tool still runs.
    pub fn before(&self, path: &Path) -> Result<(), CheckpointError> {
        let (session, prompt) = {
            let mut c = self.lock();
            if c.prompt == 0 || !c.saved.insert(path.to_path_buf()) {
                return Ok(());
            }
            (c.session.clone(), c.prompt)
        };
        let state = self
            .store
            .capture(path)
            .map_err(|source| CheckpointError::Capture {
                path: path.to_path_buf(),
                source,
            })?;
        let entry = Entry::Before {
            prompt,
            path: path.to_string_lossy().into_owned(),
            state,
        };
        self.store
            .append(&session, &entry)
            .map_err(CheckpointError::Manifest)
    }

    /// Notes how a tool left `path`.
    pub fn after(&self, path: &Path) -> Result<(), CheckpointError> {
        let (session, prompt) = {
            let c = self.lock();
            if c.prompt == 0 || !c.saved.contains(path) {
                return Ok(());
            }
            (c.session.clone(), c.prompt)
        };
        let state = Store::state_of(path).map_err(|source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let entry = Entry::After {
            prompt,
            path: path.to_string_lossy().into_owned(),
            state,
        };
        self.store
            .append(&session, &entry)
            .map_err(CheckpointError::Manifest)
    }
}

/// A history observer that also tells [`Checkpoints`] when prompts begin and sessions
/// change, so edits are filed under the right prompt. It must forward every HistoryObserver
/// method: a default method left unforwarded would silently drop records.
pub struct Tracking {
    inner: Box<dyn HistoryObserver>,
    checkpoints: Arc<Checkpoints>,
}

impl Tracking {
    pub fn new(inner: Box<dyn HistoryObserver>, checkpoints: Arc<Checkpoints>) -> Tracking {
        Tracking { inner, checkpoints }
    }

    fn session(&self) -> String {
        self.inner.session_id().unwrap_or_default()
    }
}

impl HistoryObserver for Tracking {
    fn message(&mut self, index: usize, message: &Message) {
        self.inner.message(index, message);
    }

    fn tool_runs(&mut self, runs: &[crate::protocol::status::ToolTiming]) {
        self.inner.tool_runs(runs);
    }

    fn prompt_start(&mut self, prompt: &str, model: &str) {
        self.inner.prompt_start(prompt, model);
        let next = self.checkpoints.prompts() + 1;
        self.checkpoints.set(&self.session(), next);
    }

    fn prompt_end(&mut self, summary: &TurnSummary) {
        self.inner.prompt_end(summary);
    }

    fn compaction(
        &mut self,
        info: &crate::protocol::compaction::Compaction,
        history: &[std::sync::Arc<Message>],
    ) {
        self.inner.compaction(info, history);
    }

    fn reset(&mut self, messages: &[std::sync::Arc<Message>]) {
        self.inner.reset(messages);
        self.checkpoints.set(&self.session(), 0);
    }

    fn background(&mut self, job: &crate::background::JobInfo) {
        self.inner.background(job);
    }

    fn todos(&mut self, todos: &[crate::todo::TodoItem]) {
        self.inner.todos(todos);
    }

    fn session_id(&self) -> Option<String> {
        self.inner.session_id()
    }

    fn path(&self) -> Option<PathBuf> {
        self.inner.path()
    }

    fn handle(&self) -> Option<crate::protocol::history_observer::SessionHandle> {
        self.inner.handle()
    }

    fn rewind(&mut self, record: &RewindRecord, trimmed: Option<(usize, &Message)>) {
        self.inner.rewind(record, trimmed);
        if record.messages.is_some() {
            self.checkpoints
                .set(&self.session(), record.to_prompt.saturating_sub(1));
        }
    }

    fn fork(&mut self) -> Result<String, crate::protocol::session_error::SessionError> {
        let parent = self.session();
        let child = self.inner.fork()?;
        let prompts = self.checkpoints.prompts();
        if let Err(e) = self.checkpoints.store().copy_manifest(&parent, &child) {
            tracing::warn!("fork {child}: checkpoints of {parent} not copied: {e}");
        }
        self.checkpoints.set(&child, prompts);
        Ok(child)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_previous_state_is_saved_once_per_prompt() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::new(&dir.path().join("cp"));
        let cp = Checkpoints::new(store.clone(), "s", 0);
        let f = dir.path().join("f.txt");
        std::fs::write(&f, "v0").expect("write");
        cp.before(&f).expect("no prompt yet: nothing saved");
        assert!(store.entries("s").expect("reads").is_empty());
        cp.set("s", 1);
        cp.before(&f).expect("saves");
        std::fs::write(&f, "v1").expect("write");
        cp.after(&f).expect("notes");
        cp.before(&f).expect("already saved");
        std::fs::write(&f, "v2").expect("write");
        cp.after(&f).expect("notes");
        let entries = store.entries("s").expect("reads");
        let befores: Vec<_> = entries
            .iter()
            .filter(|e| matches!(e, Entry::Before { .. }))
            .collect();
        assert_eq!(befores.len(), 1);
        let Entry::Before {
            state: Some(state), ..
        } = befores[0]
        else {
            panic!("{entries:?}")
        };
        assert_eq!(store.read_blob(&state.hash).expect("blob"), b"v0");
        assert_eq!(entries.len(), 3);
    }
}
