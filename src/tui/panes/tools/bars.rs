//! Which bar of the tools pane's timeline is picked (the App's side, opening it in the JSON
//! pane, is update/bars.rs).
//!
//! With the tools pane focused, ←/→ select a bar of the timeline on screen (this prompt's,
//! or the whole session's after `t`): a model request bar or a tool bar, in the order they
//! started. Enter opens the selection in the JSON pane: a request in the request stepper at
//! that request, a tool call as its tool_use and tool_result blocks (input and output).

use std::collections::VecDeque;

use tokio::time::Instant;

use crate::tui::tool_calls::ToolCalls;

/// Requests remembered for the session timeline (its model row keeps as many streams).
const MAX_REQUESTS: usize = 500;

/// One bar of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bar {
    /// A model request: its index in the JSON pane's request stepper.
    Request(usize),
    /// A tool call, by tool_use id.
    Tool(String),
}

/// Which bar is selected, and which request each model bar stands for.
#[derive(Default)]
pub struct BarSelection {
    /// (stepper index, when its stream started) of the requests on the session timeline.
    requests: VecDeque<(usize, Instant)>,
    pub selected: Option<Bar>,
    /// A bar was picked with ←/→ since the tools pane got the focus: only then is Enter
    /// "open it" (otherwise the pane's own Enter). The pick stays drawn after the focus
    /// leaves, to show what the JSON pane shows.
    pub armed: bool,
}

impl BarSelection {
    /// A request was sent at `now`; the model bar starting then is request `index`.
    pub fn request_started(&mut self, index: usize, now: Instant) {
        if self.requests.len() >= MAX_REQUESTS {
            self.requests.pop_front();
        }
        self.requests.push_back((index, now));
    }

    /// When the selected model bar started (the timeline marks the stream starting then).
    /// Looked up once per frame, not per stream.
    pub fn selected_stream(&self) -> Option<Instant> {
        match &self.selected {
            Some(Bar::Request(i)) => self
                .requests
                .iter()
                .rev()
                .find(|(j, _)| j == i)
                .map(|(_, s)| *s),
            _ => None,
        }
    }

    pub fn is_selected_tool(&self, id: &str) -> bool {
        matches!(&self.selected, Some(Bar::Tool(t)) if t == id)
    }

    /// The timeline's bars from `t0` on, in the order they started.
    pub fn bars(&self, calls: &ToolCalls, t0: Instant, ids: &[String]) -> Vec<Bar> {
        let mut bars: Vec<(Instant, Bar)> = self
            .requests
            .iter()
            .filter(|(_, s)| *s >= t0)
            .map(|(i, s)| (*s, Bar::Request(*i)))
            .collect();
        bars.extend(ids.iter().filter_map(|id| {
            let c = calls.get(id)?;
            Some((c.started_at.unwrap_or(c.queued_at), Bar::Tool(id.clone())))
        }));
        bars.sort_by_key(|(t, _)| *t);
        bars.into_iter().map(|(_, b)| b).collect()
    }

    /// Forgets the picked bar (a new prompt starts: its timeline has other bars).
    pub fn clear(&mut self) {
        self.selected = None;
        self.armed = false;
    }

    /// Moves the selection by `delta` bars; with none selected, either key picks the newest.
    pub fn step(&mut self, bars: &[Bar], delta: i64) {
        let Some(last) = bars.len().checked_sub(1) else {
            self.selected = None;
            return;
        };
        let next = match self
            .selected
            .as_ref()
            .and_then(|s| bars.iter().position(|b| b == s))
        {
            Some(i) => (i as i64 + delta).clamp(0, last as i64) as usize,
            None => last,
        };
        self.selected = Some(bars[next].clone());
    }

    /// The timeline's title while a bar is selected.
    pub fn title(&self, name: impl Fn(&str) -> Option<String>) -> Option<String> {
        Some(match self.selected.as_ref()? {
            Bar::Request(i) => format!("── request {} · Enter: open in JSON ──", i + 1),
            Bar::Tool(id) => format!(
                "── {} · Enter: input and output in JSON ──",
                name(id).unwrap_or_else(|| "tool".into())
            ),
        })
    }
}
