//! The real TUI event loop under tokio's paused clock: a flood of deltas is drawn at most 60
//! times a second, once the turn is over nothing wakes the loop (idle = no frames), and a key
//! is drawn at once unless a frame was drawn in the last slot.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use support::tui::*;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal as Reason};
use tooloop::tui::app::App;
use tooloop::tui::event_loop::{self, Exit, Screen};
use tooloop::tui::view;

/// Draws into a TestBackend and records when each frame was drawn (ms since start).
struct Recording {
    term: Terminal<TestBackend>,
    start: Instant,
    frames: Arc<Mutex<Vec<u64>>>,
}

impl Screen for Recording {
    fn draw_frame(&mut self, app: &mut App, now: Instant) -> std::io::Result<()> {
        self.term.draw(|f| view::draw(app, f, now))?;
        let ms = (now - self.start).as_millis() as u64;
        self.frames.lock().expect("frames").push(ms);
        Ok(())
    }

    fn resized(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn a_delta_flood_is_drawn_at_most_60_times_a_second_and_idle_draws_nothing() {
    let mut app = app();
    let start = Instant::now();
    let frames: Arc<Mutex<Vec<u64>>> = Arc::default();
    let mut screen = Recording {
        term: Terminal::new(TestBackend::new(100, 30)).expect("terminal"),
        start,
        frames: frames.clone(),
    };
    let (tx, rx) = mpsc::unbounded_channel::<AgentEvent>();
    let (commands, _commands_rx) = mpsc::unbounded_channel::<AgentCommand>();
    let producer = tokio::spawn(async move {
        let send = |e| tx.send(e).expect("loop alive");
        send(AgentEvent::PromptStart { text: "go".into() });
        send(AgentEvent::RequestStart {
            turn: 1,
            attempt: 1,
            model: "m".into(),
            body: Arc::new(json!({}).into()),
        });
        // 20 deltas every millisecond for one second: 20,000 deltas/s.
        let mut tick = tokio::time::interval(Duration::from_millis(1));
        for _ in 0..1000 {
            tick.tick().await;
            for _ in 0..20 {
                send(AgentEvent::TextDelta {
                    text: "word ".into(),
                });
            }
        }
        send(AgentEvent::StreamEnd {
            turn: 1,
            stop_reason: Some("end_turn".into()),
            usage: None,
        });
        send(done(Reason::Completed));
        // Five idle seconds with the channel open: the loop must not draw.
        tokio::time::sleep(Duration::from_secs(5)).await;
    });
    let input = futures::stream::pending::<std::io::Result<crossterm::event::Event>>();
    let exit = event_loop::run(&mut screen, &mut app, rx, &commands, input)
        .await
        .expect("loop");
    producer.await.expect("producer");
    assert_eq!(exit, Exit::AgentGone);

    let frames = frames.lock().expect("frames").clone();
    let streaming = frames.iter().filter(|t| **t < 1000).count();
    assert!(
        (50..=60).contains(&streaming),
        "{streaming} frames in the streaming second: {frames:?}"
    );
    assert!(
        frames.windows(2).all(|w| w[1] - w[0] >= 16),
        "frames at least 16.667 ms apart: {frames:?}"
    );
    let idle: Vec<&u64> = frames.iter().filter(|t| **t > 1100).collect();
    assert!(idle.is_empty(), "frames while idle: {idle:?}");
    // Everything that was sent is on screen in the end.
    let shown = match app.panes.conversation.cells().last().map(|c| &c.kind) {
        Some(tooloop::tui::panes::cells::CellKind::Assistant(md)) => md.text().len(),
        _ => 0,
    };
    assert_eq!(shown, 20_000 * "word ".len());
}

/// Runs the loop with `keys` typed at the given offsets (ms from the start), and deltas every
/// millisecond from `stream_from` (ms) on while `streaming`. Returns (key times, frame times)
/// in µs from the start.
async fn keys_and_frames(keys: &[u64], streaming: Option<u64>) -> (Vec<u64>, Vec<u64>) {
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    let mut app = app();
    let start = Instant::now();
    let frames: Arc<Mutex<Vec<u64>>> = Arc::default();
    let mut screen = RecordingUs {
        term: Terminal::new(TestBackend::new(100, 30)).expect("terminal"),
        start,
        frames: frames.clone(),
    };
    let (tx, rx) = mpsc::unbounded_channel::<AgentEvent>();
    let (commands, _commands_rx) = mpsc::unbounded_channel::<AgentCommand>();
    let (key_tx, mut key_rx) = mpsc::unbounded_channel::<std::io::Result<Event>>();
    let sent: Arc<Mutex<Vec<u64>>> = Arc::default();
    let stamps = sent.clone();
    let offsets = keys.to_vec();
    let typist = tokio::spawn(async move {
        for ms in offsets {
            tokio::time::sleep_until(start + Duration::from_millis(ms)).await;
            let k = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
            stamps
                .lock()
                .expect("stamps")
                .push((Instant::now() - start).as_micros() as u64);
            key_tx.send(Ok(Event::Key(k))).expect("loop alive");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    });
    let end = keys.last().copied().unwrap_or(0) + 50;
    let producer = tokio::spawn(async move {
        let Some(from) = streaming else {
            // Keep the channel open without sending anything.
            tokio::time::sleep_until(start + Duration::from_millis(end + 200)).await;
            return;
        };
        tokio::time::sleep_until(start + Duration::from_millis(from)).await;
        let _ = tx.send(AgentEvent::PromptStart { text: "go".into() });
        let mut tick = tokio::time::interval(Duration::from_millis(1));
        while Instant::now() < start + Duration::from_millis(end) {
            tick.tick().await;
            let _ = tx.send(AgentEvent::TextDelta {
                text: "word ".into(),
            });
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    });
    let input = futures::stream::poll_fn(move |cx| key_rx.poll_recv(cx));
    let exit = event_loop::run(&mut screen, &mut app, rx, &commands, input)
        .await
        .expect("loop");
    assert_eq!(exit, Exit::InputClosed);
    typist.await.expect("typist");
    producer.abort();
    let sent = sent.lock().expect("sent").clone();
    let frames = frames.lock().expect("frames").clone();
    (sent, frames)
}

struct RecordingUs {
    term: Terminal<TestBackend>,
    start: Instant,
    frames: Arc<Mutex<Vec<u64>>>,
}

impl Screen for RecordingUs {
    fn draw_frame(&mut self, app: &mut App, now: Instant) -> std::io::Result<()> {
        self.term.draw(|f| view::draw(app, f, now))?;
        let us = (now - self.start).as_micros() as u64;
        self.frames.lock().expect("frames").push(us);
        Ok(())
    }

    fn resized(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The first frame at or after `t`.
fn frame_after(frames: &[u64], t: u64) -> u64 {
    *frames
        .iter()
        .find(|f| **f >= t)
        .expect("a frame after the key")
}

#[tokio::test(start_paused = true)]
async fn a_key_is_drawn_at_once_when_no_frame_was_drawn_in_the_last_slot() {
    // Idle, keys 40 ms apart (the keystroke bench's rhythm), and one 17 ms after the last.
    let keys = [500, 540, 580, 620, 637];
    let (sent, frames) = keys_and_frames(&keys, None).await;
    for t in &sent {
        assert_eq!(frame_after(&frames, *t), *t, "key at {t} µs: {frames:?}");
    }
    // Nothing but the first frame and one per key: keys do not start a frame clock.
    assert_eq!(frames.len(), 1 + keys.len(), "{frames:?}");
}

#[tokio::test(start_paused = true)]
async fn a_key_right_after_a_frame_waits_for_the_slot_and_no_longer() {
    // The second key comes 5 ms after the first one's frame: it is drawn when the slot ends.
    let (sent, frames) = keys_and_frames(&[500, 505], None).await;
    assert_eq!(frame_after(&frames, sent[0]), sent[0]);
    let slot = event_loop::FRAME.as_micros() as u64;
    let waited = frame_after(&frames, sent[1]) - sent[1];
    assert!(waited <= slot, "waited {waited} µs: {frames:?}");
    // tokio's timer rounds the slot's end up to the next millisecond.
    let drawn = frame_after(&frames, sent[1]);
    assert!(
        (sent[0] + slot..=sent[0] + slot + 1_000).contains(&drawn),
        "{frames:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn while_streaming_a_key_waits_at_most_one_frame_slot() {
    let keys: Vec<u64> = (0..20).map(|i| 300 + i * 37).collect();
    let (sent, frames) = keys_and_frames(&keys, Some(100)).await;
    let slot = event_loop::FRAME.as_micros() as u64 + 1_000;
    for t in &sent {
        let waited = frame_after(&frames, *t) - t;
        assert!(waited <= slot, "key at {t} µs waited {waited} µs");
    }
}
