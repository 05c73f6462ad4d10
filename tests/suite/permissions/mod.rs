//! Approval modes, rules and batches of tool calls.

mod always_allow;
mod batch;
mod headless;
mod modes;
mod rules;
