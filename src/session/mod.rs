//! Sessions: every message is also written to a JSONL transcript in the data directory, so a
//! conversation survives quitting and crashing (--continue, --resume ID, `tooloop sessions`).

pub mod child;

pub mod fork;
pub mod load;
pub mod prompt_marks;
pub mod rewind;
pub mod rewind_command;
pub mod rewind_error;
pub mod store;
pub mod transcript_line;
pub mod unsent;
pub mod writer;

use std::path::{Path, PathBuf};

use crate::protocol::history_observer::SessionHandle;

pub use store::{SessionSummary, format_table, list};
pub use writer::Transcript;

/// Which transcript this run writes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionMode {
    /// A new session (the default).
    New,
    /// The most recent session of this workspace (--continue).
    Continue,
    /// A given session (--resume ID).
    Resume(String),
    /// No transcript at all (--no-session).
    Off,
}

/// What a front end shows about the session.
#[derive(Clone, Debug)]
pub struct SessionInfo {
    /// The session this run started with.
    pub id: String,
    pub path: PathBuf,
    /// True for --continue / --resume.
    pub resumed: bool,
    /// Something the user should read before the first prompt (a dropped partial line, a
    /// repaired tool call, another workspace). Headless prints it to stderr.
    pub notice: Option<String>,
    /// The live id: it changes when the conversation is reset (`/new`).
    pub handle: SessionHandle,
}

impl PartialEq for SessionInfo {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.path == other.path && self.notice == other.notice
    }
}

/// "resumed session ID (3 prompts) on anthropic/claude-x", and when the last prompt went
/// elsewhere, "; it last ran on openai/gpt-4o".
pub fn resumed_notice(
    id: &str,
    prompts: usize,
    last_run: Option<&(Option<String>, String)>,
    (provider, model): (&str, &str),
) -> String {
    let plural = if prompts == 1 { "" } else { "s" };
    let mut text = format!("resumed session {id} ({prompts} prompt{plural}) on {provider}/{model}");
    if let Some((last_provider, last_model)) = last_run {
        let same_provider = last_provider.as_deref().is_none_or(|p| p == provider);
        if !same_provider || last_model != model {
            let last = match last_provider {
                Some(p) => format!("{p}/{last_model}"),
                None => last_model.clone(),
            };
            text.push_str(&format!("; it last ran on {last}"));
        }
    }
    text
}

/// The checkpoint store beside the sessions directory (`checkpoints/` next to `sessions/`).
pub fn checkpoint_store(sessions_dir: &Path) -> Option<crate::checkpoint::Store> {
    sessions_dir
        .parent()
        .map(|data| crate::checkpoint::Store::new(&data.join("checkpoints")))
}

/// The workspace as sessions record it: canonical, so `.` and `/home/u/p` are one workspace.
pub fn canonical_workspace(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::resumed_notice;

    #[test]
    fn a_resume_names_the_session_and_where_it_last_ran_when_that_differs() {
        let last = (
            Some("anthropic".to_string()),
            "claude-sonnet-4-5".to_string(),
        );
        assert_eq!(
            resumed_notice("1a2b3c4d", 3, Some(&last), ("demo", "demo")),
            "resumed session 1a2b3c4d (3 prompts) on demo/demo; it last ran on \
             anthropic/claude-sonnet-4-5"
        );
        assert_eq!(
            resumed_notice(
                "1a2b3c4d",
                1,
                Some(&last),
                ("anthropic", "claude-sonnet-4-5")
            ),
            "resumed session 1a2b3c4d (1 prompt) on anthropic/claude-sonnet-4-5"
        );
        // Older transcripts name only the model.
        let old = (None, "gpt-4o".to_string());
        assert!(
            resumed_notice("x", 2, Some(&old), ("openai", "gpt-4.1"))
                .ends_with("; it last ran on gpt-4o")
        );
        assert_eq!(
            resumed_notice("x", 0, None, ("demo", "demo")),
            "resumed session x (0 prompts) on demo/demo"
        );
    }
}
