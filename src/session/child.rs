//! A subagent's transcript records: its messages go into the parent's transcript file as
//! `agent_message` lines, appended through a file handle of their own (the file is opened
//! for appending and every record is one `write` of a whole line, so the parent's lines and
//! the children's never tear each other).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use crate::message::Message;
use crate::protocol::TurnSummary;
use crate::protocol::history_observer::HistoryObserver;
use crate::protocol::status::{AgentEnded, ToolTiming};

/// Borrowing twin of `Record::AgentMessage`.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename = "agent_message")]
struct AgentMessageRecord<'a> {
    agent_id: &'a str,
    parent_tool_use_id: &'a str,
    agent: &'a str,
    index: usize,
    message: &'a Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolTiming>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<AgentEnded>,
}

pub struct ChildTranscript {
    file: Option<File>,
    agent_id: String,
    parent_tool_use_id: String,
    agent: String,
    /// How the latest reply's calls ran, written with the message that answers them.
    pending: Vec<ToolTiming>,
    /// The last message written (its index): written again with how the child ended.
    last: Option<(usize, Message)>,
}

impl ChildTranscript {
    /// Appends to the transcript at `path`, which the parent has already begun (the prompt
    /// that led to the `task` call is in it). None when it cannot be opened: the child then
    /// runs without a record, like a session with transcripts off.
    pub fn open(
        path: &Path,
        agent_id: &str,
        parent_tool_use_id: &str,
        agent: &str,
    ) -> Option<Self> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| tracing::warn!("subagent transcript {}: {e}", path.display()))
            .ok()?;
        Some(ChildTranscript {
            file: Some(file),
            agent_id: agent_id.to_string(),
            parent_tool_use_id: parent_tool_use_id.to_string(),
            agent: agent.to_string(),
            pending: Vec::new(),
            last: None,
        })
    }
}

impl ChildTranscript {
    fn write(&mut self, index: usize, message: &Message, end: Option<AgentEnded>) {
        let Some(file) = &mut self.file else { return };
        let record = AgentMessageRecord {
            agent_id: &self.agent_id,
            parent_tool_use_id: &self.parent_tool_use_id,
            agent: &self.agent,
            index,
            message,
            tools: super::transcript_line::answered(&mut self.pending, message),
            end,
        };
        let Ok(mut line) = serde_json::to_vec(&record) else {
            return;
        };
        line.push(b'\n');
        if let Err(e) = file.write_all(&line) {
            tracing::warn!("subagent transcript: {e}; the rest of its history is not saved");
            self.file = None;
        }
    }
}

impl HistoryObserver for ChildTranscript {
    fn message(&mut self, index: usize, message: &Message) {
        if self.file.is_none() {
            return;
        }
        self.write(index, message, None);
        self.last = Some((index, message.clone()));
    }

    fn tool_runs(&mut self, runs: &[ToolTiming]) {
        self.pending = runs.to_vec();
    }

    fn prompt_start(&mut self, _prompt: &str, _model: &str) {}

    fn prompt_end(&mut self, summary: &TurnSummary) {
        // A resumed session shows how it ended (`completed · 30 tokens`), as live.
        if let Some((index, message)) = self.last.take() {
            let end = AgentEnded {
                reason: summary.reason,
                turns: summary.turns,
                usage: summary.usage,
            };
            self.write(index, &message, Some(end));
        }
        if let Some(f) = &self.file {
            let _ = f.sync_data();
        }
    }
}
