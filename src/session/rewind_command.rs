//! `tooloop rewind --session ID --to N [--files] [--conversation]`: a rewind for scripts.
//! Prints one JSON object (restored, deleted, conflicts, conversation_truncated_to).

use std::path::Path;

use super::rewind::{Outcome, Request, perform};
use super::rewind_error::RewindError;
use super::writer::Transcript;
use super::{checkpoint_store, load, store};
use crate::protocol::events::EventSink;
use crate::protocol::history_observer::HistoryObserver;

/// Runs the command against the sessions in `dir`. Ok carries the outcome (the caller prints
/// it and exits 1 when there were conflicts); Err is a message for stderr.
pub fn run_in(dir: &Path, session: &str, req: &Request) -> Result<Outcome, RewindError> {
    let summary = store::find(dir, session)?;
    let loaded = load::read(&summary.path)?;
    // Opening it as a writer locks it: a session open in a running tooloop is refused.
    let (events, _rx) = EventSink::channel();
    let mut transcript = Transcript::resume(
        dir,
        &summary.path,
        &loaded.header,
        loaded.good_len,
        loaded.missing_newline,
        events,
    )?;
    let store = checkpoint_store(dir).ok_or(RewindError::NoStore)?;
    let done = perform(&loaded, &store, req)?;
    transcript.rewind(&done.record, done.trimmed.as_ref().map(|(i, m)| (*i, m)));
    Ok(done.outcome)
}

/// The command as main runs it: prints the JSON line and returns the exit status.
pub fn run(session: &str, req: &Request) -> i32 {
    let result = crate::paths::sessions_dir()
        .map_err(|e| RewindError::Session(e.into()))
        .and_then(|dir| run_in(&dir, session, req));
    match result {
        Ok(outcome) => {
            match serde_json::to_string(&outcome) {
                Ok(line) => println!("{line}"),
                Err(e) => {
                    eprintln!("tooloop: {e}");
                    return 1;
                }
            }
            if let Some(c) = super::rewind::bash_caveat(outcome.bash_since) {
                eprintln!("tooloop: {c}");
            }
            if outcome.conflicts.is_empty() && outcome.failed.is_empty() {
                0
            } else {
                1
            }
        }
        Err(e) => {
            eprintln!("tooloop: {e}");
            2
        }
    }
}
