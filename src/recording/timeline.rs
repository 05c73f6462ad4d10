//! A recording's events on one time axis: what replay plays and export draws. A recording
//! can hold several runs (a resumed session appends), each with its own clock from 0.

use crate::protocol::AgentEvent;
use crate::recording::{Entry, Kind};

/// One event to play: when (ms since the replay's start, on one axis across runs) and the
/// time its own run printed.
#[derive(Clone, Debug)]
pub struct Timed {
    pub at_ms: u64,
    pub t_ms: u64,
    pub event: AgentEvent,
}

/// The events of a recording on one time axis. A recording can hold several runs (a resumed
/// session appends), each with its own clock from 0: later runs start where the earlier one
/// ended.
pub fn timeline(entries: &[Entry]) -> Vec<Timed> {
    let mut out = Vec::with_capacity(entries.len());
    let mut offset = 0u64;
    let mut last = 0u64;
    for entry in entries {
        if matches!(entry.kind, Kind::Header { .. }) {
            offset = last;
            continue;
        }
        let Some(event) = entry.kind.event().cloned() else {
            continue;
        };
        // Times never go backwards, even in a damaged file.
        let at_ms = (offset + entry.t_ms).max(last);
        last = at_ms;
        out.push(Timed {
            at_ms,
            t_ms: entry.t_ms,
            event,
        });
    }
    out
}

/// Entries for tests of what reads a timeline (here and the replay player).
#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn entry(t_ms: u64, kind: Kind) -> Entry {
        Entry {
            t_ms,
            kind,
            req_ms: None,
        }
    }

    pub(crate) fn header() -> Kind {
        crate::recording::writer::header("demo", "m", None, "", &[])
    }

    #[test]
    fn later_runs_continue_the_axis() {
        let entries = vec![
            entry(0, header()),
            entry(5, Kind::Event(AgentEvent::TurnStart { turn: 1 })),
            entry(40, Kind::Event(AgentEvent::TurnStart { turn: 2 })),
            entry(0, header()),
            entry(10, Kind::Event(AgentEvent::TurnStart { turn: 1 })),
        ];
        let t: Vec<(u64, u64)> = timeline(&entries)
            .iter()
            .map(|t| (t.at_ms, t.t_ms))
            .collect();
        assert_eq!(t, vec![(5, 5), (40, 40), (50, 10)]);
    }
}
