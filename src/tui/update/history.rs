//! Events that replace what the screen shows of the history: a new conversation, a rewind or
//! a resume (HistoryReset, with the timings and earlier messages sent before it), a
//! compaction, a resumed prompt that was never answered.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tokio::time::Instant;

use crate::message::{ContentBlock, Message, Role};
use crate::protocol::ToolOutcome;
use crate::protocol::compaction::{Compaction, Trigger};
use crate::protocol::status::ToolTiming;
use crate::tui::app::App;
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;
use crate::tui::text::streaming::StreamingMarkdown;
use crate::tui::tool_calls::ToolState;
use crate::tui::update::history_rows::RowSources;
use crate::tui::update::tool_events::Scope;

impl App {
    pub(super) fn history_reset(
        &mut self,
        messages: Vec<Arc<Message>>,
        summaries: HashMap<String, String>,
        now: Instant,
    ) {
        self.panes.conversation.clear();
        let earlier = std::mem::take(&mut self.history.earlier);
        let earlier_summaries = std::mem::take(&mut self.history.earlier_summaries);
        let subagents = std::mem::take(&mut self.history.resumed_subagents);
        // A new conversation, rewind or resume: the resumed session's compacted
        // messages (if any) are the ones to export.
        self.history.compacted = earlier.clone();
        self.panes.tools.reset();
        self.panes.tools.lanes.clear();
        self.history.subagents.clear();
        for m in &earlier {
            let text = m.text();
            if !text.trim().is_empty() {
                self.panes.conversation.push(CellKind::Earlier {
                    user: m.role == Role::User,
                    text,
                });
            }
        }
        self.turn.turn = 0;
        self.turn.usage = Default::default();
        let mut timings = std::mem::take(&mut self.history.timings);
        // A rewind, /undo or /fork brings back calls this screen already showed: where
        // the reset carries no timing for them, their last known end (cancelled,
        // denied, with its duration) stands, not a guess from `is_error`.
        for m in earlier.iter().chain(messages.iter().map(|m| &**m)) {
            for block in &m.content {
                if let ContentBlock::ToolUse { id, .. } = block
                    && !timings.contains_key(id)
                    && let Some(t) = self.panes.tool_calls.get(id).and_then(known_timing)
                {
                    timings.insert(id.clone(), t);
                }
            }
        }
        let sources = RowSources {
            timings: &timings,
            subagents: &subagents,
        };
        let shown: HashSet<&str> = messages
            .iter()
            .flat_map(|m| m.tool_uses().map(|(id, _, _)| id))
            .collect();
        for m in &earlier {
            self.replay_earlier_rows(m, &earlier_summaries, &shown, &sources, now);
        }
        for m in &messages {
            self.replay(m, &summaries, &sources, now);
        }
        // Calls neither pane shows any more are forgotten.
        let (conversation, tools) = (&self.panes.conversation, &self.panes.tools);
        self.panes
            .tool_calls
            .retain(|id| conversation.shows_tool(id) || tools.shows(id));
        if messages.is_empty() {
            self.panes
                .conversation
                .push(CellKind::Notice(strings::NEW_CONVERSATION.into()));
        }
        self.panes.json.reset_history(messages);
    }

    pub(super) fn compacted(&mut self, info: Compaction, messages: Vec<Message>) {
        if info.trigger != Trigger::Micro {
            self.panes.conversation.push(CellKind::Compacted {
                trigger: info.trigger.as_str().into(),
                pre_tokens: info.pre_tokens,
                post_tokens: info.post_tokens,
                summary: info.summary,
                state: info.state,
                kept: info.kept,
            });
            self.panes.conversation.scroll.bottom();
        }
        self.keep_compacted(&messages);
        self.panes
            .json
            .reset_history(messages.into_iter().map(Arc::new).collect());
        if self.turn.compacting {
            self.compaction_ended();
        }
    }

    /// The same rule as a live failure: the text waits in the input, ahead of what was
    /// typed, and goes only if the user sends it.
    pub(super) fn prompt_not_sent(&mut self, text: String) {
        self.panes
            .conversation
            .push(CellKind::Error(strings::resumed_not_sent(&text)));
        let mut parts = vec![text];
        if !self.input.is_empty() {
            parts.push(self.input.text());
        }
        self.input.set_text(&parts.join("\n"));
    }

