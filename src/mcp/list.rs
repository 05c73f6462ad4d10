//! `tooloop mcp list`: starts the configured servers, prints each one's state and tools, and
//! says by its exit status whether all of them are ready (0) or any failed (1).

use std::path::PathBuf;
use std::sync::Arc;

use super::{McpManager, ServerConfig};
use crate::protocol::status::ServerState;
use crate::sanitize::output::{for_stderr, for_stdout};

pub async fn run(servers: Vec<ServerConfig>, workspace: PathBuf) -> i32 {
    if servers.is_empty() {
        println!("no MCP servers configured (add [mcp.servers.NAME] to config.toml)");
        return 0;
    }
    let manager = McpManager::start(
        servers,
        workspace,
        Arc::new(|name: &str| std::env::var(name).ok()),
        Arc::new(|_| {}),
    );
    manager.wait_started().await;
    let mut all_ready = true;
    for s in manager.statuses() {
        // Names and errors come from the servers: printed clean of escape sequences.
        let server = for_stdout(&s.server);
        match s.state {
            ServerState::Ready => {
                println!("{server}: ready, {} tools", s.tools.len());
                for tool in &s.tools {
                    println!("  {}", for_stdout(tool));
                }
            }
            ServerState::Failed | ServerState::Starting => {
                all_ready = false;
                let why = s.error.as_deref().unwrap_or("did not start");
                println!("{server}: failed: {}", for_stdout(why));
                eprintln!(
                    "tooloop: MCP server {} failed: {}",
                    for_stderr(&s.server),
                    for_stderr(why)
                );
            }
        }
    }
    manager.shutdown().await;
    if all_ready { 0 } else { 1 }
}
