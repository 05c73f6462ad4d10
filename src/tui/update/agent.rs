//! How each AgentEvent changes what the screen shows. Times are taken on receipt (`now`).

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::message::{ContentBlock, Message, Role};
use crate::protocol::status::ToolTiming;
use crate::protocol::{AgentEvent, Terminal, TurnSummary};
use crate::tui::app::{App, NOTE_WINDOW};
use crate::tui::overlays::approval::ApprovalRequest;
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;
use crate::tui::text::streaming::StreamingMarkdown;
use crate::tui::tool_calls::ToolState;

/// Live output kept per tool call while it runs (the final output replaces it).
const MAX_PROGRESS_BYTES: usize = 64 * 1024;

impl App {
    pub fn on_agent(&mut self, event: AgentEvent, now: Instant) {
        for pane in &mut self.panes {
            pane.on_agent(&event, now);
        }
        // Any word from this agent (a subagent's are its own) is a sign of life: the status
        // counts the silence from it (`state_label`).
        if !matches!(event, AgentEvent::Subagent { .. }) {
            self.turn.heard_at = Some(now);
        }
        match event {
            AgentEvent::AgentStart(info) => self.on_agent_start(info, now),
            AgentEvent::AgentEnd(report) => self.on_agent_end(report, now),
            AgentEvent::Subagent {
                agent_id, event, ..
            } => self.on_subagent(&agent_id, *event, now),
            AgentEvent::PromptStart { text } => {
                self.turn.busy = true;
                self.turn.last_error = None;
                self.turn.unanswered = Some(text.clone());
                self.tools.prompt_started(now);
                self.tools.begin_group(&text);
                self.conversation.push(CellKind::User(text));
                self.conversation.scroll.bottom();
            }
            AgentEvent::TurnStart { turn } => self.turn.turn = turn,
            AgentEvent::RequestStart {
                body,
                turn,
                attempt,
                ..
            } => {
                self.json.request_started(turn, attempt, body);
                self.tools.stream_started(now);
                let index = self.json.requests.metas.len().saturating_sub(1);
                self.tools.bars.request_started(index, now);
                self.turn.streaming = true;
                self.turn.retry_until = None;
            }
            AgentEvent::RequestFailed { status, body } => {
                self.json.request_http_failed(status, &body)
            }
            AgentEvent::Retry {
                attempt,
                max_attempts,
                delay_ms,
                error,
            } => {
                self.json.request_failed(&error);
                self.turn.streaming = false;
                self.tools.stream_ended(now);
                self.turn.retry_until = Some(now + Duration::from_millis(delay_ms));
                let note = strings::retry_note(attempt, max_attempts, delay_ms, &error);
                self.conversation.push(CellKind::Notice(note));
            }
            AgentEvent::TextDelta { text } => self.conversation.text_delta(&text),
            AgentEvent::ThinkingDelta { text } => self.conversation.thinking_delta(&text),
            AgentEvent::ToolUseStreaming { id, name } => {
                self.tool_calls
                    .upsert(&id, &name, "", ToolState::Streaming, now);
                self.show_tool(&id);
            }
            AgentEvent::ToolUse {
                id, name, summary, ..
            } => {
                self.tool_calls
                    .upsert(&id, &name, &summary, ToolState::Queued, now);
                self.tool_calls.update(&id, |c| c.queued_at = now);
                self.show_tool(&id);
                // The user's own `!command` shows its output as it comes.
                if id.starts_with(crate::agent::shell_command::ID_PREFIX) {
                    self.conversation.expand_tool(&id);
                }
            }
            AgentEvent::PermissionRequest {
                id,
                tool,
                input,
                summary,
                preview,
                why,
            } => {
                self.set_tool_state(&id, ToolState::Approval);
                self.approvals.push(
                    ApprovalRequest {
                        id,
                        tool,
                        input,
                        summary,
                        preview,
                        why,
                        agent: None,
                    },
                    now,
                );
            }
            AgentEvent::Permission { id, allowed, .. } => {
                self.approvals.remove(&id, now);
                // A refused call keeps saying so when its (error) result arrives.
                let state = if allowed {
                    ToolState::Queued
                } else {
                    ToolState::Denied
                };
                self.set_tool_state(&id, state);
            }
            AgentEvent::ToolStart { id, .. } => self.tool_calls.update(&id, |c| {
                c.state = ToolState::Running;
                c.started_at = Some(now);
            }),
            AgentEvent::ToolProgress { id, chunk } => self.tool_calls.update(&id, |c| {
                if c.output.len() < MAX_PROGRESS_BYTES {
                    c.output.push_str(&chunk);
                }
            }),
            AgentEvent::ToolEnd {
                id,
                outcome,
                duration_ms,
                output,
                ..
            } => self
                .tool_calls
                .update(&id, |c| c.end(outcome, duration_ms, output, now)),
            AgentEvent::StreamEnd { .. } => {
                self.json.requests.completed();
                self.turn.streaming = false;
                self.conversation.finish_streaming();
                self.tools.stream_ended(now);
            }
            AgentEvent::RawSse { event, data } => self.json.push_sse(&event, &data),
            AgentEvent::Usage(u) => self.turn.usage = u,
            AgentEvent::Message { index, message } => {
                if message.role == Role::Assistant {
                    self.turn.unanswered = None;
                }
                self.show_sources(index, &message);
                self.json.set_message(index, message)
            }
            AgentEvent::EarlierHistory { messages } => self.earlier = messages,
            // The same rule as a live failure: the text waits in the input, ahead of what
            // was typed, and goes only if the user sends it.
            AgentEvent::PromptNotSent { text } => {
                self.conversation
                    .push(CellKind::Error(strings::resumed_not_sent(&text)));
                let mut parts = vec![text];
                if !self.input.is_empty() {
                    parts.push(self.input.text());
                }
                self.input.set_text(&parts.join("\n"));
            }
            AgentEvent::ToolTimings { timings } => self.timings = timings,
            AgentEvent::HistoryReset {
                messages,
                summaries,
            } => {
                self.conversation.clear();
                // A new conversation, rewind or resume: the resumed session's compacted
                // messages (if any) are the ones to export.
                self.compacted = self.earlier.clone();
                self.tools.reset();
                self.tools.lanes.clear();
                self.subagents.clear();
                for m in std::mem::take(&mut self.earlier) {
                    let text = m.text();
                    if !text.trim().is_empty() {
                        self.conversation.push(CellKind::Earlier {
                            user: m.role == Role::User,
                            text,
                        });
                    }
                }
                self.turn.turn = 0;
                self.turn.usage = Default::default();
                let mut timings = std::mem::take(&mut self.timings);
                // A rewind, /undo or /fork brings back calls this screen already showed: where
                // the reset carries no timing for them, their last known end (cancelled,
                // denied, with its duration) stands, not a guess from `is_error`.
                for m in &messages {
                    for block in &m.content {
                        if let ContentBlock::ToolUse { id, .. } = block
                            && !timings.contains_key(id)
                            && let Some(t) = self.tool_calls.get(id).and_then(known_timing)
                        {
                            timings.insert(id.clone(), t);
                        }
                    }
                }
                for m in &messages {
                    self.replay(m, &summaries, &timings, now);
                }
                // Calls neither pane shows any more are forgotten.
                let (conversation, tools) = (&self.conversation, &self.tools);
                self.tool_calls
                    .retain(|id| conversation.shows_tool(id) || tools.shows(id));
                if messages.is_empty() {
                    self.conversation
                        .push(CellKind::Notice(strings::NEW_CONVERSATION.into()));
                }
                self.json.reset_history(messages);
            }
            AgentEvent::Notice { text } => {
                self.conversation.push(CellKind::Notice(text));
                // `/compact` answers "nothing to compact: …" with a notice.
                if self.turn.compacting {
                    self.compaction_ended();
                }
            }
            AgentEvent::ServerBlock { block } => {
                self.conversation
                    .push(CellKind::Notice(crate::tui::text::server_lines::describe(
                        &block,
                    )))
            }
            AgentEvent::Error { message } => {
                self.json.request_failed(&message);
                self.turn.last_error = Some(message.clone());
                self.conversation.push(CellKind::Error(message));
                if self.turn.compacting {
                    self.compaction_ended();
                }
            }
            AgentEvent::Discarded { reason } => self.conversation.discard_streaming(&reason),
            AgentEvent::Session { id } => self.info.session = Some(id),
            AgentEvent::ModelChanged { model } => {
                self.conversation
                    .push(CellKind::Notice(strings::model_switched(&model)));
                self.info.model = model;
            }
            AgentEvent::Context(status) => self.turn.context = Some(status),
            AgentEvent::Compacted { info, messages } => {
                if info.trigger != crate::protocol::compaction::Trigger::Micro {
                    self.conversation.push(CellKind::Compacted {
                        trigger: info.trigger.as_str().into(),
                        pre_tokens: info.pre_tokens,
                        post_tokens: info.post_tokens,
                        summary: info.summary,
                        state: info.state,
                        kept: info.kept,
                    });
                    self.conversation.scroll.bottom();
                }
                self.keep_compacted(&messages);
                self.json
                    .reset_history(messages.into_iter().map(std::sync::Arc::new).collect());
                if self.turn.compacting {
                    self.compaction_ended();
                }
            }
            AgentEvent::HookStart { id, event, command } => {
                self.hook_started(&id, event, &command, now)
            }
            AgentEvent::HookEnd { id, report } => self.hook_ended(&id, report, now),
            AgentEvent::Mcp(status) => self.mcp_changed(status),
            AgentEvent::Todos { todos } => self.steering.todos = todos,
            AgentEvent::ApprovalChanged { mode } => {
                self.steering.mode = mode;
                self.note = Some((strings::approval_changed(mode), now + NOTE_WINDOW));
            }
            // Only headless runs end at a plan; the TUI asked the user instead.
            AgentEvent::PlanReady { .. } => {}
            // Drawn by the tools pane's background group (TUI part of issue 26).
            AgentEvent::Background(e) => self.tools.jobs.apply(&e, now),
            AgentEvent::Done(summary) => self.done(summary, now),
        }
    }

