//! The approval mode: how much the agent may do unasked. A leaf, so the channel's types
//! (`protocol::approval::Decision`) can name it.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Every change needs consent.
    #[default]
    Ask,
    /// File edits inside the workspace are allowed; commands ask, unless the shell's
    /// sandbox is on (then they run unasked, contained).
    AutoEdit,
    /// Only read-only tools run until the model's plan is approved (`exit_plan_mode`).
    Plan,
    /// Everything is allowed.
    Yolo,
    /// Changes are refused without asking.
    ReadOnly,
}

impl ApprovalMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Ask => "ask",
            ApprovalMode::AutoEdit => "auto-edit",
            ApprovalMode::Plan => "plan",
            ApprovalMode::Yolo => "yolo",
            ApprovalMode::ReadOnly => "read-only",
        }
    }

    pub fn parse(s: &str) -> Option<ApprovalMode> {
        <ApprovalMode as ValueEnum>::from_str(s.trim(), true).ok()
    }

    /// Shift+Tab in the TUI: ask → auto-edit → plan → ask (yolo and read-only only by flag
    /// or `/approval`; from them the cycle starts again at ask).
    pub fn next_in_cycle(self) -> ApprovalMode {
        match self {
            ApprovalMode::Ask => ApprovalMode::AutoEdit,
            ApprovalMode::AutoEdit => ApprovalMode::Plan,
            _ => ApprovalMode::Ask,
        }
    }
}
