//! 20,000 text deltas per second through an AgentEvent channel into the TUI's real event
//! loop (`tui::event_loop::run`), drawing to a TestBackend through a screen that counts
//! frames and measures, at each frame, how far the UI lags behind what was sent.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc;
use tokio::time::Instant;

use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::App;
use tooloop::tui::event_loop::{self, Screen};
use tooloop::tui::panes::cells::CellKind;
use tooloop::tui::view;

const RATE: usize = 20_000;
/// Seconds of streaming (1 in CI's short mode).
fn seconds() -> u64 {
    if super::short() { 1 } else { 3 }
}

/// Counts frames; at each one, the bytes sent but not yet shown are the backlog.
struct Counting {
    term: Terminal<TestBackend>,
    start: Instant,
    sent_bytes: Arc<AtomicUsize>,
    base_bytes: usize,
    draws: u32,
    draw_time: Duration,
    max_backlog: usize,
    backlog_at_second: Vec<usize>,
    /// The backlog and the text of the last frame drawn.
    last_backlog: usize,
    last_screen: String,
}

impl Counting {
    fn shown_bytes(app: &App) -> usize {
        match app.panes.conversation.cells().last().map(|c| &c.kind) {
            Some(CellKind::Assistant(md)) => md.text().len(),
            _ => 0,
        }
    }
}

impl Screen for Counting {
    fn draw_frame(&mut self, app: &mut App, now: Instant) -> std::io::Result<()> {
        let t = std::time::Instant::now();
        self.term.draw(|f| view::draw(app, f, now))?;
        self.draw_time += t.elapsed();
        self.draws += 1;
        let sent = self.sent_bytes.load(Ordering::Relaxed);
        let backlog = sent.saturating_sub(Self::shown_bytes(app).saturating_sub(self.base_bytes));
        self.max_backlog = self.max_backlog.max(backlog);
        self.last_backlog = backlog;
        self.last_screen = super::screen_text(self.term.backend().buffer());
        let second = (now - self.start).as_secs() as usize;
        if self.backlog_at_second.len() <= second {
            self.backlog_at_second.push(backlog);
        }
        Ok(())
    }

    fn resized(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn run(mut app: App) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        super::start_answer(&mut app);
        let (tx, rx) = mpsc::unbounded_channel::<AgentEvent>();
        let (commands, _keep) = mpsc::unbounded_channel::<AgentCommand>();
        let sent_bytes = Arc::new(AtomicUsize::new(0));
        let counted = sent_bytes.clone();
        let deltas = super::deltas();
        let producer = tokio::spawn(async move {
            // 20 deltas every millisecond; a missed tick sends its batch late, not never.
            let mut tick = tokio::time::interval(Duration::from_millis(1));
            let mut it = deltas.into_iter().cycle();
            let mut sent = 0usize;
            let mut last = String::new();
            for _ in 0..(seconds() * 1000) {
                tick.tick().await;
                for _ in 0..RATE / 1000 {
                    let text = it.next().unwrap_or_default();
                    counted.fetch_add(text.len(), Ordering::Relaxed);
                    last.push_str(&text);
                    if last.len() > 4096 {
                        last.drain(..last.len() - 1024);
                    }
                    if tx.send(AgentEvent::TextDelta { text }).is_err() {
                        return (sent, last, Instant::now());
                    }
                    sent += 1;
                }
            }
            // The stream is over; the channel stays open a moment so the loop can draw what
            // the last frame interval coalesced (a closed channel ends the loop at once, with
            // or without that frame): the check below is that it is drawn within this grace.
            let finished = Instant::now();
            tokio::time::sleep(Duration::from_millis(250)).await;
            (sent, last, finished)
        });
        let start = Instant::now();
        let mut screen = Counting {
            term: Terminal::new(TestBackend::new(super::W, super::H)).expect("terminal"),
            start,
            sent_bytes,
            base_bytes: Counting::shown_bytes(&app),
            draws: 0,
            draw_time: Duration::ZERO,
            max_backlog: 0,
            backlog_at_second: Vec::new(),
            last_backlog: usize::MAX,
            last_screen: String::new(),
        };
        // No keys arrive; the loop ends when the producer is done and the channel closes.
        let input = futures::stream::pending::<std::io::Result<crossterm::event::Event>>();
        let exit = event_loop::run(&mut screen, &mut app, rx, &commands, input).await;
        let (applied, last_sent, finished) = producer.await.expect("producer");
        // Draws per second over the streaming itself, not the grace after it.
        let elapsed = (finished - start).as_secs_f64();
        assert_eq!(
            applied,
            RATE * seconds() as usize,
            "not every delta was sent"
        );
        assert!(screen.draws > 0, "no frame was drawn");
        // Every byte sent was shown by the last frame, and its end is on the screen.
        assert_eq!(
            screen.last_backlog, 0,
            "the last frame is behind what was sent"
        );
        super::assert_shows_the_end(&screen.last_screen, &last_sent, "20,000 deltas/s");
        println!(
            "streaming {RATE} deltas/s for {} s through tui::event_loop::run ({exit:?}): \
             {applied} sent, {:.1} draws/s (goal ≤ 60), largest backlog at a frame {} bytes, \
             backlog at each second {:?} bytes, mean draw {:.3} ms",
            seconds(),
            screen.draws as f64 / elapsed,
            screen.max_backlog,
            screen.backlog_at_second,
            screen.draw_time.as_secs_f64() * 1e3 / screen.draws.max(1) as f64
        );
    });
}
