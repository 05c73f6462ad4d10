//! One line of a transcript. The file is JSON Lines: a header, then records in the order
//! things happened. Replaying the `message` records rebuilds the history exactly.

use serde::{Deserialize, Serialize};

use crate::message::Message;
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
    /// The session's todo list as it now is (the whole list; resuming takes the last).
    Todos {
        time: String,
        todos: Vec<crate::todo::TodoItem>,
    },
}

/// A rewind to just before prompt `to_prompt`: when `messages` is set the history was cut to
/// that many messages (a following message record may trim the last one), and the prompts
/// from `to_prompt` on no longer count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RewindRecord {
    pub time: String,
    pub to_prompt: usize,
    pub messages: Option<usize>,
    pub files: bool,
    pub restored: Vec<String>,
    pub deleted: Vec<String>,
    pub conflicts: Vec<String>,
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

/// A wall-clock time as RFC 3339 to the millisecond.
pub fn rfc3339_ms(t: std::time::SystemTime) -> String {
    jiff::Timestamp::try_from(t)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// Replays message records; Err names what is out of order.
pub fn apply(
    history: &mut Vec<Message>,
    index: usize,
    message: Message,
) -> Result<(), super::error::OutOfOrder> {
    if index == history.len() {
        history.push(message);
        Ok(())
    } else if index + 1 == history.len() {
        history[index] = message;
        Ok(())
    } else {
        Err(super::error::OutOfOrder {
            index,
            len: history.len(),
        })
    }
}
