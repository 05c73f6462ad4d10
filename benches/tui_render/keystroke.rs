//! Keystroke → frame through the TUI's real event loop (`tui::event_loop::run`): keys arrive
//! on the input stream one every 40 ms (so no frame was drawn in the last frame slot), each
//! typed into the prompt; the latency is from sending the key to the end of the frame that
//! shows it, drawn into a CrosstermBackend buffer (the bytes a terminal would get).
//! Optionally while an answer streams at 20,000 deltas/s (then a key may wait for the 60 fps
//! gate: up to one frame slot). A key's frame is the first one drawn after it was sent whose
//! prompt holds it; the bench fails unless that frame's screen shows the key (the prompt's last
//! characters) and every key found its frame.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc;
use tokio::time::Instant;

use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::App;
use tooloop::tui::event_loop::{self, Screen};
use tooloop::tui::view;

/// Keys typed (30 in CI's short mode).
fn key_count() -> usize {
    if super::short() { 30 } else { 150 }
}
const EVERY: Duration = Duration::from_millis(40);

struct Timed {
    term: Terminal<CrosstermBackend<Vec<u8>>>,
    /// When each frame finished, how many keys its prompt held, and whether its screen shows
    /// the prompt's last characters.
    frames: Vec<(std::time::Instant, usize, bool)>,
}

impl Screen for Timed {
    fn draw_frame(&mut self, app: &mut App, now: Instant) -> std::io::Result<()> {
        let typed = app.input.text();
        let frame = self.term.draw(|f| view::draw(app, f, now))?;
        let tail: String = {
            let chars: Vec<char> = typed.chars().collect();
            chars[chars.len().saturating_sub(8)..].iter().collect()
        };
        let shows =
            !tail.is_empty() && super::squash(&super::screen_text(frame.buffer)).contains(&tail);
        self.frames
            .push((std::time::Instant::now(), typed.chars().count(), shows));
        Ok(())
    }

    fn resized(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// (p50, p99, max) of key → frame for `app`, with or without a stream going on.
pub fn run(mut app: App, streaming: bool) -> (Duration, Duration, Duration) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        if streaming {
            super::start_answer(&mut app);
        }
        let (tx, rx) = mpsc::unbounded_channel::<AgentEvent>();
        let (commands, _keep) = mpsc::unbounded_channel::<AgentCommand>();
        let (key_tx, mut key_rx) = mpsc::unbounded_channel::<std::io::Result<Event>>();
        let sent_at = Arc::new(Mutex::new(Vec::with_capacity(key_count())));
        let stamps = sent_at.clone();
        let keys = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            for i in 0..key_count() {
                tokio::time::sleep(EVERY).await;
                let c = (b'a' + (i % 26) as u8) as char;
                let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
                stamps
                    .lock()
                    .expect("stamps")
                    .push(std::time::Instant::now());
                if key_tx.send(Ok(Event::Key(key))).is_err() {
                    break;
                }
            }
            // Time for the last key's frame (a debug build under a stream draws ~16 a second).
            tokio::time::sleep(Duration::from_millis(500)).await;
            // Dropping key_tx ends the input: the loop returns.
        });
        let deltas_tx = tx.clone();
        let producer = streaming.then(|| {
            let tx = deltas_tx;
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_millis(1));
                let mut it = super::deltas().into_iter().cycle();
                loop {
                    tick.tick().await;
                    for _ in 0..20 {
                        let text = it.next().unwrap_or_default();
                        if tx.send(AgentEvent::TextDelta { text }).is_err() {
                            return;
                        }
                    }
                }
            })
        });
        let mut screen = Timed {
            term: super::crossterm_terminal(),
            frames: Vec::new(),
        };
        let input = futures::stream::poll_fn(move |cx| key_rx.poll_recv(cx));
        let _ = event_loop::run(&mut screen, &mut app, rx, &commands, input).await;
        drop(tx);
        let _ = keys.await;
        if let Some(p) = producer {
            p.abort();
        }
        let sent = sent_at.lock().expect("stamps").clone();
        assert_eq!(sent.len(), key_count(), "not every key was sent");
        let mut lat: Vec<Duration> = Vec::with_capacity(sent.len());
        for (i, s) in sent.iter().enumerate() {
            let Some(&(at, _, shows)) = screen
                .frames
                .iter()
                .find(|(at, typed, _)| at >= s && *typed > i)
            else {
                panic!("key {} never reached a frame", i + 1);
            };
            assert!(shows, "the frame of key {} does not show it", i + 1);
            lat.push(at - *s);
        }
        lat.sort();
        (
            super::percentile(&lat, 0.5),
            super::percentile(&lat, 0.99),
            *lat.last().unwrap_or(&Duration::ZERO),
        )
    })
}
