//! The real TUI event loop under tokio's paused clock: a flood of deltas is drawn at most 60
//! times a second, and once the turn is over nothing wakes the loop (idle = no frames).

mod tui_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tooloop::agent::protocol::{AgentCommand, AgentEvent, Terminal as Reason};
use tooloop::tui::app::App;
use tooloop::tui::event_loop::{self, Exit, Screen};
use tooloop::tui::view;
use tui_support::*;

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
    let shown = match app.conversation.cells().last().map(|c| &c.kind) {
        Some(tooloop::tui::cells::CellKind::Assistant(md)) => md.text().len(),
        _ => 0,
    };
    assert_eq!(shown, 20_000 * "word ".len());
}
