//! Plays recorded entries on tokio's clock: each event is sent when its recorded time (divided
//! by the speed) has passed since the replay began, or, stepping, when the user asks for
//! the next step (a block, a tool call: see steps.rs).

use tokio::sync::mpsc;
use tokio::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use crate::recording::timeline::Timed;

/// How the events are paced.
pub enum Pace {
    /// At the recorded times divided by this speed.
    Recorded(f64),
    /// One step (a block, a tool call, an event of its own: steps.rs) per message on this
    /// channel.
    Step(mpsc::UnboundedReceiver<()>),
}

/// Sends `events` to `out` at their pace until done, `cancel` fires or nobody listens.
/// Returns how many were sent.
pub async fn play(
    events: Vec<Timed>,
    mut pace: Pace,
    out: mpsc::UnboundedSender<Timed>,
    cancel: CancellationToken,
) -> usize {
    let start = Instant::now();
    let mut sent = 0;
    let mut stepper = super::steps::Stepper::default();
    for timed in events {
        match &mut pace {
            Pace::Recorded(speed) => {
                let due = start + Duration::from_secs_f64(timed.at_ms as f64 / 1000.0 / *speed);
                tokio::select! {
                    biased;
                    _ = cancel.cancelled() => break,
                    _ = tokio::time::sleep_until(due) => {}
                }
            }
            Pace::Step(next) if stepper.needs_key(&timed.event) => {
                let go = tokio::select! {
                    biased;
                    _ = cancel.cancelled() => None,
                    n = next.recv() => n,
                };
                if go.is_none() {
                    break;
                }
            }
            Pace::Step(_) => {}
        }
        stepper.played(&timed.event);
        if out.send(timed).is_err() {
            break;
        }
        sent += 1;
    }
    sent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::AgentEvent;
    use crate::recording::Kind;
    use crate::recording::timeline::tests::{entry, header};
    use crate::recording::timeline::timeline;

    #[tokio::test(start_paused = true)]
    async fn plays_at_the_recorded_pace_divided_by_speed() {
        let entries = vec![
            entry(0, header()),
            entry(100, Kind::Event(AgentEvent::TurnStart { turn: 1 })),
            entry(900, Kind::Event(AgentEvent::TurnStart { turn: 2 })),
        ];
        let (tx, mut rx) = mpsc::unbounded_channel();
        let start = Instant::now();
        let task = tokio::spawn(play(
            timeline(&entries),
            Pace::Recorded(2.0),
            tx,
            CancellationToken::new(),
        ));
        let mut at = Vec::new();
        while let Some(_t) = rx.recv().await {
            at.push(start.elapsed().as_millis());
        }
        assert_eq!(task.await.unwrap(), 2);
        assert_eq!(at, vec![50, 450]);
    }

    fn timed(event: AgentEvent) -> Timed {
        Timed {
            at_ms: 0,
            t_ms: 0,
            event,
        }
    }

    fn text(t: &str) -> AgentEvent {
        AgentEvent::TextDelta { text: t.into() }
    }

    fn sse() -> AgentEvent {
        AgentEvent::RawSse {
            event: "content_block_delta".into(),
            data: "{}".into(),
        }
    }

    fn tool_start(id: &str) -> AgentEvent {
        AgentEvent::ToolStart {
            id: id.into(),
            name: "bash".into(),
        }
    }

    /// Plays `events` stepping; returns how many arrived after each key.
    async fn steps_of(events: Vec<AgentEvent>) -> Vec<usize> {
        let n = events.len();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let (step, steps) = mpsc::unbounded_channel();
        let task = tokio::spawn(play(
            events.into_iter().map(timed).collect(),
            Pace::Step(steps),
            tx,
            CancellationToken::new(),
        ));
        tokio::time::sleep(Duration::from_secs(5)).await;
        let mut got = 0;
        while rx.try_recv().is_ok() {
            got += 1;
        }
        let mut per_key = vec![got];
        while got < n {
            step.send(()).unwrap();
            tokio::time::sleep(Duration::from_secs(5)).await;
            let mut now = 0;
            while rx.try_recv().is_ok() {
                now += 1;
            }
            got += now;
            per_key.push(now);
        }
        drop(step);
        assert_eq!(task.await.unwrap(), n);
        per_key
    }

    #[tokio::test(start_paused = true)]
    async fn stepping_plays_a_block_or_a_tool_call_per_key() {
        let events = vec![
            AgentEvent::TurnStart { turn: 1 },
            AgentEvent::PromptStart { text: "hi".into() },
            sse(),
            text("one "),
            sse(),
            text("word "),
            text("at a time"),
            AgentEvent::ToolUseStreaming {
                id: "t1".into(),
                name: "bash".into(),
            },
            sse(),
            tool_start("t1"),
            AgentEvent::ToolProgress {
                id: "t1".into(),
                chunk: "out".into(),
            },
            tool_start("t2"),
            text("done"),
            AgentEvent::Notice { text: "n".into() },
            AgentEvent::Usage(Default::default()),
        ];
        // Before any key only bookkeeping; then the prompt, the text block (with its SSE),
        // tool t1, tool t2, the next block, the notice (with the usage after it).
        assert_eq!(steps_of(events).await, vec![1, 2, 4, 4, 1, 1, 2]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_question_ends_its_step() {
        let events = vec![
            tool_start("t1"),
            AgentEvent::PermissionRequest {
                id: "t1".into(),
                tool: "bash".into(),
                input: serde_json::json!({}),
                summary: String::new(),
                preview: None,
                why: Default::default(),
            },
            AgentEvent::Permission {
                id: "t1".into(),
                name: "bash".into(),
                allowed: true,
                rule: None,
            },
            tool_start("t1"),
        ];
        assert_eq!(steps_of(events).await, vec![0, 2, 2]);
    }
}
