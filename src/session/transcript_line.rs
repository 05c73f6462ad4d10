//! One line of a transcript. The file is JSON Lines: a header, then records in the order
//! things happened. Replaying the `message` records rebuilds the history exactly.

use serde::{Deserialize, Serialize};

use crate::message::Message;
use crate::protocol::history_observer::RewindRecord;
use crate::protocol::status::ToolTiming;
use crate::provider::Usage;

/// Bumped when a change would make old readers misread new files.
pub const FORMAT: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// Always the first line.
    Header(Header),
    /// history[index] is now `message`: an append when index is the history's length, the
    /// last message extended (written whole) when index is the last index. `tools` holds how
    /// the calls answered in `message` ran (absent in older transcripts, ignored by older
    /// readers), so a resumed session shows their durations.
    Message {
        index: usize,
        message: Message,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tools: Vec<ToolTiming>,
    },
    PromptStart {
        time: String,
        prompt: String,
        model: String,
        /// The provider the prompt went to (absent in older transcripts): a resume says
        /// when it now goes elsewhere.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider: Option<String>,
    },
    /// A compaction boundary: from here on the history is `messages` (the summary and the
    /// kept recent turns); the `replaced` messages before stay in the file above. Resuming
    /// starts from the last boundary.
    Compaction {
        time: String,
        trigger: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        summary: String,
        replaced: usize,
        pre_tokens: u64,
        post_tokens: u64,
        messages: Vec<Message>,
    },
    PromptEnd {
        time: String,
        reason: String,
        turns: u32,
        usage: Usage,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A rewind (src/session/rewind.rs). What it cut stays above it in the file.
    Rewind(RewindRecord),
    /// A subagent's history[index] is now `message` (DESIGN.md §12): each child's
    /// conversation is kept beside the parent's, applied like `message` records.
    AgentMessage {
        agent_id: String,
        parent_tool_use_id: String,
        agent: String,
        index: usize,
        message: Message,
        /// How the calls answered in `message` ran (absent in older transcripts).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tools: Vec<ToolTiming>,
        /// Set when the child ended: its last message is written again with how it ended
        /// (replacing the last message by itself, so older readers load the same history).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end: Option<crate::protocol::status::AgentEnded>,
    },
    /// A background job started or ended; the last record of a `shell_id` is how it was
    /// last seen (a resumed session lists it as ended, never running).
    Background {
        time: String,
        job: crate::background::JobInfo,
    },
    /// The session's todo list as it now is (the whole list; resuming takes the last).
    Todos {
        time: String,
        todos: Vec<crate::todo::TodoItem>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub id: String,
    /// RFC 3339, UTC.
    pub created: String,
    /// The canonical workspace path: --continue picks sessions by it.
    pub workspace: String,
    pub tooloop_version: String,
    pub format: u32,
    /// The session this one was forked from (`--fork`, `/fork`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
}

/// Now, as RFC 3339 to the second.
pub fn now_rfc3339() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// The timings in `pending` of the calls `message` answers, taken out of it (they go into
/// that message's record).
pub fn answered(pending: &mut Vec<ToolTiming>, message: &Message) -> Vec<ToolTiming> {
    if pending.is_empty() {
        return Vec::new();
    }
    let ids: Vec<&str> = message
        .content
        .iter()
        .filter_map(|b| match b {
            crate::message::ContentBlock::ToolResult { tool_use_id, .. } => {
                Some(tool_use_id.as_str())
            }
            _ => None,
        })
        .collect();
    let (these, rest) = std::mem::take(pending)
        .into_iter()
        .partition(|t| ids.contains(&t.id.as_str()));
    *pending = rest;
    these
}

/// Replays message records; Err names what is out of order.
pub fn apply(
    history: &mut Vec<Message>,
    index: usize,
    message: Message,
) -> Result<(), crate::protocol::session_error::OutOfOrder> {
    if index == history.len() {
        history.push(message);
        Ok(())
    } else if index + 1 == history.len() {
        history[index] = message;
        Ok(())
    } else {
        Err(crate::protocol::session_error::OutOfOrder {
            index,
            len: history.len(),
        })
    }
}
