//! Which calls the timeline shows, and how each row is labelled (issue 41, item 1).
//!
//! A call and the calls listed under it (a `task` and its subagent's calls, at any depth)
//! are one unit: the task's row is its agent's lane, labelled with the agent's number as
//! the tools list and `/agents N` name it (`explore #2`), its own calls follow as `↳ glob`.
//! Every unit is shown when there is room; when there is not, running units keep their rows
//! first, then the newest finished ones, and a last row counts the calls left out.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use tokio::time::Instant;

use super::bars::BarSelection;
use super::lanes::Lanes;
use super::timeline::{Row, Span};
use crate::sanitize::sanitize;
use crate::tui::strings;
use crate::tui::theme::Theme;
use crate::tui::tool_calls::ToolCalls;

/// What the rows are made of.
pub struct Scope<'a> {
    /// The calls in the timeline's scope, in the list's order (a subagent's calls right
    /// under the task that started it).
    pub ids: &'a [String],
    pub calls: &'a ToolCalls,
    pub lanes: &'a Lanes,
    pub bars: &'a BarSelection,
    pub now: Instant,
    pub theme: &'a Theme,
}

/// The rows under the model's for a body of `room` rows: the chosen calls in list order,
/// then a "… N more" row when some were left out.
pub fn rows(scope: &Scope, room: usize) -> Vec<Row> {
    let units = units(scope);
    let (shown, hidden) = choose(&units, room);
    let mut rows = build(scope, &shown);
    if hidden > 0 {
        rows.push(Row {
            label: strings::timeline_more(hidden),
            spans: Vec::new(),
            picked: false,
        });
    }
    rows
}

/// The units of `ids` (a top-level call and the scoped calls after it) and whether each is
/// still at work. A frame with nothing active looks no call up.
fn units(scope: &Scope) -> Vec<(Range<usize>, bool)> {
    let any_active = scope.calls.active() > 0 || scope.lanes.any_running();
    let mut units: Vec<(Range<usize>, bool)> = Vec::new();
    for (i, id) in scope.ids.iter().enumerate() {
        let running = any_active
            && (scope.lanes.is_running(id)
                || scope.calls.get(id).is_some_and(|c| c.state.is_active()));
        match units.last_mut() {
            Some((r, run)) if id.contains('/') && r.end == i => {
                r.end = i + 1;
                *run |= running;
            }
            _ => units.push((i..i + 1, running)),
        }
    }
    units
}

/// Which indices fit in `room` rows, and how many are left out. All of them if they fit;
/// else one row goes to the mark, then each running unit gets its head (its lane), then
/// their newest calls, then the newest finished units (whole, or their head and newest
/// calls when too tall).
pub fn choose(units: &[(Range<usize>, bool)], room: usize) -> (Vec<usize>, usize) {
    let total: usize = units.iter().map(|(r, _)| r.len()).sum();
    if total <= room {
        return (units.iter().flat_map(|(r, _)| r.clone()).collect(), 0);
    }
    let mut left = room.saturating_sub(1);
    let mut shown: Vec<usize> = Vec::new();
    let running: Vec<&Range<usize>> = units.iter().filter(|u| u.1).map(|u| &u.0).collect();
    for r in running.iter().take(left) {
        shown.push(r.start);
    }
    left -= running.len().min(left);
    for r in &running {
        let n = (r.len() - 1).min(left);
        shown.extend(r.end - n..r.end);
        left -= n;
    }
    for (r, _) in units.iter().rev().filter(|u| !u.1) {
        if left == 0 {
            break;
        }
        if r.len() <= left {
            shown.extend(r.clone());
            left -= r.len();
        } else {
            shown.push(r.start);
            shown.extend(r.end - (left - 1)..r.end);
            left = 0;
        }
    }
    shown.sort_unstable();
    let hidden = total - shown.len();
    (shown, hidden)
}

/// A call's tool name in its scope: the agent's id (`a2`), "" for the parent's calls.
fn key<'a>(id: &'a str, name: &'a str) -> (&'a str, &'a str) {
    (id.split_once('/').map_or("", |(a, _)| a), name)
}