    /// A `/compact` finished (or failed): the input is live again, queued prompts go.
    fn compaction_ended(&mut self) {
        self.turn.compacting = false;
        self.turn.busy = false;
        self.turn.abort_requested = false;
        if let Some(next) = self.queued.pop_front() {
            self.submit(next);
        }
    }

    pub(super) fn set_tool_state(&mut self, id: &str, state: ToolState) {
        self.tool_calls.update(id, |c| c.state = state);
    }

    /// A live call gets a line in the conversation and a row in the tools pane.
    fn show_tool(&mut self, id: &str) {
        self.conversation.tool(id);
        self.tools.add(id);
    }

    fn done(&mut self, summary: TurnSummary, now: Instant) {
        self.turn.busy = false;
        self.turn.streaming = false;
        self.turn.retry_until = None;
        self.turn.usage = summary.usage;
        self.turn.total_usage.add(summary.usage);
        self.turn.prompts_done += 1;
        self.approvals.clear();
        self.conversation.finish_streaming();
        let unfinished = self.tools.any_active(&self.tool_calls);
        if summary.reason.is_aborted() || unfinished {
            self.tool_calls.cancel_unfinished(now);
            self.tools.stream_ended(now);
        }
        if summary.reason.is_aborted() {
            self.conversation.push(CellKind::Interrupted);
        } else if summary.reason != Terminal::Completed {
            // The error was shown as it happened: the end line does not repeat it.
            let shown = summary.error.is_some() && summary.error == self.turn.last_error;
            let error = summary.error.as_deref().filter(|_| !shown);
            let failed = matches!(
                summary.reason,
                Terminal::ModelError | Terminal::PromptTooLong
            );
            let unanswered = self.turn.unanswered.take().filter(|_| failed);
            let text = strings::ended(summary.reason.as_str(), error, unanswered.is_some());
            self.conversation.push(CellKind::Error(text));
            if let Some(prompt) = unanswered {
                // Not sent: the text waits in the input, ahead of anything queued or typed,
                // and nothing starts on its own (the next request would likely fail too).
                let mut parts = vec![prompt];
                parts.extend(self.queued.drain(..));
                if !self.input.is_empty() {
                    parts.push(self.input.text());
                }
                self.input.set_text(&parts.join("\n"));
            }
        }
        self.turn.unanswered = None;
        self.turn.last_error = None;
        self.turn.abort_requested = false;
        if summary.reason.is_aborted() && !self.queued.is_empty() {
            // The user stopped the turn: queued prompts wait in the input instead of
            // starting on their own.
            let mut parts: Vec<String> = self.queued.drain(..).collect();
            if !self.input.is_empty() {
                parts.push(self.input.text());
            }
            self.input.set_text(&parts.join("\n"));
        } else if let Some(next) = self.queued.pop_front() {
            self.submit(next);
        }
    }

