//! Overlays drawn over the panes: the approval question, the rewind list, the sessions
//! picker and the help. Each is a leaf: it draws, takes a key and returns what happened
//! (a `Step`, a decision); the controller in `update/` acts on it. None imports app.rs.

pub mod approval;
pub mod approval_choices;
pub mod approval_diff;
pub mod help;
pub mod modal_box;
pub mod rewind;
pub mod sessions;
pub mod subagent;
