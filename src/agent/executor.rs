//! The StreamingToolExecutor (DESIGN.md §5).
//!
//! `add()` is called the moment a tool_use block is complete. A driver task owns the queue:
//! a queued call starts when nothing runs, or when it is concurrency-safe and everything
//! running is safe; the queue is taken in order, so an unsafe call waits for all before it
//! and blocks all after it. Results come back in tool_use order, one per tool_use.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::message::ContentBlock;
use crate::protocol::{AgentEvent, ToolOutcome};
use crate::tools::{ToolOutput, ToolRegistry};

use super::exec_env::{ExecEnv, ToolExec};
use super::tool_call::Call;
use crate::message::markers::INTERRUPTED;

/// One finished call, in tool_use order.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolRun {
    pub id: String,
    pub name: String,
    pub output: ToolOutput,
    /// None when the call never started (invalid input, aborted while queued, denied).
    pub started_at: Option<Instant>,
    pub ended_at: Instant,
    pub outcome: ToolOutcome,
    /// Consent was refused (kept as "denied" in transcripts).
    pub refused: bool,
}

impl ToolRun {
    pub fn to_block(&self) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: self.id.clone(),
            content: self.output.content.clone(),
            is_error: self.output.is_error,
            images: self.output.images.clone(),
            references: self.output.references.clone(),
        }
    }

    /// How it ran, for the transcript (the same duration the ToolEnd event carried).
    pub fn timing(&self) -> crate::protocol::status::ToolTiming {
        let started = self.started_at.map(|s| {
            let ago = Instant::now().saturating_duration_since(s);
            let wall = std::time::SystemTime::now()
                .checked_sub(ago)
                .unwrap_or(std::time::UNIX_EPOCH);
            crate::protocol::history_observer::rfc3339_ms(wall)
        });
        crate::protocol::status::ToolTiming {
            id: self.id.clone(),
            started,
            duration_ms: self
                .started_at
                .map(|s| self.ended_at.duration_since(s).as_millis() as u64)
                .unwrap_or(0),
            outcome: if self.refused {
                ToolOutcome::Denied
            } else {
                self.outcome
            },
        }
    }
}

enum Msg {
    Add {
        id: String,
        name: String,
        input: Value,
    },
    AddError {
        id: String,
        name: String,
        error: String,
    },
    StreamEnded,
}

pub struct StreamingToolExecutor {
    tx: mpsc::UnboundedSender<Msg>,
    done: oneshot::Receiver<Vec<ToolRun>>,
    task: JoinHandle<()>,
    registry: Arc<ToolRegistry>,
}

impl StreamingToolExecutor {
    /// Starts the driver. `cancel` is the turn's token: cancelling it interrupts every call.
    pub fn new(env: ExecEnv, cancel: CancellationToken) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let (done_tx, done) = oneshot::channel();
        let registry = env.registry.clone();
        let task = tokio::spawn(async move {
            let runs = Driver::new(env, cancel).run(rx).await;
            let _ = done_tx.send(runs);
        });
        StreamingToolExecutor {
            tx,
            done,
            task,
            registry,
        }
    }

    /// Whether a call may run beside other safe calls (unknown tools count as safe: they
    /// are answered at once and never run).
    pub fn is_safe(&self, name: &str, input: &Value) -> bool {
        self.registry
            .get(name)
            .map(|r| r.tool.is_concurrency_safe(input))
            .unwrap_or(true)
    }

    /// The event that announces a complete tool_use block: its safety, summary and preview
    /// come from the tool itself, so front ends need no registry of their own.
    pub fn tool_use_event(&self, id: &str, name: &str, input: &Value) -> AgentEvent {
        AgentEvent::ToolUse {
            id: id.to_string(),
            name: name.to_string(),
            input: input.clone(),
            safe: self.is_safe(name, input),
            summary: self.registry.summary(name, input),
            preview: self.registry.preview(name, input),
        }
    }

    /// The announcement of a tool_use whose input was not JSON: it is answered with an
    /// error and never runs, so it counts as safe and has nothing to preview.
    pub fn invalid_tool_use_event(&self, id: &str, name: &str) -> AgentEvent {
        let input = Value::Object(Default::default());
        AgentEvent::ToolUse {
            id: id.to_string(),
            name: name.to_string(),
            summary: self.registry.summary(name, &input),
            input,
            safe: true,
            preview: None,
        }
    }

    /// Hands a complete tool_use block over; it starts now if the rules allow.
    pub fn add(&self, id: &str, name: &str, input: &Value) {
        let _ = self.tx.send(Msg::Add {
            id: id.to_string(),
            name: name.to_string(),
            input: input.clone(),
        });
    }

    /// Records a call that is answered with `error` without running (its input was not JSON).
    pub fn add_error(&self, id: &str, name: &str, error: &str) {
        let _ = self.tx.send(Msg::AddError {
            id: id.to_string(),
            name: name.to_string(),
            error: error.to_string(),
        });
    }

    /// Says the model's stream is over: parallel and serial strategies start now, and
    /// `finish` can complete once everything is done.
    pub fn stream_ended(&self) {
        let _ = self.tx.send(Msg::StreamEnded);
    }

    /// Waits for every call and returns one run per tool_use, in order.
    pub async fn finish(self) -> Vec<ToolRun> {
        let _ = self.tx.send(Msg::StreamEnded);
        match self.done.await {
            Ok(runs) => runs,
            Err(_) => {
                // The driver panicked: a bug, but history must stay valid.
                tracing::error!("tool executor driver ended without results");
                self.task.abort();
                Vec::new()
            }
        }
    }
}

