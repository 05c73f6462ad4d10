//! Rewind and fork on the live agent (the TUI's Esc Esc, /rewind, /undo, /fork): the session
//! layer does the work on the transcript and the checkpoints; this swaps the history and
//! tells the front ends.

use super::Agent;
use crate::protocol::AgentEvent;
use crate::protocol::session_error::SessionError;
use crate::session::rewind::{self, Outcome, Request};
use crate::session::rewind_error::RewindError;
use crate::session::{checkpoint_store, load};

impl Agent {
    /// Rewinds to just before prompt `req.to` of this session. The history is replaced by the
    /// cut one (HistoryReset) and a Notice says what happened.
    pub fn rewind(&mut self, req: &Request) -> Result<Outcome, RewindError> {
        let path = self
            .observer
            .as_ref()
            .and_then(|r| r.path())
            .ok_or(RewindError::NoTranscript)?;
        if !path.exists() {
            return Err(RewindError::NothingYet);
        }
        let loaded = load::read(&path)?;
        // The transcript is what a rewind cuts: if it fell behind (a failed write), cutting
        // it would not cut what the model sees.
        if loaded.messages != self.history {
            return Err(RewindError::TranscriptBehind(path));
        }
        let store = match &self.exec.checkpoints {
            Some(c) => c.store().clone(),
            None => path
                .parent()
                .and_then(checkpoint_store)
                .ok_or(RewindError::NoStore)?,
        };
        let done = rewind::perform(&loaded, &store, req)?;
        if let Some(r) = &mut self.observer {
            r.rewind(&done.record, done.trimmed.as_ref().map(|(i, m)| (*i, m)));
        }
        if let Some(history) = done.history {
            let kept_prompts =
                &loaded.prompts[..(req.to.saturating_sub(1)).min(loaded.prompts.len())];
            self.facts = crate::agent::context::facts::SessionFacts::rebuild(
                kept_prompts,
                loaded.earlier.iter().chain(history.iter()),
                &self.exec.registry,
                self.exec.workspace.root(),
            );
            self.replace_history(history);
            // How the kept calls ended (cancelled, denied, their durations), what compactions
            // replaced and the subagents, as a resume sends them: without them a front end
            // could only guess from `is_error`, and would lose the rows before a compaction
            // and the subagents' rows (issue 41, item 3).
            self.retire_tool_ids(&loaded.earlier);
            self.send_history_view(
                loaded.earlier.clone(),
                loaded.timings.clone(),
                &loaded.agents,
                &self.history.to_messages(),
            );
            self.exec.events.send(AgentEvent::HistoryReset {
                messages: self.history.to_vec(),
                summaries: self.exec.registry.summaries(&self.history),
            });
        }
        self.exec.events.send(AgentEvent::Notice {
            text: rewind::describe(&done.outcome, req.to),
        });
        Ok(done.outcome)
    }

    /// Goes on in a new session that starts as a copy of this one; returns its id. The
    /// running jobs stay with the session left (they are stopped); the copy lists them as
    /// a resumed copy would: ended, their ids not given out again.
    pub async fn fork(&mut self) -> Result<String, SessionError> {
        if self.observer.is_none() {
            return Err(SessionError::NoTranscript);
        }
        let stopped = super::session_switch::leave_jobs(self).await;
        let observer = self.observer.as_mut().ok_or(SessionError::NoTranscript)?;
        let parent = observer.session_id().unwrap_or_default();
        let id = match observer.fork() {
            Ok(id) => id,
            Err(e) => {
                super::session_switch::say(self, stopped);
                return Err(e);
            }
        };
        super::session_switch::say(self, stopped);
        let left = self.exec.jobs.forget();
        self.exec.jobs.adopt_earlier(left);
        self.exec
            .events
            .send(AgentEvent::Session { id: id.clone() });
        self.exec.events.send(AgentEvent::Notice {
            text: format!("forked: this is now session {id}, a copy of {parent} (left as it was)"),
        });
        Ok(id)
    }
}
