//! `/sessions` in the TUI: the running agent goes on in another saved session, exactly as
//! `tooloop --resume ID` would have started it (same loading, repair and notices), without a
//! restart. The front end's live handle follows, so the status bar, the quit hint and the
//! request stepper name the resumed session.

use crate::agent::Agent;
use crate::protocol::AgentEvent;

use super::attach::attach_with;
use crate::protocol::session_error::SessionError;
use crate::session::{SessionMode, store};

/// Resumes session `id` (of the current transcript's directory) in `agent`. On error the
/// agent keeps its conversation and its transcript. The session left takes its background
/// jobs along: they are stopped first ([`leave_jobs`]).
pub async fn resume(agent: &mut Agent, id: &str) -> Result<(), SessionError> {
    let path = agent
        .observer
        .as_ref()
        .and_then(|r| r.path())
        .ok_or(SessionError::NoTranscript)?;
    let dir = path
        .parent()
        .ok_or(SessionError::NoTranscript)?
        .to_path_buf();
    let current = agent.observer.as_ref().and_then(|r| r.session_id());
    let target = store::find(&dir, id)?;
    if current.as_deref() == Some(target.id.as_str()) {
        agent.events().send(AgentEvent::Notice {
            text: format!("already in session {}", target.id),
        });
        return Ok(());
    }
    let stopped = leave_jobs(agent).await;
    let handle = agent.observer.as_ref().and_then(|r| r.handle());
    let workspace = agent.exec.workspace.root().to_path_buf();
    // Kept until the new transcript is open: a session that cannot be resumed (locked by
    // another tooloop, damaged) leaves this one in place.
    let previous = agent.observer.take();
    let checkpoints = agent.exec.checkpoints.clone();
    match attach_with(
        &dir,
        &SessionMode::Resume(target.id.clone()),
        &workspace,
        false,
        agent,
        handle,
    ) {
        Ok(info) => {
            drop(previous);
            // The reset above ran before the transcript was attached: say which one it is.
            let info = info.ok_or(SessionError::NoTranscript)?;
            agent.events().send(AgentEvent::Session {
                id: info.id.clone(),
            });
            if let Some(notice) = info.notice {
                agent.events().send(AgentEvent::Notice { text: notice });
            }
            // After the reset, which replaces what the screen shows.
            say(agent, stopped);
            Ok(())
        }
        Err(e) => {
            agent.observer = previous;
            agent.exec.checkpoints = checkpoints;
            say(agent, stopped);
            Err(e)
        }
    }
}

/// Jobs belong to the session that started them, as a Claude Code or Codex user expects:
/// leaving it (another session resumed, a fork) ends its running jobs the way quitting
/// does, and their ends go into its transcript (before a fork copies it). Kept running,
/// they would be processes no list shows and nothing can stop. Returns the notice naming
/// them, for the caller to give once the switch is done.
pub(crate) async fn leave_jobs(agent: &mut Agent) -> Option<String> {
    let stopped = agent
        .exec
        .jobs
        .stop_running(crate::background::EXIT_GRACE)
        .await;
    agent.record_jobs();
    if stopped.is_empty() {
        return None;
    }
    let session = agent
        .observer
        .as_ref()
        .and_then(|r| r.session_id())
        .unwrap_or_default();
    let jobs: Vec<String> = stopped
        .iter()
        .map(|j| format!("{} ({})", j.shell_id, j.command))
        .collect();
    let what = if stopped.len() == 1 {
        "background job"
    } else {
        "background jobs"
    };
    Some(format!(
        "stopped {what} {} of session {session}: jobs belong to the session that started them",
        jobs.join(", ")
    ))
}

/// Gives [`leave_jobs`]' notice, if any.
pub(crate) fn say(agent: &Agent, notice: Option<String>) {
    if let Some(text) = notice {
        agent.events().send(AgentEvent::Notice { text });
    }
}
