//! What a compaction reports and how full the window is: the types the agent's context
//! management sends to front ends, transcripts and recordings (serialized forms unchanged).

use serde::{Deserialize, Serialize};

/// Why a compaction ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    Auto,
    Reactive,
    Manual,
    /// Micro-compaction: old tool results replaced by stubs (no summary).
    Micro,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Auto => "auto",
            Trigger::Reactive => "reactive",
            Trigger::Manual => "manual",
            Trigger::Micro => "micro",
        }
    }
}

/// A finished compaction, for front ends and transcripts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compaction {
    pub trigger: Trigger,
    pub pre_tokens: u64,
    pub post_tokens: u64,
    pub messages_before: usize,
    pub messages_after: usize,
    /// The summary text (empty for micro-compaction).
    #[serde(default)]
    pub summary: String,
    /// The state block tooloop appended after the summary (empty for micro-compaction).
    #[serde(default)]
    pub state: String,
    /// What the state block carried over (recordings from before state blocks have none).
    #[serde(default)]
    pub kept: Kept,
}

/// How full the window is and what the session cost so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContextStatus {
    pub context_tokens: u64,
    pub window: u64,
    /// None: the model's prices are unknown.
    pub cost_usd: Option<f64>,
    /// Share of the last request's input read from the cache, 0..=1.
    pub cache_read_share: Option<f64>,
    /// Tokens of tool definitions (issue 39): sent, and held back by deferral. Left out
    /// when there are none (recordings from before it read and write back the same).
    #[serde(default, skip_serializing_if = "ToolTokens::is_none")]
    pub tools: ToolTokens,
}

/// Estimated tokens of the tool definitions (`/context`, the context meter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolTokens {
    /// Definitions every request carries now.
    pub loaded: u64,
    pub loaded_count: usize,
    /// Deferred MCP definitions not found yet: what deferral keeps out of every request.
    pub deferred: u64,
    pub deferred_count: usize,
}

impl ToolTokens {
    pub fn is_none(&self) -> bool {
        *self == ToolTokens::default()
    }
}

/// What a compaction carried over by construction (stream-json `compact.kept`, the TUI's
/// divider). `todos` counts the open items.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub requests: usize,
    pub files_changed: usize,
    pub commands: usize,
    pub todos: usize,
}
