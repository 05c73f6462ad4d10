//! The agent's side of the event channel.

use tokio::sync::mpsc;

use crate::agent::protocol::AgentEvent;

/// Sends [`AgentEvent`]s to a front end. Sending never blocks and never fails loudly: a
/// front end that went away must not stop the loop from keeping history valid.
#[derive(Clone, Debug)]
pub struct EventSink {
    tx: Option<mpsc::UnboundedSender<AgentEvent>>,
}

impl EventSink {
    pub fn new(tx: mpsc::UnboundedSender<AgentEvent>) -> Self {
        EventSink { tx: Some(tx) }
    }

    /// A sink that drops everything (benchmarks, tests that only look at history).
    pub fn null() -> Self {
        EventSink { tx: None }
    }

    pub fn channel() -> (Self, mpsc::UnboundedReceiver<AgentEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (EventSink::new(tx), rx)
    }

    pub fn send(&self, event: AgentEvent) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(event);
        }
    }
}
