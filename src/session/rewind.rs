//! Rewinding a session to just before one of its prompts: the conversation (history cut,
//! still valid), the files (from the checkpoints), or both. Shared by the agent (TUI:
//! Esc Esc, /rewind, /undo) and `tooloop rewind`; the caller writes the returned record to
//! the transcript, where the cut messages stay above it for audit.

use super::rewind_error::RewindError;
use crate::checkpoint::error::CheckpointError;
use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::load::Loaded;
use super::transcript_line::now_rfc3339;
use crate::checkpoint::restore;
use crate::checkpoint::{Entry, Store};
use crate::message::{ContentBlock, Message, validate_history};
use crate::protocol::history_observer::RewindRecord;
use crate::tools::ToolRegistry;

/// One prompt as the rewind list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptEntry {
    /// From 1.
    pub number: usize,
    pub time: String,
    pub text: String,
    pub turns: u32,
    /// Files tools changed during this prompt (checkpointed).
    pub files: usize,
    /// bash commands that ran from this prompt on: their effects are not undone.
    pub bash_since: usize,
}

/// The session's prompts, oldest first.
pub fn timeline(loaded: &Loaded, entries: &[Entry]) -> Vec<PromptEntry> {
    let registry = ToolRegistry::builtin();
    loaded
        .prompts
        .iter()
        .zip(&loaded.marks)
        .enumerate()
        .map(|(i, (text, mark))| {
            let number = i + 1;
            let files: BTreeSet<&str> = entries
                .iter()
                .filter_map(|e| match e {
                    Entry::Before { prompt, path, .. } if *prompt == number => Some(path.as_str()),
                    _ => None,
                })
                .collect();
            PromptEntry {
                number,
                time: mark.time.clone(),
                text: text.clone(),
                turns: mark.turns,
                files: files.len(),
                bash_since: bash_commands(
                    &registry,
                    &loaded.messages[mark.start.min(loaded.messages.len())..],
                ),
            }
        })
        .collect()
}

/// Calls in `messages` of tools that run commands (Effect::Exec: bash) and ran (denied ones
/// did not): what they did is outside the checkpoints.
fn bash_commands(registry: &ToolRegistry, messages: &[Message]) -> usize {
    let runs_commands = |name: &str| {
        registry
            .get(name)
            .is_some_and(|r| r.tool.effect() == crate::tools::Effect::Exec)
    };
    let not_run = |id: &str| {
        messages.iter().flat_map(|m| &m.content).any(|b| {
            matches!(b, ContentBlock::ToolResult { tool_use_id, content, is_error: true, .. }
                if tool_use_id == id
                    && crate::message::markers::tool_results::is_refusal(content))
        })
    };
    messages
        .iter()
        .flat_map(Message::tool_uses)
        .filter(|(id, name, _)| runs_commands(name) && !not_run(id))
        .count()
}

/// The caveat a rewind to `entry` needs, if any.
pub fn bash_caveat(bash_since: usize) -> Option<String> {
    match bash_since {
        0 => None,
        1 => Some("1 bash command ran after this point; its effects are not undone".into()),
        n => Some(format!(
            "{n} bash commands ran after this point; their effects are not undone"
        )),
    }
}

pub use crate::protocol::RewindRequest as Request;

impl Request {
    fn parts(&self) -> (bool, bool) {
        if !self.files && !self.conversation {
            (true, true)
        } else {
            (self.files, self.conversation)
        }
    }
}

/// What a rewind did; the JSON `tooloop rewind` prints.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Outcome {
    pub restored: Vec<String>,
    pub deleted: Vec<String>,
    pub conflicts: Vec<String>,
    pub conversation_truncated_to: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// The text of the prompt rewound to (the TUI puts it back in the input).
    #[serde(skip)]
    pub prompt: String,
    #[serde(skip)]
    pub bash_since: usize,
}

/// A performed rewind: the outcome, the record for the transcript, and the cut history.
pub struct Performed {
    pub outcome: Outcome,
    pub record: RewindRecord,
    /// The history to continue from, when the conversation was rewound.
    pub history: Option<Vec<Message>>,
    /// history[i] lost the rewound prompt's text (it had been merged into it).
    pub trimmed: Option<(usize, Message)>,
}

fn check_prompt(loaded: &Loaded, to: usize) -> Result<(), RewindError> {
    let n = loaded.prompts.len();
    if to == 0 || to > n {
        return Err(RewindError::NoSuchPrompt {
            session: loaded.header.id.clone(),
            count: n,
        });
    }
    Ok(())
}

