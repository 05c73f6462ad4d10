//! State reports that cross the channel: each MCP server's state (status bar, `/mcp`,
//! stream-json `mcp` lines) and how each tool call ran (a resumed session's timings).

use serde::{Deserialize, Serialize};

/// A configured MCP server's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    Starting,
    Ready,
    Failed,
}

/// What front ends show of a server (`/mcp`, the status bar, stream-json `mcp` lines).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerStatus {
    pub server: String,
    pub state: ServerState,
    /// The names offered to the model (`mcp__SERVER__TOOL`).
    pub tools: Vec<String>,
    pub error: Option<String>,
}

/// How one tool call ran, as the executor measured it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolTiming {
    /// The tool_use id.
    pub id: String,
    /// RFC 3339 (milliseconds, UTC) when it started; absent when it never did (refused,
    /// invalid input, stopped while queued).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    pub duration_ms: u64,
    /// ok | error | cancelled (the stream-json `tool_end` outcome), or denied: consent was
    /// refused (an error to the model).
    pub outcome: String,
}
