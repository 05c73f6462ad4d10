//! How each AgentEvent changes what the screen shows. Times are taken on receipt (`now`).
//! `on_agent` only dispatches: a subagent's event is unwrapped into (scope, event) at the
//! door, tool events of either scope go to tool_events.rs, a subagent's other events to
//! subagent.rs, history replacements to history.rs, the parent's stream and turn here.

use std::time::Duration;

use tokio::time::Instant;

use crate::message::{Message, Role};
use crate::protocol::{AgentEvent, AgentEvent as E, Terminal, TurnSummary};
use crate::tui::app::{App, NOTE_WINDOW};
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;
use crate::tui::update::tool_events::{Scope, is_tool_event};

impl App {
    pub fn on_agent(&mut self, event: AgentEvent, now: Instant) {
        // Before the event is taken apart: both count a subagent's requests too.
        self.status_tally.observe(&event, now);
        self.spend.on_event(&event, self.info.model_table());
        let Some((scope, event)) = self.scoped(event) else {
            return;
        };
        if is_tool_event(&event) {
            return self.on_tool_event(&scope, event, now);
        }
        if let Scope::Subagent { agent_id, row } = &scope {
            return self.on_subagent_event(agent_id, row, event, now);
        }
        // A word from this agent is a sign of life: the status counts silence from it.
        self.turn.heard_at = Some(now);
        match event {
            E::AgentStart(info) => self.on_agent_start(info, now),
            E::AgentEnd(report) => self.on_agent_end(report, now),
            E::PromptStart { text } => self.prompt_started(text, now),
            E::TurnStart { turn } => self.turn.turn = turn,
            E::Steer { text, fate } => self.on_steer(text, fate),
            e @ E::RequestStart { .. } => self.request_started(e, now),
            E::RequestFailed { status, body } => self.panes.json.request_http_failed(status, &body),
            e @ E::Retry { .. } => self.retry(e, now),
            E::TextDelta { text } => self.panes.conversation.text_delta(&text),
            E::ThinkingDelta { text } => self.panes.conversation.thinking_delta(&text),
            E::StreamEnd { .. } => self.stream_ended(now),
            E::RawSse { event, data } => self.panes.json.push_sse(&event, &data),
            E::Usage(u) => self.turn.usage = u,
            E::Message { index, message } => self.message(index, message),
            E::EarlierHistory {
                messages,
                summaries,
            } => {
                self.history.earlier = messages;
                self.history.earlier_summaries = summaries;
            }
            E::ResumedSubagents { agents } => self.history.resumed_subagents = agents,
            E::PromptNotSent { text } => self.prompt_not_sent(text),
            E::ToolTimings { timings } => self.history.timings = timings,
            E::HistoryReset {
                messages,
                summaries,
            } => self.history_reset(messages, summaries, now),
            E::Notice { text } => self.notice(CellKind::Notice(text)),
            E::ServerBlock { block } => self.server_block(&block),
            E::Error { message } => self.error(message),
            E::Discarded { reason } => self.panes.conversation.discard_streaming(&reason),
            E::Session { id } => self.info.session = Some(id),
            E::ModelChanged { model } => self.model_changed(model),
            E::Context(status) => self.turn.context = Some(status),
            E::Compacted { info, messages } => self.compacted(info, messages),
            E::HookStart { id, event, command } => self.hook_started(&id, event, &command, now),
            E::HookEnd { id, report } => self.hook_ended(&id, report, now),
            E::Mcp(status) => self.mcp_changed(status),
            E::Todos { todos } => self.steering.todos = todos,
            E::ApprovalChanged { mode } => self.approval_changed(mode, now),
            E::RulesChanged { rules, unused } => {
                self.steering.rules = crate::permission::rules::RuleSet::from_lines(&rules, unused);
            }
            E::Background(e) => self.panes.tools.jobs.apply(&e, now),
            E::Done(summary) => self.done(summary, now),
            // Tool events went to on_tool_event; a subagent's own subagents are not shown;
            // only headless runs end at a PlanReady (the TUI asked the user instead).
            _ => {}
        }
    }

    /// Where steered text went: shown in the conversation where it joined (a prompt that
    /// follows the turn shows itself when it starts); back in the input when not sent.
    fn on_steer(&mut self, text: String, fate: crate::protocol::steer::SteerFate) {
        use crate::protocol::steer::SteerFate;
        if let Some(back) = self.steer.settled(&text, fate) {
            let mut parts = vec![back];
            if !self.input.is_empty() {
                parts.push(self.input.text());
            }
            self.input.set_text(&parts.join("\n"));
        } else if fate == SteerFate::Joined {
            self.panes.conversation.push(CellKind::User(text));
            self.panes.conversation.scroll.bottom();
        }
    }

    fn prompt_started(&mut self, text: String, now: Instant) {
        self.turn.busy = true;
        self.steer.in_prompt = true;
        self.turn.last_error = None;
        self.turn.unanswered = Some(text.clone());
        self.panes.tools.prompt_started(now);
        self.panes.tools.begin_group(&text);
        self.panes.conversation.push(CellKind::User(text));
        self.panes.conversation.scroll.bottom();
    }