/// Files a rewind to `to` would not put back because they were changed by hand.
pub fn conflicts(loaded: &Loaded, store: &Store, to: usize) -> Result<Vec<String>, RewindError> {
    check_prompt(loaded, to)?;
    let entries = store.entries(&loaded.header.id)?;
    let ws = Path::new(&loaded.header.workspace);
    Ok(restore::plan(&entries, to)
        .iter()
        .filter(|i| !i.unchanged() && i.conflict())
        .map(|i| shown(ws, &i.path))
        .collect())
}

/// Rewinds the session `loaded` holds: files first (conflicts skipped unless asked), then the
/// conversation. The checkpoints of the prompts rewound over are retired in `store`.
pub fn perform(loaded: &Loaded, store: &Store, req: &Request) -> Result<Performed, RewindError> {
    check_prompt(loaded, req.to)?;
    let (files, conversation) = req.parts();
    let mark = &loaded.marks[req.to - 1];
    let id = &loaded.header.id;
    let ws = Path::new(&loaded.header.workspace);
    let mut outcome = Outcome {
        prompt: loaded.prompts[req.to - 1].clone(),
        bash_since: bash_commands(
            &ToolRegistry::builtin(),
            &loaded.messages[mark.start.min(loaded.messages.len())..],
        ),
        ..Outcome::default()
    };
    let (mut history, mut trimmed) = (None, None);
    if conversation {
        let mut h = loaded.messages.clone();
        h.truncate(mark.start);
        let last = h.len().checked_sub(1);
        if let (Some(k), Some(i)) = (mark.merged_into, last) {
            h[i].content.truncate(k);
            trimmed = Some((i, h[i].clone()));
        }
        if !h.is_empty() {
            validate_history(&h)
                .map_err(|source| RewindError::InvalidHistory { to: req.to, source })?;
        }
        outcome.conversation_truncated_to = Some(h.len());
        history = Some(h);
    }
    if files {
        let entries = store.entries(id)?;
        let done = restore::apply(
            store,
            &restore::plan(&entries, req.to),
            req.overwrite_conflicts,
        );
        let list = |v: &[std::path::PathBuf]| v.iter().map(|p| shown(ws, p)).collect();
        outcome.restored = list(&done.restored);
        outcome.deleted = list(&done.deleted);
        outcome.conflicts = list(&done.conflicts);
        outcome.failed = done
            .failed
            .iter()
            .map(|(p, e)| format!("{}: {e}", shown(ws, p)))
            .collect();
    }
    // The prompts rewound over are gone (their numbers will be reused), or their files are
    // back: either way their checkpoints describe nothing now. A files-only rewind that left
    // conflicts keeps them, so the user can still put those files back later.
    if conversation || (outcome.conflicts.is_empty() && outcome.failed.is_empty()) {
        store
            .append(id, &Entry::Rewind { to: req.to })
            .map_err(CheckpointError::Manifest)?;
    }
    let record = RewindRecord {
        time: now_rfc3339(),
        to_prompt: req.to,
        messages: outcome.conversation_truncated_to,
        files,
        restored: outcome.restored.clone(),
        deleted: outcome.deleted.clone(),
        conflicts: outcome.conflicts.clone(),
    };
    Ok(Performed {
        outcome,
        record,
        history,
        trimmed,
    })
}

/// A path as the user knows it: relative to the workspace when inside it.
fn shown(workspace: &Path, path: &Path) -> String {
    match path.strip_prefix(workspace) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// The one-paragraph summary a front end shows after a rewind.
pub fn describe(o: &Outcome, to: usize) -> String {
    let mut parts = vec![format!("rewound to before prompt {to}")];
    if let Some(n) = o.conversation_truncated_to {
        parts.push(format!("conversation cut to {n} messages"));
    }
    let files = o.restored.len() + o.deleted.len();
    if files > 0 || !o.conflicts.is_empty() {
        parts.push(format!(
            "{} file{} restored, {} deleted",
            o.restored.len(),
            if o.restored.len() == 1 { "" } else { "s" },
            o.deleted.len()
        ));
    }
    let mut text = parts.join("; ");
    if !o.conflicts.is_empty() {
        text.push_str(&format!(
            "; changed by hand since, left as they are: {}",
            o.conflicts.join(", ")
        ));
    }
    if !o.failed.is_empty() {
        text.push_str(&format!("; could not restore: {}", o.failed.join(", ")));
    }
    if let Some(c) = bash_caveat(o.bash_since) {
        text.push_str(". ");
        text.push_str(&c);
    }
    text
}
