//! State reports that cross the channel: each MCP server's state (status bar, `/mcp`,
//! stream-json `mcp` lines) and how each tool call ran (a resumed session's timings and
//! subagents).

use std::collections::HashMap;

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
    /// Its prompts (`prompts/list`): the `/mcp__SERVER__PROMPT` commands.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PromptInfo>,
    /// Its resources (`resources/list`) and templates: what `@SERVER:URI` completes to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceInfo>,
}

/// One prompt a server offers, as the `/` menu shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptInfo {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArg>,
}

/// One argument of a prompt; `/mcp__S__P` takes them in this order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptArg {
    pub name: String,
    #[serde(default)]
    pub required: bool,
}

/// One resource (or resource template, `template` set) a server offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceInfo {
    /// The URI, or the template's URI template (`file:///{path}`).
    pub uri: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub template: bool,
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
    /// The `tool_end` outcome, or Denied: consent was refused (an error to the model).
    /// Saved as `ok`, `error`, `cancelled`, `denied`, as it always was.
    pub outcome: crate::protocol::ToolOutcome,
}

/// A subagent of a resumed (or rewound) session as its transcript kept it, for front ends
/// to list it as it ran: its number and task (`info`; `model` is empty, it was not kept),
/// its conversation, and its calls' summaries and timings (by its own tool_use ids).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResumedSubagent {
    pub info: crate::protocol::subagent::AgentInfo,
    pub messages: Vec<crate::message::Message>,
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    pub summaries: HashMap<String, String>,
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    pub timings: HashMap<String, ToolTiming>,
    /// How it ended (None: the transcript is older than this record, or it never ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<AgentEnded>,
}

/// How a subagent's loop ended, as its transcript keeps it: the parts of its `agent_end`
/// report a resumed row shows (`completed · 30 tokens`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentEnded {
    pub reason: crate::protocol::Terminal,
    pub turns: u32,
    pub usage: crate::provider::Usage,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolOutcome;

    /// Transcripts keep the outcome as the strings they always had; one written by a newer
    /// tooloop with an outcome this one does not know still loads (as an error).
    #[test]
    fn a_timing_keeps_its_outcome_strings() {
        for (text, outcome) in [
            ("ok", ToolOutcome::Ok),
            ("error", ToolOutcome::Error),
            ("cancelled", ToolOutcome::Cancelled),
            ("denied", ToolOutcome::Denied),
        ] {
            let line = format!(r#"{{"id":"t1","duration_ms":7,"outcome":"{text}"}}"#);
            let timing: ToolTiming = serde_json::from_str(&line).expect("loads");
            assert_eq!(timing.outcome, outcome);
            assert_eq!(serde_json::to_string(&timing).expect("saves"), line);
        }
        let newer = r#"{"id":"t1","duration_ms":7,"outcome":"timed_out"}"#;
        let timing: ToolTiming = serde_json::from_str(newer).expect("loads");
        assert_eq!(timing.outcome, ToolOutcome::Error);
    }
}
