//! The integration suite, one test binary: every area under `suite/`, one `support/`.
//!
//! One binary links the crate once, instead of once per file (113 binaries before issue 36:
//! 5.3 GB of target/ on a clean clone). What cannot share a process with the rest is its own
//! binary: `architecture.rs` (reads the source, no crate), `environment.rs` (CI's first
//! check, built alone) and `tui_no_color.rs` (installs the process-wide theme).

mod suite;
mod support;
