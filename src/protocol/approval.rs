//! The approval question and its answer as they cross the channel: what a tool call would do
//! (tools answer it, the events carry it, front ends draw it without knowing tool or field
//! names) and the user's decision.

use serde::{Deserialize, Serialize};

use crate::protocol::approval_mode::ApprovalMode;

/// What a tool call would do, shown before the user approves it. Tools answer it
/// (`Tool::preview`); front ends draw it without knowing tool or field names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// A user's answer to "may this tool run?".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    AllowOnce,
    AllowForSession,
    /// Allow, and append this rule to `.tooloop/settings.local.toml` ("always allow … in
    /// this project"): it holds from now on and in later sessions.
    AllowRule {
        rule: String,
    },
    /// The plan of `exit_plan_mode` is approved: go on in this mode.
    ApprovePlan {
        mode: ApprovalMode,
    },
    Deny {
        reason: Option<String>,
    },
    /// Deny, and append this rule to the `deny` list of `.tooloop/settings.local.toml`
    /// ("always reject … in this project"): the call is refused from now on without asking.
    DenyRule {
        rule: String,
    },
}

impl Decision {
    pub fn is_allow(&self) -> bool {
        !matches!(self, Decision::Deny { .. } | Decision::DenyRule { .. })
    }
}

/// One rule in force, for a front end's listing (`/permissions`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleLine {
    /// `allow`, `ask` or `deny`.
    pub kind: String,
    /// The rule as written (`bash(cargo test:*)`).
    pub rule: String,
    pub source: String,
}

/// The rule that decided, as `permission` lines and the approval box name it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleRef {
    /// The rule as written (`bash(cargo test:*)`).
    pub rule: String,
    /// The file it came from, or `session` / `--allow-tool` for grants.
    pub source: String,
}

/// Why a call asks, for the approval box.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AskWhy {
    /// An `ask` rule (and its file) made it ask.
    pub rule: Option<RuleRef>,
    /// The recursive-delete guard caught this target.
    pub guarded: Option<String>,
    /// The rule "always allow … in this project" proposes (`bash(cargo test:*)`); None when
    /// no rule could cover the call.
    pub suggestion: Option<String>,
}