    /// Rebuilds cells and tool rows from a resumed history; the timings (from the
    /// transcript) give each call its outcome and duration as it ran.
    fn replay(
        &mut self,
        m: &Message,
        summaries: &HashMap<String, String>,
        sources: &RowSources,
        now: Instant,
    ) {
        for block in &m.content {
            match block {
                ContentBlock::Text { text, .. } if m.role == Role::User => self.replay_user(text),
                ContentBlock::Text { text, .. } => {
                    self.panes
                        .conversation
                        .push(CellKind::Assistant(StreamingMarkdown::finished(text)));
                }
                ContentBlock::Thinking { thinking, .. } => {
                    self.panes.conversation.push(CellKind::Thinking {
                        text: thinking.clone(),
                        streaming: false,
                    })
                }
                ContentBlock::RedactedThinking { .. } => {}
                ContentBlock::Image { source } => {
                    self.panes.conversation.push(CellKind::Notice(format!(
                        "[image {}]",
                        crate::message::image::human_size(source.byte_len())
                    )))
                }
                ContentBlock::Other(v) => self.panes.conversation.push(CellKind::Notice(
                    crate::tui::text::server_lines::describe(v),
                )),
                ContentBlock::ToolUse { id, name, .. } => {
                    let summary = summaries.get(id).map_or("", String::as_str);
                    self.replay_call(id, name, summary, now);
                    self.show_tool(&Scope::Main, id);
                    self.replay_subagents(id, None, id, sources, now);
                }
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } => {
                    let timing = sources.timings.get(tool_use_id);
                    self.replay_result(tool_use_id, timing, *is_error, content);
                }
            }
        }
    }

    /// A user's text block of a resumed history: a compaction divider, an interruption, an
    /// `@file` line, a `!command` with its output, or the prompt.
    fn replay_user(&mut self, text: &str) {
        use crate::message::markers::Marker;
        match crate::message::markers::parse(text) {
            // A resumed session that was compacted: the divider, not the text.
            Some(Marker::Summary(s)) => self.panes.conversation.push(CellKind::Compacted {
                trigger: "earlier".into(),
                pre_tokens: 0,
                post_tokens: 0,
                summary: s.summary.to_string(),
                state: s.state.unwrap_or_default().to_string(),
                kept: Default::default(),
            }),
            Some(Marker::Interrupt) => self.panes.conversation.push(CellKind::Interrupted),
            // An `@file` block: one line, not the file.
            Some(Marker::Mention(label)) => self.panes.conversation.push(CellKind::Notice(label)),
            Some(Marker::Shell { command, output }) => {
                self.panes.tools.begin_group(&command);
                self.panes.conversation.push(CellKind::User(command));
                self.panes.conversation.push(CellKind::Notice(output));
            }
            // Told to the model; the jobs pane showed the user.
            Some(Marker::JobNotice(_)) => {}
            // The prompt as typed came first; the skill's (or MCP prompt's) text is for the
            // model.
            Some(Marker::Skill(name)) => {
                let kind = if name.starts_with("mcp__") {
                    "MCP prompt"
                } else {
                    "skill"
                };
                self.panes
                    .conversation
                    .push(CellKind::Notice(format!("{kind} /{name}")))
            }
            None => {
                self.panes.tools.begin_group(text);
                self.panes
                    .conversation
                    .push(CellKind::User(text.to_string()));
            }
        }
    }
}

/// The timing a finished call shown on screen stands for (its outcome and duration), for a
/// history reset that brings it back; None while it has not ended.
fn known_timing(c: &crate::tui::tool_calls::ToolCall) -> Option<ToolTiming> {
    let outcome = match c.state {
        ToolState::Ok => ToolOutcome::Ok,
        ToolState::Error => ToolOutcome::Error,
        ToolState::Cancelled => ToolOutcome::Cancelled,
        ToolState::Denied => ToolOutcome::Denied,
        _ => return None,
    };
    Some(ToolTiming {
        id: c.id.clone(),
        outcome,
        started: None,
        duration_ms: c.duration_ms.unwrap_or(0),
    })
}
