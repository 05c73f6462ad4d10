//! Every area of the integration suite; a folder per part of tooloop.

mod acp;
mod agent;
mod background;
mod config;
mod context;
mod fuzz;
mod guards;
mod headless;
mod mcp;
mod permissions;
mod providers;
mod sandbox;
mod session;
mod subagents;
mod thinking;
mod tmux;
mod tools;
mod tui;
mod worktrees;
