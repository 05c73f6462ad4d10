//! What a tool call would do, for the approval prompt: tools answer it, the events carry it,
//! front ends draw it without knowing tool or field names.

use serde::Serialize;

/// What a tool call would do, shown before the user approves it. Tools answer it
/// (`Tool::preview`); front ends draw it without knowing tool or field names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Preview {
    /// A shell command line; `note` is a detail such as its timeout.
    Command { text: String, note: Option<String> },
    /// A change to an existing file as a unified diff (`@@` hunks, `-`/`+`/` ` lines).
    Diff {
        path: String,
        unified_diff: String,
        note: Option<String>,
    },
    /// A file written whole with this content.
    NewFile { path: String, content: String },
    /// A plan in markdown (`exit_plan_mode`): approve it, or send feedback.
    Plan { markdown: String },
}
