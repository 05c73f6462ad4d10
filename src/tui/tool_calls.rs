//! Every tool call the screen knows of, keyed by tool_use id: the one record that the
//! conversation's tool lines and the tools pane's rows both draw from. Agent events update
//! it; panes keep only which ids they show, in their own order.

use std::collections::{HashMap, VecDeque};

use ratatui::style::{Modifier, Style};
use tokio::time::Instant;

use super::theme::Theme;
use crate::protocol::ToolOutcome;

/// Where a tool call is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolState {
    Streaming,
    Queued,
    Approval,
    Running,
    Ok,
    Error,
    Cancelled,
    /// The user (or a rule) refused it.
    Denied,
}

impl ToolState {
    pub fn is_active(self) -> bool {
        matches!(
            self,
            ToolState::Streaming | ToolState::Queued | ToolState::Approval | ToolState::Running
        )
    }

    /// A still icon (the tools pane animates Running with a spinner instead).
    pub fn icon(self) -> &'static str {
        match self {
            ToolState::Streaming => "…",
            ToolState::Queued => "○",
            ToolState::Approval => "?",
            ToolState::Running => "▶",
            ToolState::Ok => "✓",
            ToolState::Error => "✗",
            ToolState::Cancelled => "⊘",
            ToolState::Denied => "✗",
        }
    }

    pub fn style(self, theme: &Theme) -> Style {
        match self {
            ToolState::Ok => theme.ok,
            ToolState::Error | ToolState::Denied => theme.error,
            ToolState::Cancelled | ToolState::Streaming | ToolState::Queued => theme.dim,
            ToolState::Approval => theme.accent.add_modifier(Modifier::BOLD),
            ToolState::Running => theme.accent,
        }
    }
}

