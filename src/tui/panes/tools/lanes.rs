//! The timeline's subagent lanes: each subagent's model streams, drawn on the row of the
//! `task` call that started it (labelled with the agent, `explore #2`), its calls as rows
//! of their own under it, so three subagents at work are three lanes.

use std::collections::HashMap;

use tokio::time::Instant;

use super::timeline::Span;
use crate::sanitize::sanitize;
use crate::tui::theme::Theme;

struct Lane {
    /// `a2`: its calls' ids are scoped by it (`a2/…`).
    agent_id: String,
    label: String,
    streams: Vec<(Instant, Option<Instant>)>,
    ended: bool,
}

/// Lanes by the id of the task row that started each subagent.
#[derive(Default)]
pub struct Lanes {
    by_row: HashMap<String, Lane>,
    /// Lanes not ended yet (a frame asks "is any lane running" without a walk).
    running: usize,
}

impl Lanes {
    pub fn started(&mut self, row: &str, agent_id: &str, label: &str) {
        let lane = Lane {
            agent_id: agent_id.to_string(),
            label: sanitize(label),
            streams: Vec::new(),
            ended: false,
        };
        if self
            .by_row
            .insert(row.to_string(), lane)
            .is_none_or(|old| old.ended)
        {
            self.running += 1;
        }
    }

    pub fn stream_started(&mut self, row: &str, now: Instant) {
        if let Some(l) = self.by_row.get_mut(row) {
            l.streams.push((now, None));
        }
    }

    pub fn stream_ended(&mut self, row: &str, now: Instant) {
        if let Some(l) = self.by_row.get_mut(row)
            && let Some((_, end @ None)) = l.streams.last_mut()
        {
            *end = Some(now);
        }
    }

    /// The subagent ended: a stream it left open ends now.
    pub fn ended(&mut self, row: &str, now: Instant) {
        self.stream_ended(row, now);
        if let Some(l) = self.by_row.get_mut(row)
            && !l.ended
        {
            l.ended = true;
            self.running -= 1;
        }
    }

    pub fn clear(&mut self) {
        self.by_row.clear();
        self.running = 0;
    }

    /// The agent's label (`explore #2`) of the lane task row `row` started.
    pub fn label(&self, row: &str) -> Option<&str> {
        self.by_row.get(row).map(|l| l.label.as_str())
    }

    /// The agent id of the lane task row `row` started.
    pub fn agent_id(&self, row: &str) -> Option<&str> {
        self.by_row.get(row).map(|l| l.agent_id.as_str())
    }

    /// Whether the lane under `row` is still at work.
    pub fn is_running(&self, row: &str) -> bool {
        self.by_row.get(row).is_some_and(|l| !l.ended)
    }

    pub fn any_running(&self) -> bool {
        self.running > 0
    }

    /// The model streams of the lane under task row `row` (none if no lane started there);
    /// a picked lane's in the picked fill.
    pub fn streams(&self, row: &str, now: Instant, picked: bool, theme: &Theme) -> Vec<Span> {
        let Some(lane) = self.by_row.get(row) else {
            return Vec::new();
        };
        lane.streams
            .iter()
            .map(|(s, e)| Span {
                start: *s,
                queued: None,
                end: e.unwrap_or(now),
                style: theme.accent,
                fill: if picked { "═" } else { "━" },
            })
            .collect()
    }
}
