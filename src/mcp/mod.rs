//! MCP servers as tools (DESIGN.md §11), on the official Rust SDK (rmcp, client side).
//!
//! Servers start in parallel at launch and never block the first frame; the first request
//! waits for those still starting (each at most its startup timeout) so their tools are
//! offered from request 1. A server that fails is reported and the rest work.

pub mod catalog;
pub mod config;
pub mod connect;
pub mod content;
pub mod defer;
pub mod list;
pub mod notify;
pub mod prompt_use;
pub mod result;
pub mod search_rank;
pub mod server;
pub mod tool;
pub mod tool_search;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;

use crate::protocol::status::{ServerState, ServerStatus};
use crate::tools::Tool;
pub use config::{McpConfigError, McpSection, ServerConfig};
pub use connect::Lookup;
pub use server::{McpServer, StatusSink};

/// Lists a started server's prompts and resources again each time it says they changed;
/// ends with the server (the manager holds the only strong reference).
fn watch_catalog(server: std::sync::Weak<McpServer>) {
    let Some(handler) = server.upgrade().map(|s| s.handler().clone()) else {
        return;
    };
    tokio::spawn(async move {
        loop {
            handler.catalog_changed().await;
            let Some(server) = server.upgrade() else {
                return;
            };
            server.relist_catalog().await;
        }
    });
}

/// Every configured server and the tools of those that started.
pub struct McpManager {
    servers: Vec<Arc<McpServer>>,
    tools: Mutex<Vec<Arc<dyn Tool>>>,
    starting: tokio::sync::Mutex<Vec<JoinHandle<()>>>,
}

impl McpManager {
    /// Launches every server at once and returns without waiting for any.
    pub fn start(
        configs: Vec<ServerConfig>,
        workspace: PathBuf,
        lookup: Arc<Lookup>,
        on_status: StatusSink,
    ) -> Arc<McpManager> {
        let servers: Vec<Arc<McpServer>> = configs
            .into_iter()
            .map(|c| {
                Arc::new(McpServer::new(
                    c,
                    workspace.clone(),
                    lookup.clone(),
                    on_status.clone(),
                ))
            })
            .collect();
        let manager = Arc::new(McpManager {
            servers: servers.clone(),
            tools: Mutex::new(Vec::new()),
            starting: tokio::sync::Mutex::new(Vec::new()),
        });
        let handles = servers
            .into_iter()
            .map(|server| {
                let m = Arc::downgrade(&manager);
                tokio::spawn(async move {
                    let starting = server.clone();
                    let defs = match tokio::spawn(async move { starting.start().await }).await {
                        Ok(Ok(defs)) => defs,
                        Ok(Err(_)) => return,
                        // Never leave a server "starting" forever: a panic is a failure.
                        Err(e) => return server.fail(format!("crashed while starting: {e}")),
                    };
                    if let Some(m) = m.upgrade() {
                        let mut tools = m.tools.lock().unwrap_or_else(|p| p.into_inner());
                        for def in &defs {
                            tools.push(Arc::new(tool::McpTool::new(server.clone(), def)));
                        }
                    }
                    watch_catalog(Arc::downgrade(&server));
                })
            })
            .collect();
        if let Ok(mut s) = manager.starting.try_lock() {
            *s = handles;
        }
        manager
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers.iter().map(|s| s.status()).collect()
    }

    /// Names of servers still starting.
    pub fn pending(&self) -> Vec<String> {
        self.servers
            .iter()
            .map(|s| s.status())
            .filter(|s| s.state == ServerState::Starting)
            .map(|s| s.server)
            .collect()
    }

    /// Waits until every server has started or failed (each is bounded by its own startup
    /// timeout). Cheap once they all have.
    pub async fn wait_started(&self) {
        let handles = std::mem::take(&mut *self.starting.lock().await);
        for h in handles {
            let _ = h.await;
        }
    }

    /// Tools servers listed that cannot be offered, each with why; said once.
    pub fn take_left_out(&self) -> Vec<String> {
        self.servers
            .iter()
            .flat_map(|s| s.take_left_out())
            .collect()
    }

