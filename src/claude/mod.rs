//! Claude Code's `.claude/` folder read as it is (DESIGN.md §13): its settings.json
//! (permission rules, hooks, status line) and its tool names, translated at this edge onto
//! tooloop's own rules, hooks and tools. Nothing here decides or runs anything itself.

pub mod review;
pub mod rules;
pub mod settings;
pub mod watch;
