//! The timeline's subagent lanes: each subagent's model streams, drawn on a row of their own
//! right under the `task` call that started it (its calls follow as rows of their own), so
//! three subagents at work are three lanes.

use std::collections::HashMap;

use tokio::time::Instant;

use super::timeline::Span;
use crate::sanitize::sanitize;
use crate::tui::theme::Theme;

struct Lane {
    label: String,
    streams: Vec<(Instant, Option<Instant>)>,
}

/// Lanes by the id of the task row that started each subagent.
#[derive(Default)]
pub struct Lanes {
    by_row: HashMap<String, Lane>,
}

impl Lanes {
    pub fn started(&mut self, row: &str, label: &str) {
        self.by_row.insert(
            row.to_string(),
            Lane {
                label: sanitize(label),
                streams: Vec::new(),
            },
        );
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
    }

    pub fn clear(&mut self) {
        self.by_row.clear();
    }

    /// The lane under task row `row`, if one started there: its label and its streams.
    pub fn row(&self, row: &str, now: Instant, theme: &Theme) -> Option<(String, Vec<Span>)> {
        let lane = self.by_row.get(row)?;
        let spans = lane
            .streams
            .iter()
            .map(|(s, e)| Span {
                start: *s,
                queued: None,
                end: e.unwrap_or(now),
                style: theme.accent,
                fill: "━",
            })
            .collect();
        Some((lane.label.clone(), spans))
    }
}
