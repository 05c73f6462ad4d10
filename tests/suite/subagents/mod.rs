//! Subagents: limits, timing under the paused clock, headless runs.

mod headless;
mod limits;
mod resumed_rows;
mod timing;
