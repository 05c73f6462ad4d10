//! Extended thinking from the config to the history, the providers and the TUI.

mod abort;
mod agent_loop;
mod config;
mod history;
mod mock;
mod openai;
mod tui;
