//! The approval question and its answer as they cross the channel: what a tool call would do
//! (tools answer it, the events carry it, front ends draw it without knowing tool or field
//! names) and the user's decision.

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
}

/// A user's answer to "may this tool run?".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    AllowOnce,
    AllowForSession,
    Deny { reason: Option<String> },
}

impl Decision {
    pub fn is_allow(&self) -> bool {
        !matches!(self, Decision::Deny { .. })
    }
}
