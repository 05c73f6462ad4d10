//! MCP servers: the client and headless runs with the fixture server.

mod bad_input;
mod client;
mod defer;
mod headless;
mod list_changed;
mod prompts;