impl From<ToolOutcome> for ToolState {
    fn from(o: ToolOutcome) -> Self {
        match o {
            ToolOutcome::Ok => ToolState::Ok,
            ToolOutcome::Error => ToolState::Error,
            ToolOutcome::Cancelled => ToolState::Cancelled,
            ToolOutcome::Denied => ToolState::Denied,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub summary: String,
    pub state: ToolState,
    /// The executor's measure (from start to end), once it ended.
    pub duration_ms: Option<u64>,
    /// Live output while it runs, then the final output.
    pub output: String,
    pub queued_at: Instant,
    pub started_at: Option<Instant>,
    pub ended_at: Option<Instant>,
    /// Bumped on every change, so views re-render a call only when it changed.
    pub version: u64,
}

impl ToolCall {
    /// The call ended (`tool_end`), for the parent's calls and a subagent's alike. A denied
    /// call stays denied; a call that never started (denied, invalid) still gets a bar.
    pub fn end(&mut self, outcome: ToolOutcome, duration_ms: u64, output: String, now: Instant) {
        if self.state != ToolState::Denied {
            self.state = outcome.into();
        }
        self.duration_ms = Some(duration_ms);
        self.output = output;
        self.ended_at = Some(now);
        self.started_at.get_or_insert(now);
    }
}

/// Changes remembered for `changed_since`; a reader further behind rechecks everything.
const LOG_LEN: usize = 1024;

#[derive(Default)]
pub struct ToolCalls {
    calls: HashMap<String, ToolCall>,
    clock: u64,
    /// Calls in the Running state and in any active state, kept up to date so a frame does
    /// not count them.
    running: usize,
    active: usize,
    /// (clock after the change, id) of the last changes, oldest first.
    log: VecDeque<(u64, String)>,
}

impl ToolCalls {
    pub fn get(&self, id: &str) -> Option<&ToolCall> {
        self.calls.get(id)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.calls.contains_key(id)
    }

    /// Adds a call, or moves a known one to `state` (and a better summary, if given).
    pub fn upsert(&mut self, id: &str, name: &str, summary: &str, state: ToolState, now: Instant) {
        if self.calls.contains_key(id) {
            self.update(id, |c| {
                c.state = state;
                if !summary.is_empty() {
                    c.summary = summary.to_string();
                }
            });
            return;
        }
        self.clock += 1;
        self.running += usize::from(state == ToolState::Running);
        self.active += usize::from(state.is_active());
        self.note(id);
        self.calls.insert(
            id.to_string(),
            ToolCall {
                id: id.to_string(),
                name: name.to_string(),
                summary: summary.to_string(),
                state,
                duration_ms: None,
                output: String::new(),
                queued_at: now,
                started_at: None,
                ended_at: None,
                version: self.clock,
            },
        );
    }

    /// Changes one call (unknown ids are ignored: a late event for a forgotten call).
    pub fn update(&mut self, id: &str, f: impl FnOnce(&mut ToolCall)) {
        if let Some(c) = self.calls.get_mut(id) {
            let was = (c.state == ToolState::Running, c.state.is_active());
            f(c);
            let is = (c.state == ToolState::Running, c.state.is_active());
            self.running = self.running + usize::from(is.0) - usize::from(was.0);
            self.active = self.active + usize::from(is.1) - usize::from(was.1);
            self.clock += 1;
            c.version = self.clock;
            self.note(id);
        }
    }

    fn note(&mut self, id: &str) {
        if self.log.len() == LOG_LEN {
            self.log.pop_front();
        }
        self.log.push_back((self.clock, id.to_string()));
    }

    /// Bumped on every change of any call.
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// Ids changed after `clock` (a value of `clock()`), or None when the log no longer
    /// reaches back that far (the reader must then recheck every call it shows).
    pub fn changed_since(&self, clock: u64) -> Option<impl Iterator<Item = &str>> {
        let first = self.log.front().map_or(u64::MAX, |(c, _)| *c);
        if clock < self.clock && first > clock + 1 {
            return None;
        }
        let skip = self.log.partition_point(|(c, _)| *c <= clock);
        Some(
            self.log
                .range(skip..)
                .map(|(_, id): &(u64, String)| id.as_str()),
        )
    }

    /// Calls in the Running state.
    pub fn running(&self) -> usize {
        self.running
    }

    /// Calls not finished yet (streaming, queued, waiting for approval or running).
    pub fn active(&self) -> usize {
        self.active
    }

    /// A turn ended: whatever did not finish was cancelled.
    pub fn cancel_unfinished(&mut self, now: Instant) {
        let active: Vec<String> = self
            .calls
            .values()
            .filter(|c| c.state.is_active())
            .map(|c| c.id.clone())
            .collect();
        for id in active {
            self.update(&id, |c| {
                c.state = ToolState::Cancelled;
                c.ended_at = Some(now);
            });
        }
    }

    /// Keeps only the calls in `keep` (the ones some pane still shows).
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.calls.retain(|id, _| keep(id));
        let states = || self.calls.values().map(|c| c.state);
        self.running = states().filter(|s| *s == ToolState::Running).count();
        self.active = states().filter(|s| s.is_active()).count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn one_record_per_id_and_versions_move() {
        let now = Instant::now();
        let mut calls = ToolCalls::default();
        calls.upsert("a", "read_file", "", ToolState::Streaming, now);
        let v0 = calls.get("a").map(|c| c.version);
        calls.upsert("a", "read_file", "Cargo.toml", ToolState::Queued, now);
        let a = calls.get("a").expect("a");
        assert_eq!(
            (a.state, a.summary.as_str()),
            (ToolState::Queued, "Cargo.toml")
        );
        assert!(Some(a.version) > v0);
        calls.upsert("a", "read_file", "", ToolState::Running, now);
        assert_eq!(
            calls.get("a").map(|c| c.summary.as_str()),
            Some("Cargo.toml")
        );
        assert_eq!(calls.running(), 1);
        calls.cancel_unfinished(now);
        assert_eq!(calls.get("a").map(|c| c.state), Some(ToolState::Cancelled));
        calls.update("missing", |_| panic!("unknown ids are ignored"));
        assert_eq!(calls.running(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn change_log_names_what_changed_and_knows_when_it_is_too_short() {
        let now = Instant::now();
        let mut calls = ToolCalls::default();
        calls.upsert("a", "t", "", ToolState::Queued, now);
        let seen = calls.clock();
        calls.upsert("b", "t", "", ToolState::Running, now);
        calls.update("a", |c| c.state = ToolState::Running);
        let changed: Vec<&str> = calls.changed_since(seen).expect("in the log").collect();
        assert_eq!(changed, ["b", "a"]);
        assert_eq!(
            calls.changed_since(calls.clock()).map(|i| i.count()),
            Some(0)
        );
        assert_eq!((calls.running(), calls.active()), (2, 2));
        for _ in 0..LOG_LEN {
            calls.update("b", |c| c.state = ToolState::Ok);
        }
        assert!(calls.changed_since(seen).is_none());
        assert_eq!((calls.running(), calls.active()), (1, 1));
        calls.retain(|id| id == "b");
        assert_eq!((calls.running(), calls.active()), (0, 0));
    }
}
