//! `--trace FILE`: the turn timeline as Chrome Trace Event JSON (open it in Perfetto or
//! chrome://tracing). Track 1 is the model's stream, one track per tool call after it.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::protocol::AgentEvent;

const PID: u32 = 1;
const STREAM_TID: u32 = 1;

#[derive(Debug)]
pub struct TraceRecorder {
    start: Instant,
    events: Vec<Value>,
    request_open: Option<(u64, String)>,
    retry_open: Option<(u64, String)>,
    queued: HashMap<String, (u64, String)>,
    running: HashMap<String, (u64, String)>,
    tids: HashMap<String, u32>,
}

impl TraceRecorder {
    pub fn new(start: Instant) -> Self {
        let mut t = TraceRecorder {
            start,
            events: Vec::new(),
            request_open: None,
            retry_open: None,
            queued: HashMap::new(),
            running: HashMap::new(),
            tids: HashMap::new(),
        };
        t.thread_name(STREAM_TID, "model stream");
        t
    }

    fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    fn thread_name(&mut self, tid: u32, name: &str) {
        self.events.push(json!({
            "ph": "M", "pid": PID, "tid": tid, "name": "thread_name", "args": {"name": name}
        }));
    }

    fn tid(&mut self, id: &str, name: &str) -> u32 {
        if let Some(t) = self.tids.get(id) {
            return *t;
        }
        let t = STREAM_TID + 1 + self.tids.len() as u32;
        self.tids.insert(id.to_string(), t);
        self.thread_name(t, &format!("{name} {id}"));
        t
    }

    fn slice(&mut self, tid: u32, name: &str, cat: &str, from: u64, to: u64, args: Value) {
        self.events.push(json!({
            "ph": "X", "pid": PID, "tid": tid, "name": name, "cat": cat,
            "ts": from, "dur": to.saturating_sub(from), "args": args,
        }));
    }

    fn instant(&mut self, tid: u32, ts: u64, name: &str, args: Value) {
        self.events.push(json!({
            "ph": "i", "s": "t", "pid": PID, "tid": tid, "name": name, "ts": ts, "args": args,
        }));
    }

    /// Takes one event at the moment it happens.
    pub fn observe(&mut self, event: &AgentEvent) {
        let now = self.now_us();
        match event {
            AgentEvent::RequestStart { turn, attempt, .. } => {
                self.close_retry(now);
                self.request_open = Some((now, format!("turn {turn} attempt {attempt}")));
            }
            AgentEvent::Retry {
                attempt, delay_ms, ..
            } => {
                self.close_request(now, "failed");
                self.retry_open = Some((
                    now,
                    format!("retry wait before attempt {attempt} ({delay_ms} ms)"),
                ));
            }
            AgentEvent::ToolUse { id, name, .. } => {
                self.instant(
                    STREAM_TID,
                    now,
                    &format!("tool_use {name} complete"),
                    json!({"id": id}),
                );
                self.queued.insert(id.clone(), (now, name.clone()));
            }
            AgentEvent::ToolStart { id, name } => {
                let tid = self.tid(id, name);
                if let Some((from, _)) = self.queued.remove(id) {
                    self.slice(tid, "queued", "queue", from, now, json!({"id": id}));
                }
                self.running.insert(id.clone(), (now, name.clone()));
            }
            AgentEvent::ToolEnd {
                id, name, is_error, ..
            } => {
                let tid = self.tid(id, name);
                if let Some((from, _)) = self.queued.remove(id) {
                    self.slice(tid, "queued", "queue", from, now, json!({"id": id}));
                }
                if let Some((from, _)) = self.running.remove(id) {
                    self.slice(
                        tid,
                        name,
                        "tool",
                        from,
                        now,
                        json!({"id": id, "is_error": is_error}),
                    );
                }
            }
            AgentEvent::StreamEnd { stop_reason, .. } => {
                let reason = stop_reason.clone().unwrap_or_default();
                self.close_request(now, &reason);
            }
            AgentEvent::Done(summary) => {
                self.close_request(now, summary.reason.as_str());
                self.close_retry(now);
                self.instant(
                    STREAM_TID,
                    now,
                    &format!("done: {}", summary.reason.as_str()),
                    json!({}),
                );
            }
            _ => {}
        }
    }

