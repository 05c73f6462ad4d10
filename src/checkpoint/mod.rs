//! Checkpoints: the state of every file a tool edits, saved before the edit, so a rewind can
//! put the files back as they were before any prompt of the session (DESIGN.md, issue 15).
//! store.rs keeps contents and manifests, tracking.rs takes checkpoints as tools run,
//! restore.rs writes them back.

pub mod error;
pub mod restore;
mod sha256;
pub mod store;
pub mod tracking;

pub use store::{Entry, FileState, Store};
pub use tracking::{Checkpoints, Tracking};
