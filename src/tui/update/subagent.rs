//! How a subagent's events change the screen: its `task` row's live line, its calls nested
//! under that row in the tools pane, its lane in the timeline, its permission questions
//! (through the same approval box, titled with the agent), its conversation for the
//! read-only view. Nothing of it reaches the main conversation or the status bar.

use tokio::time::Instant;

use crate::protocol::AgentEvent;
use crate::protocol::subagent::{AgentInfo, AgentReport};
use crate::tui::app::App;

impl App {
    pub(super) fn on_agent_start(&mut self, info: AgentInfo, now: Instant) {
        self.history.subagents.started(info, now);
        let Some(lane) = self.history.subagents.lanes.last() else {
            return;
        };
        let (row, label, status) = (lane.row(), lane.label(), lane.status());
        let agent_id = lane.info.agent_id.clone();
        self.panes.tools.lanes.started(&row, &agent_id, &label);
        self.panes.tool_calls.update(&row, |c| c.summary = status);
    }

    pub(super) fn on_agent_end(&mut self, report: AgentReport, now: Instant) {
        let id = report.agent_id.clone();
        self.history.subagents.ended(report);
        if let Some(lane) = self.history.subagents.get(&id) {
            let (row, status) = (lane.row(), lane.status());
            self.panes.tools.lanes.ended(&row, now);
            self.panes.tool_calls.update(&row, |c| c.summary = status);
        }
    }

    /// A subagent's event other than a tool event (those go to `on_tool_event` with its
    /// scope): its requests in the JSON pane and its lane, its conversation for the view.
    pub(super) fn on_subagent_event(
        &mut self,
        agent_id: &str,
        row: &str,
        event: AgentEvent,
        now: Instant,
    ) {
        match event {
            AgentEvent::RequestStart {
                body,
                turn,
                attempt,
                ..
            } => {
                let agent = crate::tui::panes::json::stepper::AgentTag {
                    id: agent_id.to_string(),
                    label: self.history.subagents.label_of(agent_id),
                };
                self.panes
                    .json
                    .child_request_started(agent, turn, attempt, body);
                self.panes.tools.lanes.stream_started(row, now);
                if let Some(lane) = self.history.subagents.get_mut(agent_id) {
                    lane.doing = "thinking".into();
                }
                self.refresh_task_row(agent_id);
            }
            AgentEvent::StreamEnd { .. } => {
                if let Some(m) = self.panes.json.requests.child_in_flight(agent_id) {
                    m.completed = true;
                }
                self.panes.tools.lanes.stream_ended(row, now)
            }
            AgentEvent::Error { message } => {
                self.panes
                    .json
                    .child_request_failed(agent_id, None, &message);
                self.panes.tools.lanes.stream_ended(row, now)
            }
            AgentEvent::RequestFailed { status, body } => {
                self.panes
                    .json
                    .child_request_failed(agent_id, Some((status, &body)), "")
            }
            AgentEvent::Retry { error, .. } => {
                self.panes.json.child_request_failed(agent_id, None, &error);
                self.panes.tools.lanes.stream_ended(row, now)
            }
            AgentEvent::RawSse { event, data } => {
                self.panes.json.requests.child_sse(agent_id, &event, &data)
            }
            AgentEvent::Message { index, message } => {
                if let Some(lane) = self.history.subagents.get_mut(agent_id) {
                    lane.messages.truncate(index);
                    lane.messages.push(message);
                }
            }
            _ => {}
        }
    }

    pub(super) fn refresh_task_row(&mut self, agent_id: &str) {
        if let Some(lane) = self.history.subagents.get(agent_id) {
            let (row, status) = (lane.row(), lane.status());
            self.panes.tool_calls.update(&row, |c| c.summary = status);
        }
    }

    /// Opens the read-only view of the subagent a `task` row started, if there is one.
    pub(super) fn open_subagent_of_row(&mut self, row: &str) -> bool {
        let Some(lane) = self.history.subagents.by_row(row) else {
            return false;
        };
        self.overlays.subagent_view = Some(crate::tui::overlays::subagent::SubagentView::new(
            &lane.label(),
            &lane.messages,
            &self.theme,
        ));
        true
    }

    /// `/agents`: the agents the task tool can start, and this session's subagents;
    /// `/agents N` opens subagent #N's conversation read-only.
    pub(super) fn agents_command(&mut self, args: &str) {
        use crate::tui::panes::cells::CellKind;
        if !args.is_empty() {
            let opened = self
                .history
                .subagents
                .by_number(args)
                .map(|l| l.row())
                .is_some_and(|row| self.open_subagent_of_row(&row));
            if !opened {
                self.panes.conversation.push(CellKind::Notice(
                    crate::tui::strings::no_such_subagent(args),
                ));
            }
            return;
        }
        let user = crate::paths::config_file()
            .ok()
            .and_then(|f| f.parent().map(std::path::Path::to_path_buf));
        let dirs = crate::agent::subagent::definitions::dirs(&self.info.workspace, user.as_deref());
        let (defs, errors) = crate::agent::subagent::definitions::load(&dirs);
        let mut text = crate::cli::agent_list::format_table(&defs, &self.info.workspace);
        for e in errors {
            text.push_str(&format!("{e}\n"));
        }
        if self.history.subagents.lanes.is_empty() {
            text.push_str("\nno subagents ran in this session yet");
        } else {
            text.push_str("\nthis session (/agents N opens one):");
            let now = Instant::now();
            for l in &self.history.subagents.lanes {
                text.push_str(&format!(
                    "\n  {} · {:.1}s",
                    l.status(),
                    l.elapsed(now).as_secs_f64()
                ));
            }
        }
        self.panes.conversation.push(CellKind::Notice(text));
        self.panes.conversation.scroll.bottom();
    }

    /// Keys while a subagent's conversation is open: scroll, or Esc (q, Enter) back.
    pub(super) fn subagent_view_key(&mut self, key: crossterm::event::KeyEvent) {
        use crate::tui::keys::{Scope, action_for};
        use crate::tui::overlays::subagent::Step;
        let Some(view) = self.overlays.subagent_view.as_mut() else {
            return;
        };
        match view.key(action_for(&key, Scope::Subagent, self.info.shift_enter)) {
            Step::Stay => {}
            Step::Close => self.overlays.subagent_view = None,
        }
    }
}
