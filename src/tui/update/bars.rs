//! The App's side of picking a timeline bar: ←/→ on the tools pane move the selection
//! ([`BarSelection`](crate::tui::panes::tools::bars::BarSelection)), Enter opens the bar in the
//! JSON pane (a request in the stepper, a tool call as its tool_use and tool_result blocks).

use serde_json::{Value, json};

use crate::message::ContentBlock;
use crate::tui::app::{App, Focus};
use crate::tui::keys::Action;
use crate::tui::panes::tools::bars::Bar;

impl App {
    /// A key for the tools pane's timeline; true if it was one (←/→ select, Enter opens).
    pub(crate) fn timeline_key(&mut self, action: Action) -> bool {
        match action {
            Action::PrevItem | Action::NextItem => {
                let Some((t0, ids)) = self.panes.tools.timeline_scope() else {
                    return false;
                };
                let ids = ids.to_vec();
                let bars = self.panes.tools.bars.bars(&self.panes.tool_calls, t0, &ids);
                let delta = if action == Action::PrevItem { -1 } else { 1 };
                self.panes.tools.bars.step(&bars, delta);
                self.panes.tools.bars.armed = true;
                true
            }
            Action::Toggle => match self.panes.tools.bars.selected.clone() {
                Some(bar) if self.panes.tools.bars.armed => {
                    self.open_bar(&bar);
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Opens `bar` in the JSON pane and gives the pane the focus (`[` `]` step on from there).
    pub(crate) fn open_bar(&mut self, bar: &Bar) {
        match bar {
            Bar::Request(i) => {
                self.panes.json.show_request(*i);
            }
            Bar::Tool(id) => {
                let value = self.tool_json(id);
                self.panes.json.show_tool(value);
            }
        }
        self.panes.json_open = true;
        self.set_focus(Focus::Json);
    }

    /// A tool call as JSON: its tool_use and tool_result blocks as sent to the model, or, for
    /// a call whose result is not in the history yet (running, or compacted away), what the
    /// screen knows of it.
    fn tool_json(&self, id: &str) -> Value {
        let mut tool_use = Value::Null;
        let mut tool_result = Value::Null;
        for m in self.panes.json.history() {
            for b in &m.content {
                match b {
                    ContentBlock::ToolUse { id: u, .. } if u == id => {
                        tool_use = serde_json::to_value(b).unwrap_or(Value::Null)
                    }
                    ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == id => {
                        tool_result = serde_json::to_value(b).unwrap_or(Value::Null)
                    }
                    _ => {}
                }
            }
        }
        let call = self.panes.tool_calls.get(id);
        let mut v = json!({
            "id": id,
            "name": call.map(|c| c.name.as_str()),
            "state": call.map(|c| format!("{:?}", c.state).to_lowercase()),
            "duration_ms": call.and_then(|c| c.duration_ms),
            "tool_use": tool_use,
            "tool_result": tool_result,
        });
        if v["tool_result"].is_null()
            && let Some(c) = call
        {
            v["output"] = Value::String(c.output.clone());
        }
        v
    }
}
