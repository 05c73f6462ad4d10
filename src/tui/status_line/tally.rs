//! The figures of Claude Code's status-line `cost` object that tooloop counts itself, from
//! the agent's events: wall time since the session's start, time spent waiting on the
//! model's API (request sent → its stream ended or failed), and lines added and removed by
//! edits that succeeded (counted from the call's diff or new file, as the approval showed
//! them).

use std::collections::HashMap;

use tokio::time::Instant;

use crate::protocol::AgentEvent;
use crate::protocol::approval::Preview;

#[derive(Debug)]
pub struct Tally {
    started: Instant,
    api_ms: u64,
    /// The request in flight, since when.
    api_since: Option<Instant>,
    /// Lines (added, removed) of each edit call not yet ended.
    pending: HashMap<String, (u64, u64)>,
    pub lines_added: u64,
    pub lines_removed: u64,
}

impl Tally {
    pub fn new(now: Instant) -> Tally {
        Tally {
            started: now,
            api_ms: 0,
            api_since: None,
            pending: HashMap::new(),
            lines_added: 0,
            lines_removed: 0,
        }
    }

    pub fn observe(&mut self, event: &AgentEvent, now: Instant) {
        match event {
            AgentEvent::RequestStart { .. } => {
                self.end_request(now);
                self.api_since = Some(now);
            }
            AgentEvent::StreamEnd { .. }
            | AgentEvent::RequestFailed { .. }
            | AgentEvent::Error { .. }
            | AgentEvent::Done(_) => self.end_request(now),
            AgentEvent::ToolUse {
                id,
                preview: Some(p),
                ..
            } => {
                if let Some(counts) = lines_of(p) {
                    self.pending.insert(id.clone(), counts);
                }
            }
            AgentEvent::ToolEnd { id, is_error, .. } => {
                if let Some((added, removed)) = self.pending.remove(id)
                    && !is_error
                {
                    self.lines_added += added;
                    self.lines_removed += removed;
                }
            }
            _ => {}
        }
    }

    fn end_request(&mut self, now: Instant) {
        if let Some(t) = self.api_since.take() {
            self.api_ms += now.duration_since(t).as_millis() as u64;
        }
    }

    pub fn duration_ms(&self, now: Instant) -> u64 {
        now.duration_since(self.started).as_millis() as u64
    }

    /// The API time so far, a request in flight included.
    pub fn api_duration_ms(&self, now: Instant) -> u64 {
        self.api_ms
            + self
                .api_since
                .map_or(0, |t| now.duration_since(t).as_millis() as u64)
    }
}

/// (added, removed) lines of a change, None for a preview that is no file change.
fn lines_of(p: &Preview) -> Option<(u64, u64)> {
    match p {
        Preview::Diff { unified_diff, .. } => {
            let mut counts = (0, 0);
            for line in unified_diff.lines() {
                if line.starts_with('+') && !line.starts_with("+++") {
                    counts.0 += 1;
                } else if line.starts_with('-') && !line.starts_with("---") {
                    counts.1 += 1;
                }
            }
            Some(counts)
        }
        Preview::NewFile { content, .. } => Some((content.lines().count() as u64, 0)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn tool_use(id: &str, preview: Preview) -> AgentEvent {
        AgentEvent::ToolUse {
            id: id.into(),
            name: "edit_file".into(),
            input: serde_json::Value::Null,
            safe: false,
            summary: String::new(),
            preview: Some(preview),
        }
    }

    fn tool_end(id: &str, is_error: bool) -> AgentEvent {
        AgentEvent::ToolEnd {
            id: id.into(),
            name: "edit_file".into(),
            is_error,
            outcome: if is_error {
                crate::protocol::ToolOutcome::Error
            } else {
                crate::protocol::ToolOutcome::Ok
            },
            duration_ms: 1,
            output: String::new(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn counts_edits_that_succeeded_and_time_waiting_on_the_api() {
        let t0 = Instant::now();
        let mut t = Tally::new(t0);
        let diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n keep\n-old\n+new\n+more\n";
        t.observe(
            &tool_use(
                "a",
                Preview::Diff {
                    path: "x".into(),
                    unified_diff: diff.into(),
                    note: None,
                },
            ),
            t0,
        );
        t.observe(&tool_end("a", false), t0);
        t.observe(
            &tool_use(
                "b",
                Preview::NewFile {
                    path: "y".into(),
                    content: "1\n2\n3\n".into(),
                },
            ),
            t0,
        );
        // A failed write changed nothing.
        t.observe(&tool_end("b", true), t0);
        assert_eq!((t.lines_added, t.lines_removed), (2, 1));
        t.observe(
            &AgentEvent::RequestFailed {
                status: 529,
                body: String::new(),
            },
            t0,
        );
        assert_eq!(t.api_duration_ms(t0), 0, "no request was in flight");
        let body = std::sync::Arc::new(crate::provider::RequestBody::new(&b"{}"[..]));
        let start = AgentEvent::RequestStart {
            turn: 1,
            attempt: 1,
            model: "m".into(),
            body,
        };
        t.observe(&start, t0);
        let t1 = t0 + Duration::from_millis(1500);
        assert_eq!(t.api_duration_ms(t1), 1500, "in flight counts");
        t.observe(
            &AgentEvent::StreamEnd {
                turn: 1,
                stop_reason: None,
                usage: None,
            },
            t1,
        );
        let t2 = t1 + Duration::from_millis(4000);
        assert_eq!(t.api_duration_ms(t2), 1500);
        assert_eq!(t.duration_ms(t2), 5500);
    }
}
