//! The real binary in a real terminal: tmux at 80x24 and 200x50. Skipped without tmux unless TOOLOOP_REQUIRE_ALL.

mod background;
mod basics;
mod commands;
mod extensions;
mod hooks_review;
mod input;
mod keys;
mod mock;
mod provider_features;
mod replay;
mod status_line;
mod steer;
mod steering;
mod subagents;