    /// The servers whose tools changed (`list_changed`) since the last call, each listed
    /// again, with its new tools; the manager's own list is updated too.
    pub async fn refresh(&self) -> Vec<(String, Vec<Arc<dyn Tool>>)> {
        let mut changed = Vec::new();
        for server in &self.servers {
            let Some(defs) = server.relist().await else {
                continue;
            };
            let prefix = format!("mcp__{}__", server.config.name);
            let fresh: Vec<Arc<dyn Tool>> = defs
                .iter()
                .map(|d| Arc::new(tool::McpTool::new(server.clone(), d)) as Arc<dyn Tool>)
                .collect();
            let mut tools = self.tools.lock().unwrap_or_else(|p| p.into_inner());
            tools.retain(|t| !t.name().starts_with(&prefix));
            tools.extend(fresh.iter().cloned());
            changed.push((server.config.name.clone(), fresh));
        }
        changed
    }

    /// The tools of every server that started, in server order then the server's order.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools = self.tools.lock().unwrap_or_else(|p| p.into_inner()).clone();
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        tools
    }

    /// Which of `tools` (the started servers' tools) to defer for a context window of
    /// `window` tokens, per `[mcp] defer` and each server's own `defer`; None when none is.
    pub fn deferral(&self, tools: &[Arc<dyn Tool>], window: u64) -> Option<defer::Deferral> {
        let setting_of = |name: &str| {
            self.servers
                .iter()
                .find(|s| name.starts_with(&format!("mcp__{}__", s.config.name)))
                .map_or(defer::DeferSetting::Off, |s| s.config.defer)
        };
        let mut total = 0;
        let mut entries = std::collections::BTreeMap::new();
        let mut setting = defer::DeferSetting::Off;
        for t in tools {
            let spec = crate::message::ToolSpec {
                name: t.name().to_string(),
                description: t.description().to_string(),
                input_schema: t.input_schema(),
                defer_loading: false,
            };
            let tokens = defer::spec_tokens(&spec);
            total += tokens;
            let s = setting_of(t.name());
            if s != defer::DeferSetting::Off {
                setting = s;
                entries.insert(
                    spec.name,
                    defer::Entry {
                        description: spec.description,
                        tokens,
                    },
                );
            }
        }
        (!entries.is_empty() && defer::should_defer(setting, total, window))
            .then(|| defer::Deferral::new(entries))
    }

    /// The server a configured name names.
    pub fn server(&self, name: &str) -> Option<&Arc<McpServer>> {
        self.servers.iter().find(|s| s.config.name == name)
    }

    /// The server and prompt `/mcp__SERVER__PROMPT` names (the longest server name that
    /// fits, since a server's name may hold `__` too); None for any other command.
    pub fn prompt(
        &self,
        command: &str,
    ) -> Option<(Arc<McpServer>, crate::protocol::status::PromptInfo)> {
        let rest = command.strip_prefix("mcp__")?;
        let mut fits: Vec<&Arc<McpServer>> = self
            .servers
            .iter()
            .filter(|s| rest.starts_with(&format!("{}__", s.config.name)))
            .collect();
        fits.sort_by_key(|s| std::cmp::Reverse(s.config.name.len()));
        fits.into_iter().find_map(|s| {
            let name = &rest[s.config.name.len() + 2..];
            let info = s.status().prompts.into_iter().find(|p| p.name == name)?;
            Some((s.clone(), info))
        })
    }

    /// Whether `command` is shaped like an MCP prompt of a configured server (found or
    /// not: one that is not found is said, not sent to the model as text).
    pub fn names_a_server_prompt(&self, command: &str) -> Option<(String, String)> {
        let rest = command.strip_prefix("mcp__")?;
        self.servers
            .iter()
            .filter_map(|s| {
                let prompt = rest.strip_prefix(&format!("{}__", s.config.name))?;
                Some((s.config.name.clone(), prompt.to_string()))
            })
            .max_by_key(|(server, _)| server.len())
    }

    /// Ends every server's connection (stdio servers' processes exit).
    pub async fn shutdown(&self) {
        for s in &self.servers {
            s.shutdown().await;
        }
    }
}
