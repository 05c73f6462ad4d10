//! The tools pane's rows of a history put back (a resume, a rewind): the calls that
//! compactions replaced keep their rows and their prompts' groups (the group numbers go on
//! from there), and each `task` call gets its subagent's number and calls under it, as
//! they were shown live (issue 41, item 3 and item 19).

use std::collections::{HashMap, HashSet};

use tokio::time::Instant;

use crate::message::{ContentBlock, Message, Role};
use crate::protocol::status::{ResumedSubagent, ToolTiming};
use crate::protocol::subagent::scoped_id;
use crate::tui::app::App;
use crate::tui::tool_calls::ToolState;

/// What a history reset rebuilds its rows from, besides the messages themselves.
pub(super) struct RowSources<'a> {
    pub timings: &'a HashMap<String, ToolTiming>,
    pub subagents: &'a [ResumedSubagent],
}

impl App {
    /// The rows and prompt groups of messages a compaction replaced: listed in the tools
    /// pane (not in the conversation, which shows them as dimmed text). `shown` holds the
    /// ids of the history that follows: an old transcript where the model used one of them
    /// again gets this call its own row, not the later call's.
    pub(super) fn replay_earlier_rows(
        &mut self,
        m: &Message,
        summaries: &HashMap<String, String>,
        shown: &HashSet<&str>,
        sources: &RowSources,
        now: Instant,
    ) {
        let key = |id: &str| match shown.contains(id) {
            true => format!("{id} (earlier)"),
            false => id.to_string(),
        };
        for block in &m.content {
            match block {
                ContentBlock::Text { text, .. } if m.role == Role::User => {
                    use crate::message::markers::Marker;
                    match crate::message::markers::parse(text) {
                        Some(Marker::Shell { command, .. }) => {
                            self.panes.tools.begin_group(&command)
                        }
                        Some(_) => {}
                        None => self.panes.tools.begin_group(text),
                    }
                }
                ContentBlock::ToolUse { id, name, .. } => {
                    let row = key(id);
                    let summary = summaries.get(id).map_or("", String::as_str);
                    self.replay_call(&row, name, summary, now);
                    self.panes.tools.add(&row);
                    self.replay_subagents(id, None, &row, sources, now);
                }
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } => {
                    let row = key(tool_use_id);
                    // A clashing id's timing is the later call's.
                    let timing = (row == *tool_use_id)
                        .then(|| sources.timings.get(tool_use_id))
                        .flatten();
                    self.replay_result(&row, timing, *is_error, content);
                }
                _ => {}
            }
        }
    }

    /// A call's row as the history holds it (its result, if any, comes after).
    pub(super) fn replay_call(&mut self, row: &str, name: &str, summary: &str, now: Instant) {
        let calls = &mut self.panes.tool_calls;
        calls.upsert(row, name, summary, ToolState::Ok, now);
        // The row is this call's: a name kept from an earlier one never stands.
        calls.update(row, |c| {
            if c.name != name {
                c.name = name.to_string();
            }
        });
    }

    /// How a call ended: its recorded outcome and duration, else a guess from `is_error`.
    pub(super) fn replay_result(
        &mut self,
        row: &str,
        timing: Option<&ToolTiming>,
        is_error: bool,
        content: &str,
    ) {
        self.panes.tool_calls.update(row, |c| {
            c.state = match timing {
                Some(t) => t.outcome.into(),
                None if is_error => ToolState::Error,
                None => ToolState::Ok,
            };
            c.duration_ms = timing.map(|t| t.duration_ms);
            c.output = content.to_string();
        })
    }

    /// The subagents the `task` call `call` (made by `parent`, None: the top-level agent)
    /// started, under its row `row`: each one's number, task and calls.
    pub(super) fn replay_subagents(
        &mut self,
        call: &str,
        parent: Option<&str>,
        row: &str,
        sources: &RowSources,
        now: Instant,
    ) {
        let children = sources.subagents.iter().filter(|s| {
            s.info.parent_tool_use_id == call && s.info.parent_agent_id.as_deref() == parent
        });
        for child in children {
            let agent_id = child.info.agent_id.as_str();
            let duration = match parent {
                None => sources.timings.get(call),
                Some(p) => sources
                    .subagents
                    .iter()
                    .find(|s| s.info.agent_id == p)
                    .and_then(|s| s.timings.get(call)),
            };
            let duration = duration.map(|t| t.duration_ms);
            self.history.subagents.resumed(child, duration, now);
            for block in child.messages.iter().flat_map(|m| &m.content) {
                match block {
                    ContentBlock::ToolUse { id, name, .. } => {
                        let scoped = scoped_id(agent_id, id);
                        let summary = child.summaries.get(id).map_or("", String::as_str);
                        self.replay_call(&scoped, name, summary, now);
                        self.panes.tools.add_under(row, &scoped);
                        self.replay_subagents(id, Some(agent_id), &scoped, sources, now);
                    }
                    ContentBlock::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                        ..
                    } => {
                        let timing = child.timings.get(tool_use_id);
                        let scoped = scoped_id(agent_id, tool_use_id);
                        self.replay_result(&scoped, timing, *is_error, content);
                    }
                    _ => {}
                }
            }
        }
        // The task row's line names the agent, as live (`explore #2 · find it · 3 tools`).
        if let Some(lane) = self.history.subagents.by_row(row) {
            let status = lane.status();
            self.panes.tool_calls.update(row, |c| c.summary = status);
        }
    }
}
