//! Attaching a session to a running agent: the transcript writer (and the checkpoints'
//! tracking) become the agent's history observer, and a resumed session's history, jobs,
//! todos and facts are loaded into it. It takes `&mut Agent`, so it lives with the agent;
//! the session code below it knows only the protocol's observer.

use std::path::Path;

use crate::agent::Agent;
use crate::protocol::AgentEvent;
use crate::protocol::history_observer::SessionHandle;
use crate::protocol::session_error::SessionError;
use crate::session::{
    SessionInfo, SessionMode, Transcript, canonical_workspace, checkpoint_store, fork, load,
    resumed_notice, store,
};

/// Opens (or resumes, per --continue / --resume) the session for this run and attaches its
/// observer to `agent`. Ok(None) when sessions are off.
pub fn attach(
    mode: &SessionMode,
    workspace: &Path,
    fork: bool,
    agent: &mut Agent,
) -> Result<Option<SessionInfo>, SessionError> {
    if *mode == SessionMode::Off {
        return Ok(None);
    }
    attach_in(&crate::paths::sessions_dir()?, mode, workspace, fork, agent)
}

/// [`attach`] with the sessions directory given (tests).
pub fn attach_in(
    dir: &Path,
    mode: &SessionMode,
    workspace: &Path,
    fork: bool,
    agent: &mut Agent,
) -> Result<Option<SessionInfo>, SessionError> {
    attach_with(dir, mode, workspace, fork, agent, None)
}

/// [`attach_in`]; a given `handle` (a front end's live one) follows the attached session.
pub(crate) fn attach_with(
    dir: &Path,
    mode: &SessionMode,
    workspace: &Path,
    fork: bool,
    agent: &mut Agent,
    handle: Option<SessionHandle>,
) -> Result<Option<SessionInfo>, SessionError> {
    let workspace = canonical_workspace(workspace);
    let summary = match mode {
        SessionMode::Off => return Ok(None),
        SessionMode::New => None,
        SessionMode::Continue => Some(store::latest_for(dir, &workspace)?),
        SessionMode::Resume(id) => Some(store::find(dir, id)?),
    };
    crate::paths::create_private_dir(dir, crate::paths::tooloop_root(dir)).map_err(|source| {
        SessionError::Directory {
            path: dir.to_path_buf(),
            source,
        }
    })?;
    // The old observer must not see the reset below as a new conversation.
    agent.observer = None;
    let events = agent.events().clone();
    let Some(summary) = summary else {
        let mut t = Transcript::create(dir, &workspace, events);
        t.set_provider(agent.provider.name());
        if let Some(h) = handle {
            t.adopt(h);
        }
        let handle = t.handle();
        agent.observer = Some(Box::new(t));
        track_edits(agent, dir, 0);
        return Ok(Some(SessionInfo {
            id: handle.id(),
            path: handle.path(),
            resumed: false,
            notice: None,
            handle,
        }));
    };
    let loaded = load::read(&summary.path)?;
    let mut notices = loaded.notices.clone();
    let mut messages = loaded.messages;
    let repaired = load::repair(&mut messages).map_err(|e| SessionError::Unusable {
        id: summary.id.clone(),
        path: summary.path.clone(),
        source: Box::new(e),
    })?;
    if let Some(m) = &repaired {
        let n = m.content.len();
        notices.push(format!(
            "{n} tool call{} left unfinished when tooloop stopped; answered as interrupted",
            if n == 1 { " was" } else { "s were" }
        ));
        tracing::warn!(session = %summary.id, tools = n, "repaired unanswered tool calls");
    }
    // A prompt whose request failed is not sent behind the user's back (session/unsent.rs).
    let unsent = crate::session::unsent::take(
        &mut messages,
        loaded.last_end.as_deref(),
        &loaded.marks,
        &loaded.prompts,
    );
    if loaded.header.workspace != workspace {
        notices.push(format!(
            "session {} was recorded in {}; tools now work in {workspace}",
            summary.id, loaded.header.workspace
        ));
    }
    // The transcript is opened (and locked) before the history is touched, so a session
    // that cannot be resumed leaves the agent as it was.
    let mut t = if fork {
        let (header, path, len) =
            fork::create(dir, &summary.path).map_err(|e| SessionError::Fork(Box::new(e)))?;
        notices.push(format!("forked session {} into {}", summary.id, header.id));
        let t = Transcript::resume(dir, &path, &header, len, false, events)?;
        if let Some(store) = checkpoint_store(dir)
            && let Err(e) = store.copy_manifest(&summary.id, &header.id)
        {
            tracing::warn!("fork {}: checkpoints not copied: {e}", header.id);
        }
        t
    } else {
        Transcript::resume(
            dir,
            &summary.path,
            &loaded.header,
            loaded.good_len,
            loaded.missing_newline,
            events,
        )?
    };
    if let Some(h) = handle {
        t.adopt(h);
    }
    t.set_provider(agent.provider.name());
    // Which session and which provider/model it now runs on, first: a session recorded on
    // one provider must not go on silently on another.
    notices.insert(
        0,
        resumed_notice(
            &summary.id,
            loaded.prompts.len(),
            loaded.last_run.as_ref(),
            (agent.provider.name(), &agent.settings.model),
        ),
    );
    // The state block's facts come from the whole transcript, compacted parts included.
    let facts = crate::agent::context::facts::SessionFacts::rebuild(
        &loaded.prompts,
        loaded.earlier.iter().chain(messages.iter()),
        &agent.exec.registry,
        agent.exec.workspace.root(),
    );
    // A model that repeats an id a compaction took out gets a fresh one, as live.
    agent.retire_tool_ids(&loaded.earlier);
    agent.send_history_view(loaded.earlier, loaded.timings, &loaded.agents, &messages);
    agent.reset(messages);
    if let Some(text) = unsent {
        agent.events().send(AgentEvent::PromptNotSent { text });
    }
    // The session left took its jobs along (session_switch::leave_jobs stopped them).
    agent.exec.jobs.forget();
    agent.exec.jobs.adopt_earlier(loaded.jobs);
    agent.facts = facts;
    if !loaded.todos.is_empty() {
        agent.restore_todos(loaded.todos);
    }
    if let Some(m) = &repaired {
        use crate::protocol::history_observer::HistoryObserver;
        t.message(agent.history.len().saturating_sub(1), m);
    }
    let handle = t.handle();
    agent.observer = Some(Box::new(t));
    track_edits(agent, dir, loaded.prompts.len());
    Ok(Some(SessionInfo {
        id: handle.id(),
        path: handle.path(),
        resumed: true,
        notice: (!notices.is_empty()).then(|| notices.join("\n")),
        handle,
    }))
}

/// Files edited by tools are checkpointed from now on, filed under the session's prompts
/// (`prompts` of them so far), so they can be rewound.
fn track_edits(agent: &mut Agent, dir: &Path, prompts: usize) {
    let (Some(store), Some(inner)) = (checkpoint_store(dir), agent.observer.take()) else {
        return;
    };
    let id = inner.session_id().unwrap_or_default();
    let checkpoints = crate::checkpoint::Checkpoints::new(store, &id, prompts);
    agent.exec.checkpoints = Some(checkpoints.clone());
    agent.observer = Some(Box::new(crate::checkpoint::Tracking::new(
        inner,
        checkpoints,
    )));
}