    fn request_started(&mut self, event: AgentEvent, now: Instant) {
        let E::RequestStart {
            body,
            turn,
            attempt,
            ..
        } = event
        else {
            return;
        };
        self.panes.json.request_started(turn, attempt, body);
        self.panes.tools.stream_started(now);
        let index = self.panes.json.requests.metas.len().saturating_sub(1);
        self.panes.tools.bars.request_started(index, now);
        self.turn.streaming = true;
        self.turn.retry_until = None;
    }

    fn retry(&mut self, event: AgentEvent, now: Instant) {
        let E::Retry {
            attempt,
            max_attempts,
            delay_ms,
            error,
        } = event
        else {
            return;
        };
        self.panes.json.request_failed(&error);
        self.turn.streaming = false;
        self.panes.tools.stream_ended(now);
        self.turn.retry_until = Some(now + Duration::from_millis(delay_ms));
        let note = strings::retry_note(attempt, max_attempts, delay_ms, &error);
        self.panes.conversation.push(CellKind::Notice(note));
    }

    fn stream_ended(&mut self, now: Instant) {
        self.panes.json.requests.completed();
        self.turn.streaming = false;
        self.panes.conversation.finish_streaming();
        self.panes.tools.stream_ended(now);
    }

    fn message(&mut self, index: usize, message: std::sync::Arc<Message>) {
        if message.role == Role::Assistant {
            self.turn.unanswered = None;
        }
        self.show_sources(index, &message);
        self.panes.json.set_message(index, message)
    }

    /// A notice or an error: `/compact` answers "nothing to compact: …" with a notice, and
    /// a failed one with an error; either ends it.
    fn notice(&mut self, cell: CellKind) {
        self.panes.conversation.push(cell);
        if self.turn.compacting {
            self.compaction_ended();
        }
    }

    fn server_block(&mut self, block: &serde_json::Value) {
        let text = crate::tui::text::server_lines::describe(block);
        self.panes.conversation.push(CellKind::Notice(text));
    }

    fn error(&mut self, message: String) {
        self.panes.json.request_failed(&message);
        self.turn.last_error = Some(message.clone());
        self.notice(CellKind::Error(message));
    }

    fn model_changed(&mut self, model: String) {
        self.panes
            .conversation
            .push(CellKind::Notice(strings::model_switched(&model)));
        self.info.model = model;
    }

    fn approval_changed(
        &mut self,
        mode: crate::protocol::approval_mode::ApprovalMode,
        now: Instant,
    ) {
        self.steering.mode = mode;
        self.status.note = Some((strings::approval_changed(mode), now + NOTE_WINDOW));
    }

    /// A `/compact` finished (or failed): the input is live again, queued prompts go.
    pub(super) fn compaction_ended(&mut self) {
        self.turn.compacting = false;
        self.turn.busy = false;
        self.turn.abort_requested = false;
        if let Some(next) = self.outbox.queued.pop_front() {
            self.submit(next);
        }
    }

    fn done(&mut self, summary: TurnSummary, now: Instant) {
        self.turn.busy = false;
        self.steer.in_prompt = false;
        self.steer.shell = false;
        self.turn.streaming = false;
        self.turn.retry_until = None;
        self.turn.usage = summary.usage;
        self.turn.total_usage.add(summary.usage);
        self.turn.prompts_done += 1;
        self.overlays.approvals.clear();
        self.panes.conversation.finish_streaming();
        let unfinished = self.panes.tools.any_active(&self.panes.tool_calls);
        if summary.reason.is_aborted() || unfinished {
            self.panes.tool_calls.cancel_unfinished(now);
            self.panes.tools.stream_ended(now);
        }
        if summary.reason.is_aborted() {
            self.panes.conversation.push(CellKind::Interrupted);
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
            self.panes.conversation.push(CellKind::Error(text));
            if let Some(prompt) = unanswered {
                // Not sent: the text waits in the input, ahead of anything queued or typed,
                // and nothing starts on its own (the next request would likely fail too).
                let mut parts = vec![prompt];
                parts.extend(self.outbox.queued.drain(..));
                if !self.input.is_empty() {
                    parts.push(self.input.text());
                }
                self.input.set_text(&parts.join("\n"));
            }
        }
        self.turn.unanswered = None;
        self.turn.last_error = None;
        self.turn.abort_requested = false;
        if summary.reason.is_aborted() && !self.outbox.queued.is_empty() {
            // The user stopped the turn: queued prompts wait in the input instead of
            // starting on their own.
            let mut parts: Vec<String> = self.outbox.queued.drain(..).collect();
            if !self.input.is_empty() {
                parts.push(self.input.text());
            }
            self.input.set_text(&parts.join("\n"));
        } else if let Some(next) = self.outbox.queued.pop_front() {
            self.submit(next);
        }
    }

    /// The sources a reply cites, listed under it (each once; a continued reply adds only
    /// the new ones).
    fn show_sources(&mut self, index: usize, message: &Message) {
        if message.role != Role::Assistant {
            return;
        }
        let all = crate::tui::text::server_lines::cited(message);
        let already = if self.history.sources_shown.0 == index {
            self.history.sources_shown.1
        } else {
            0
        };
        if let Some(entry) =
            crate::tui::text::server_lines::sources_entry(&all[already.min(all.len())..])
        {
            self.panes.conversation.push(CellKind::Notice(entry));
        }
        self.history.sources_shown = (index, all.len());
    }
}