    fn close_request(&mut self, now: u64, outcome: &str) {
        if let Some((from, name)) = self.request_open.take() {
            self.slice(
                STREAM_TID,
                &name,
                "stream",
                from,
                now,
                json!({"outcome": outcome}),
            );
        }
    }

    fn close_retry(&mut self, now: u64) {
        if let Some((from, name)) = self.retry_open.take() {
            self.slice(STREAM_TID, &name, "retry", from, now, json!({}));
        }
    }

    pub fn to_json(&self) -> Value {
        json!({"traceEvents": self.events, "displayTimeUnit": "ms"})
    }

    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let mut f = std::fs::File::create(path)?;
        serde_json::to_writer(&mut f, &self.to_json())?;
        f.write_all(b"\n")?;
        f.flush()
    }

    /// (name, start µs, duration µs) of every tool slice: what benchmarks read back.
    pub fn tool_slices(&self) -> Vec<(String, u64, u64)> {
        self.events
            .iter()
            .filter(|e| e["cat"] == "tool")
            .filter_map(|e| {
                Some((
                    e["name"].as_str()?.to_string(),
                    e["ts"].as_u64()?,
                    e["dur"].as_u64()?,
                ))
            })
            .collect()
    }
}

/// A recorder between the agent and a front end, and the file it goes to.
pub struct Tap {
    recorder: std::sync::Arc<std::sync::Mutex<TraceRecorder>>,
    path: std::path::PathBuf,
}

impl Tap {
    /// With `--trace FILE`, puts a recorder on the event channel: every event is observed,
    /// then passed on unchanged. Without it the channel is returned as it is.
    pub fn maybe(
        path: Option<&Path>,
        events: tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
        start: Instant,
    ) -> (
        tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
        Option<Tap>,
    ) {
        let Some(path) = path else {
            return (events, None);
        };
        let recorder = std::sync::Arc::new(std::sync::Mutex::new(TraceRecorder::new(start)));
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let shared = recorder.clone();
        let mut events = events;
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                if let Ok(mut r) = shared.lock() {
                    r.observe(&event);
                }
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
        let tap = Tap {
            recorder,
            path: path.to_path_buf(),
        };
        (rx, Some(tap))
    }

    /// Writes what was recorded; a failure is reported on stderr, never fatal.
    pub fn write(&self) {
        let written = match self.recorder.lock() {
            Ok(r) => r.write(&self.path),
            Err(_) => Err(std::io::Error::other("the trace recorder panicked")),
        };
        if let Err(e) = written {
            eprintln!(
                "tooloop: cannot write the trace to {}: {e}",
                self.path.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Terminal, TurnSummary};
    use crate::provider::Usage;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn records_stream_and_tool_slices_on_one_axis() {
        let mut t = TraceRecorder::new(Instant::now());
        t.observe(&AgentEvent::RequestStart {
            turn: 1,
            attempt: 1,
            model: "m".into(),
            body: Arc::new(json!({}).into()),
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        t.observe(&AgentEvent::ToolUse {
            id: "a".into(),
            name: "read_file".into(),
            input: json!({}),
            safe: true,
            summary: String::new(),
            preview: None,
        });
        t.observe(&AgentEvent::ToolStart {
            id: "a".into(),
            name: "read_file".into(),
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        t.observe(&AgentEvent::ToolEnd {
            id: "a".into(),
            name: "read_file".into(),
            is_error: false,
            outcome: crate::protocol::ToolOutcome::Ok,
            duration_ms: 300,
            output: String::new(),
        });
        t.observe(&AgentEvent::StreamEnd {
            turn: 1,
            stop_reason: Some("tool_use".into()),
            usage: None,
        });
        t.observe(&AgentEvent::Done(TurnSummary {
            cost_usd: None,
            context_tokens: 0,
            reason: Terminal::Completed,
            turns: 1,
            usage: Usage::default(),
            text: String::new(),
            transitions: vec![],
            error: None,
        }));
        assert_eq!(
            t.tool_slices(),
            vec![("read_file".into(), 200_000, 300_000)]
        );
        let v = t.to_json();
        let stream: Vec<&Value> = v["traceEvents"]
            .as_array()
            .expect("array")
            .iter()
            .filter(|e| e["cat"] == "stream")
            .collect();
        assert_eq!(stream.len(), 1);
        assert_eq!(stream[0]["dur"], 500_000);
    }
}
