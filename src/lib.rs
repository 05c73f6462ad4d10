//! tooloop: a terminal agent whose tool-calling loop you can watch.
//!
//! The data path (DESIGN.md §1): a front end (the TUI or headless mode) sends
//! [`protocol::AgentCommand`]s to the agent task and receives
//! [`protocol::AgentEvent`]s; the agent runs the query loop over a
//! [`provider::Provider`] and the [`agent::executor::StreamingToolExecutor`].

pub mod acp;
pub mod agent;
pub mod background;
pub mod checkpoint;
pub mod child_trace_context;
pub mod claude;
pub mod cli;
pub mod config;
pub mod config_file;
pub mod engine;
pub mod export;
pub mod headless;
pub mod hooks;
pub mod http;
pub mod interrupt;
pub mod logging;
pub mod mcp;
pub mod message;
pub mod models;
pub mod paths;
pub mod permission;
pub mod process;
pub mod prompt;
pub mod protocol;
pub mod provider;
pub mod recording;
pub mod replay;
pub mod sandbox;
pub mod sanitize;
pub mod session;
pub mod settings;
pub mod skills;
pub mod telemetry;
pub mod text;
pub mod todo;
pub mod tools;
pub mod trace;
pub mod tui;
pub mod worktree;