enum State {
    Queued,
    Running,
    Done,
}

struct Entry {
    id: String,
    name: String,
    input: Value,
    safe: bool,
    state: State,
    run: Option<ToolRun>,
    token: CancellationToken,
    /// Consent was refused.
    refused: bool,
}

struct Finished {
    index: usize,
    output: ToolOutput,
    started_at: Option<Instant>,
    outcome: ToolOutcome,
    refused: bool,
}

struct Driver {
    env: ExecEnv,
    turn: CancellationToken,
    /// Child of the turn token: a failing bash call cancels it, stopping its siblings.
    siblings: CancellationToken,
    sibling_reason: Arc<Mutex<Option<String>>>,
    entries: Vec<Entry>,
    stream_ended: bool,
    running: FuturesUnordered<JoinHandle<Finished>>,
}

impl Driver {
    fn new(env: ExecEnv, turn: CancellationToken) -> Self {
        let siblings = turn.child_token();
        Driver {
            env,
            turn,
            siblings,
            sibling_reason: Arc::new(Mutex::new(None)),
            entries: Vec::new(),
            stream_ended: false,
            running: FuturesUnordered::new(),
        }
    }

    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Msg>) -> Vec<ToolRun> {
        let mut rx_open = true;
        loop {
            if self.stream_ended && self.running.is_empty() && self.all_settled() {
                break;
            }
            tokio::select! {
                biased;
                msg = rx.recv(), if rx_open => match msg {
                    Some(Msg::Add { id, name, input }) => self.add(id, name, input, None),
                    Some(Msg::AddError { id, name, error }) => {
                        self.add(id, name, Value::Null, Some(error))
                    }
                    Some(Msg::StreamEnded) => self.stream_ended = true,
                    None => {
                        rx_open = false;
                        self.stream_ended = true;
                    }
                },
                Some(joined) = self.running.next(), if !self.running.is_empty() => {
                    match joined {
                        Ok(f) => self.finish(f),
                        Err(e) => tracing::error!("tool task failed: {e}"),
                    }
                }
                _ = self.turn.cancelled(), if self.has_queued() => {}
            }
            if self.turn.is_cancelled() {
                self.settle_queued(INTERRUPTED);
            } else if self.siblings.is_cancelled() {
                let reason = self.sibling_reason();
                self.settle_queued(&reason);
            }
            self.schedule();
        }
        let now = Instant::now();
        self.entries
            .into_iter()
            .map(|e| {
                e.run.unwrap_or_else(|| ToolRun {
                    id: e.id,
                    name: e.name,
                    output: ToolOutput::error(INTERRUPTED),
                    started_at: None,
                    ended_at: now,
                    outcome: ToolOutcome::Cancelled,
                    refused: false,
                })
            })
            .collect()
    }

    fn all_settled(&self) -> bool {
        self.entries.iter().all(|e| matches!(e.state, State::Done))
    }

    fn has_queued(&self) -> bool {
        self.entries
            .iter()
            .any(|e| matches!(e.state, State::Queued))
    }

    fn sibling_reason(&self) -> String {
        self.sibling_reason
            .lock()
            .ok()
            .and_then(|r| r.clone())
            .unwrap_or_else(|| "cancelled: a parallel tool call failed".to_string())
    }

    fn add(&mut self, id: String, name: String, input: Value, error: Option<String>) {
        let index = self.entries.len();
        let token = self.siblings.child_token();
        // A deferred tool the model named exactly runs, and is offered from now on.
        if let Some(d) = self.env.registry.deferral() {
            d.load(&[&name]);
        }
        let (safe, immediate) = match self.env.registry.get(&name) {
            _ if error.is_some() => (true, error),
            None => (
                true,
                Some(crate::mcp::defer::no_such_tool(&self.env.registry, &name)),
            ),
            Some(reg) => match reg.validate(&input) {
                Err(e) => (true, Some(format!("Error: invalid input for {name}: {e}"))),
                Ok(()) => (reg.tool.is_concurrency_safe(&input), None),
            },
        };
        self.entries.push(Entry {
            id,
            name,
            input,
            safe,
            state: State::Queued,
            run: None,
            token,
            refused: false,
        });
        if let Some(message) = immediate {
            self.settle(index, ToolOutput::error(message), None, ToolOutcome::Error);
        } else if self.turn.is_cancelled() {
            let output = ToolOutput::error(INTERRUPTED);
            self.settle(index, output, None, ToolOutcome::Cancelled);
        } else if self.siblings.is_cancelled() {
            let reason = self.sibling_reason();
            self.settle(
                index,
                ToolOutput::error(reason),
                None,
                ToolOutcome::Cancelled,
            );
        }
    }

    /// Starts every queued call the strategy and the concurrency rule allow, in order.
    fn schedule(&mut self) {
        if self.turn.is_cancelled() {
            return;
        }
        if self.env.strategy != ToolExec::Streaming && !self.stream_ended {
            return;
        }
        for i in 0..self.entries.len() {
            if !matches!(self.entries[i].state, State::Queued) {
                continue;
            }
            if !self.can_start(self.entries[i].safe) {
                break;
            }
            self.start(i);
        }
    }

    fn can_start(&self, safe: bool) -> bool {
        let mut running = self
            .entries
            .iter()
            .filter(|e| matches!(e.state, State::Running));
        match self.env.strategy {
            ToolExec::Serial => running.next().is_none(),
            ToolExec::Streaming | ToolExec::Parallel => {
                let mut any = false;
                let all_safe = running.all(|e| {
                    any = true;
                    e.safe
                });
                !any || (safe && all_safe)
            }
        }
    }

    fn start(&mut self, index: usize) {
        let entry = &mut self.entries[index];
        entry.state = State::Running;
        let Some(reg) = self.env.registry.get(&entry.name) else {
            return;
        };
        let tool = reg.tool.clone();
        let id = entry.id.clone();
        let name = entry.name.clone();
        let input = entry.input.clone();
        let token = entry.token.clone();
        let env = self.env.clone();
        let turn = self.turn.clone();
        let sibling_reason = self.sibling_reason.clone();
        let call = Call {
            tool,
            id,
            name,
            input,
            token,
            turn,
            sibling_reason,
        };
        self.running.push(tokio::spawn(async move {
            let (output, started_at, outcome, refused) = call.run(&env).await;
            Finished {
                index,
                output,
                started_at,
                outcome,
                refused,
            }
        }));
    }

    fn finish(&mut self, f: Finished) {
        let e = &self.entries[f.index];
        let tool = self.env.registry.get(&e.name).map(|r| &r.tool);
        let stops_siblings = self.env.sibling_abort
            && f.outcome == ToolOutcome::Error
            && tool.is_some_and(|t| t.cancels_siblings_on_error())
            && !self.turn.is_cancelled()
            && !self.siblings.is_cancelled()
            && f.started_at.is_some();
        if stops_siblings {
            let summary = tool.map(|t| t.summary(&e.input)).unwrap_or_default();
            if let Ok(mut r) = self.sibling_reason.lock() {
                *r = Some(format!(
                    "cancelled: parallel tool call {}({summary}) failed (id {})",
                    e.name, e.id
                ));
            }
            self.siblings.cancel();
        }
        self.entries[f.index].refused = f.refused;
        self.settle(f.index, f.output, f.started_at, f.outcome);
    }

    fn settle_queued(&mut self, reason: &str) {
        for i in 0..self.entries.len() {
            if matches!(self.entries[i].state, State::Queued) {
                let output = ToolOutput::error(reason);
                self.settle(i, output, None, ToolOutcome::Cancelled);
            }
        }
    }

    fn settle(
        &mut self,
        index: usize,
        output: ToolOutput,
        started_at: Option<Instant>,
        outcome: ToolOutcome,
    ) {
        let ended_at = Instant::now();
        let e = &mut self.entries[index];
        e.state = State::Done;
        let duration_ms = started_at
            .map(|s| ended_at.duration_since(s).as_millis() as u64)
            .unwrap_or(0);
        self.env.events.send(AgentEvent::ToolEnd {
            id: e.id.clone(),
            name: e.name.clone(),
            is_error: output.is_error,
            outcome,
            duration_ms,
            output: output.content.clone(),
        });
        e.run = Some(ToolRun {
            id: e.id.clone(),
            name: e.name.clone(),
            output,
            started_at,
            ended_at,
            outcome,
            refused: e.refused,
        });
    }
}