/// The rows of the calls `ids[i]` for `i` in `shown`.
fn build(scope: &Scope, shown: &[usize]) -> Vec<Row> {
    let (calls, theme, now) = (scope.calls, scope.theme, scope.now);
    // Two calls of one tool in one scope (the parent's, or one agent's) are told apart by
    // an ordinal in parentheses: `#N` is an agent's number only.
    let shown_calls: Vec<_> = shown
        .iter()
        .filter_map(|&i| calls.get(&scope.ids[i]))
        .collect();
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    for c in &shown_calls {
        *seen.entry(key(&c.id, &c.name)).or_default() += 1;
    }
    let mut nth: HashMap<(&str, &str), usize> = HashMap::new();
    // The agents of a picked lane: the picked task's, and those its calls started.
    let mut picked_agents: HashSet<&str> = HashSet::new();
    let mut rows = Vec::with_capacity(shown_calls.len());
    for c in shown_calls {
        let lane = scope.lanes.label(&c.id);
        let in_picked =
            c.id.split_once('/')
                .is_some_and(|(a, _)| picked_agents.contains(a));
        let selected = scope.bars.is_selected_tool(&c.id);
        let picked = in_picked || (selected && lane.is_some());
        if picked && let Some(a) = scope.lanes.agent_id(&c.id) {
            picked_agents.insert(a);
        }
        let k = key(&c.id, &c.name);
        let name = match lane {
            Some(agent) => agent.to_string(),
            None if c.id.contains('/') => format!("↳ {}", sanitize(&c.name)),
            None => sanitize(&c.name),
        };
        let label = if lane.is_none() && seen[&k] > 1 {
            let n = nth.entry(k).or_default();
            *n += 1;
            format!("{name} ({n})")
        } else {
            name
        };
        let fill = match (lane.is_some(), picked || selected) {
            // A lane: the agent's life thin, its model streams over it.
            (true, _) => "─",
            (false, true) => "▓",
            (false, false) => "█",
        };
        let mut spans = match c.started_at {
            Some(s) => vec![Span {
                start: s,
                queued: Some(c.queued_at),
                end: c.ended_at.unwrap_or(now),
                style: c.state.style(theme),
                fill,
            }],
            None if c.state.is_active() => vec![Span {
                start: now,
                queued: Some(c.queued_at),
                end: now,
                style: theme.dim,
                fill: "·",
            }],
            None => Vec::new(),
        };
        if lane.is_some() {
            spans.extend(scope.lanes.streams(&c.id, now, picked, theme));
        }
        rows.push(Row {
            label,
            spans,
            picked,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::choose;

    #[test]
    fn all_fit_in_order() {
        let units = [(0..2, false), (2..3, true), (3..5, false)];
        assert_eq!(choose(&units, 5), (vec![0, 1, 2, 3, 4], 0));
    }

    #[test]
    fn running_first_then_newest_finished_and_a_row_for_the_mark() {
        // Four lanes of two rows; #2 runs. Room 5: the mark, #2, then the newest finished.
        let units = [(0..2, false), (2..4, true), (4..6, false), (6..8, false)];
        assert_eq!(choose(&units, 5), (vec![2, 3, 6, 7], 4));
    }

    #[test]
    fn a_unit_too_tall_keeps_its_head_and_newest_calls() {
        let units = [(0..1, false), (1..6, true)];
        assert_eq!(choose(&units, 4), (vec![1, 4, 5], 3));
        assert_eq!(choose(&[(0..6, false)], 4), (vec![0, 4, 5], 3));
    }

    #[test]
    fn every_running_lane_before_any_call() {
        // Two running lanes with a call each, three rows: both lanes and the mark.
        let units = [(0..2, true), (2..4, false), (4..6, true)];
        assert_eq!(choose(&units, 3), (vec![0, 4], 4));
    }

    #[test]
    fn no_room_shows_nothing_and_counts_all() {
        assert_eq!(choose(&[(0..3, true)], 0), (vec![], 3));
    }
}
