//! The TUI's state, rendering (insta snapshots in snapshots/) and event loop, without a terminal.

mod approval;
mod commands;
mod compose;
mod config_keys;
mod context;
mod cost_prices;
mod event_loop;
mod export;
mod imports;
mod info_commands;
mod json_stepper;
mod lanes;
mod mcp_input;
mod models;
mod mouse;
mod render;
mod render_80x24;
mod reset_states;
mod resume;
mod rows_after_rewind;
mod sessions;
mod state;
mod steering;
mod tool_groups;
