//! The controller: everything that changes the App. Agent events (agent.rs dispatches;
//! tool_events.rs for either scope, subagent.rs, history.rs), keys, paste and
//! mouse (keys.rs, mouse.rs), the input's menu, `@` completion and editor (compose.rs),
//! slash commands (slash.rs), and the App's side of each overlay and pane
//! answer (rewind.rs, sessions.rs, bars.rs, clipboard.rs, extensions.rs). Panes and overlays
//! return what happened; the files here decide what it means.

pub mod agent;
pub mod bars;
pub mod clipboard;
pub mod compose;
pub mod export;
pub mod extensions;
pub mod history;
pub mod history_rows;
pub mod info_commands;
pub mod jobs;
pub mod keys;
pub mod mcp_input;
pub mod mouse;
pub mod paste_burst;
pub mod rewind;
pub mod sessions;
pub mod slash;
pub mod subagent;
pub mod tool_events;
