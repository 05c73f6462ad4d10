//! Approval modes, rules and batches of tool calls.

mod batch;
mod headless;
mod modes;
mod rules;
