//! Keystroke → frame through the TUI's real event loop (`tui::event_loop::run`): keys arrive
//! on the input stream one every 40 ms (so no frame was drawn in the last frame slot), each
//! typed into the prompt; the latency is from sending the key to the end of the frame that
//! shows it, drawn into a CrosstermBackend buffer (the bytes a terminal would get).
//! Optionally while an answer streams at 20,000 deltas/s (then a key may wait for the 60 fps
//! gate: up to one frame slot).

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

const KEYS: usize = 150;
const EVERY: Duration = Duration::from_millis(40);

struct Timed {
    term: Terminal<CrosstermBackend<Vec<u8>>>,
    /// When each frame finished.
    frames: Vec<std::time::Instant>,
}

impl Screen for Timed {
    fn draw_frame(&mut self, app: &mut App, now: Instant) -> std::io::Result<()> {
        self.term.draw(|f| view::draw(app, f, now))?;
        self.frames.push(std::time::Instant::now());
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
        let sent_at = Arc::new(Mutex::new(Vec::with_capacity(KEYS)));
        let stamps = sent_at.clone();
        let keys = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            for i in 0..KEYS {
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
            tokio::time::sleep(Duration::from_millis(100)).await;
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
        let mut lat: Vec<Duration> = sent
            .iter()
            .filter_map(|s| screen.frames.iter().find(|f| *f >= s).map(|f| *f - *s))
            .collect();
        lat.sort();
        (
            super::percentile(&lat, 0.5),
            super::percentile(&lat, 0.99),
            *lat.last().unwrap_or(&Duration::ZERO),
        )
    })
}
