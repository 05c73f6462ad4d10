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
/// agent keeps its conversation and its transcript.
pub fn resume(agent: &mut Agent, id: &str) -> Result<(), SessionError> {
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
            Ok(())
        }
        Err(e) => {
            agent.observer = previous;
            agent.exec.checkpoints = checkpoints;
            Err(e)
        }
    }
}