    /// The sources a reply cites, listed under it (each once; a continued reply adds only
    /// the new ones).
    fn show_sources(&mut self, index: usize, message: &crate::message::Message) {
        if message.role != Role::Assistant {
            return;
        }
        let all = crate::tui::text::server_lines::cited(message);
        let already = if self.sources_shown.0 == index {
            self.sources_shown.1
        } else {
            0
        };
        if let Some(entry) =
            crate::tui::text::server_lines::sources_entry(&all[already.min(all.len())..])
        {
            self.conversation.push(CellKind::Notice(entry));
        }
        self.sources_shown = (index, all.len());
    }

    /// Rebuilds cells and tool rows from a resumed history; `timings` (from the transcript)
    /// give each call its outcome and duration as it ran.
    fn replay(
        &mut self,
        m: &Message,
        summaries: &HashMap<String, String>,
        timings: &HashMap<String, ToolTiming>,
        now: Instant,
    ) {
        for block in &m.content {
            match block {
                ContentBlock::Text { text, .. } if m.role == Role::User => {
                    if let Some(summary) = crate::agent::context::autocompact::summary_text(text) {
                        // A resumed session that was compacted: the divider, not the text.
                        let state = crate::agent::context::autocompact::state_text(text);
                        self.conversation.push(CellKind::Compacted {
                            trigger: "earlier".into(),
                            pre_tokens: 0,
                            post_tokens: 0,
                            summary: summary.to_string(),
                            state: state.unwrap_or_default().to_string(),
                            kept: Default::default(),
                        });
                    } else if crate::message::markers::is_interrupt(text) {
                        self.conversation.push(CellKind::Interrupted);
                    } else if let Some(label) = crate::agent::mentions::replay_label(text) {
                        // An `@file` block: one line, not the file.
                        self.conversation.push(CellKind::Notice(label));
                    } else if let Some((command, output)) =
                        crate::agent::shell_command::replay(text)
                    {
                        self.tools.begin_group(&command);
                        self.conversation.push(CellKind::User(command));
                        self.conversation.push(CellKind::Notice(output));
                    } else {
                        self.tools.begin_group(text);
                        self.conversation.push(CellKind::User(text.clone()));
                    }
                }
                ContentBlock::Text { text, .. } => {
                    self.conversation
                        .push(CellKind::Assistant(StreamingMarkdown::finished(text)));
                }
                ContentBlock::Thinking { thinking, .. } => {
                    self.conversation.push(CellKind::Thinking {
                        text: thinking.clone(),
                        streaming: false,
                    })
                }
                ContentBlock::RedactedThinking { .. } => {}
                ContentBlock::Image { source } => {
                    self.conversation.push(CellKind::Notice(format!(
                        "[image {}]",
                        crate::message::image::human_size(source.byte_len())
                    )))
                }
                ContentBlock::Other(v) => self.conversation.push(CellKind::Notice(
                    crate::tui::text::server_lines::describe(v),
                )),
                ContentBlock::ToolUse { id, name, .. } => {
                    let summary = summaries.get(id).map_or("", String::as_str);
                    self.tool_calls
                        .upsert(id, name, summary, ToolState::Ok, now);
                    self.show_tool(id);
                }
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } => {
                    let timing = timings.get(tool_use_id);
                    self.tool_calls.update(tool_use_id, |c| {
                        c.state = match timing.map(|t| t.outcome.as_str()) {
                            Some("cancelled") => ToolState::Cancelled,
                            Some("denied") => ToolState::Denied,
                            Some("ok") => ToolState::Ok,
                            Some(_) => ToolState::Error,
                            None if *is_error => ToolState::Error,
                            None => ToolState::Ok,
                        };
                        c.duration_ms = timing.map(|t| t.duration_ms);
                        c.output = content.clone();
                    })
                }
            }
        }
    }
}

/// The timing a finished call shown on screen stands for (its outcome and duration), for a
/// history reset that brings it back; None while it has not ended.
fn known_timing(c: &crate::tui::tool_calls::ToolCall) -> Option<ToolTiming> {
    let outcome = match c.state {
        ToolState::Ok => "ok",
        ToolState::Error => "error",
        ToolState::Cancelled => "cancelled",
        ToolState::Denied => "denied",
        _ => return None,
    };
    Some(ToolTiming {
        id: c.id.clone(),
        outcome: outcome.into(),
        started: None,
        duration_ms: c.duration_ms.unwrap_or(0),
    })
}
