//! MCP servers: the client and headless runs with the fixture server.

mod client;
mod defer;
mod headless;
