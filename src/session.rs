//! Transcripts (JSONL) and resume (placeholder until built).

use crate::agent::Agent;
use crate::config::Config;

/// What a front end shows about the session (id in the status bar).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    pub id: String,
}

/// Opens (or resumes, per --continue / --resume) the session for this run and attaches its
/// recorder to `agent`. Ok(None) when sessions are off.
pub fn attach(_config: &Config, _agent: &mut Agent) -> Result<Option<SessionInfo>, String> {
    Ok(None)
}
