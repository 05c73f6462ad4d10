//! 20,000 text deltas per second through an AgentEvent channel into the App.
//!
//! `tui::event_loop::run` needs a real terminal (crossterm's EventStream and a Tui over
//! stdout), so this drives the same policy with the loop's own constants: wake on an event,
//! apply everything queued (at most MAX_DRAIN), draw when FRAME has passed since the last
//! frame, else sleep until then. The draw is view::draw to a TestBackend.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};

use tooloop::agent::protocol::AgentEvent;
use tooloop::tui::app::App;
use tooloop::tui::event_loop::{FRAME, MAX_DRAIN};
use tooloop::tui::view;

const RATE: usize = 20_000;
const SECONDS: u64 = 3;

pub fn run(mut app: App) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        super::start_answer(&mut app);
        let mut term = Terminal::new(TestBackend::new(super::W, super::H)).expect("terminal");
        let (tx, mut rx) = mpsc::unbounded_channel::<AgentEvent>();
        let deltas = super::deltas();
        let producer = tokio::spawn(async move {
            // 20 deltas every millisecond; a missed tick sends its batch late, not never.
            let mut tick = tokio::time::interval(Duration::from_millis(1));
            let mut it = deltas.into_iter().cycle();
            for _ in 0..(SECONDS * 1000) {
                tick.tick().await;
                for _ in 0..RATE / 1000 {
                    let text = it.next().unwrap_or_default();
                    if tx.send(AgentEvent::TextDelta { text }).is_err() {
                        return;
                    }
                }
            }
        });
        let start = Instant::now();
        let mut draws = 0u32;
        let mut applied = 0usize;
        let mut max_backlog = 0usize;
        let mut backlog_at_second = Vec::new();
        let mut last_draw: Option<Instant> = None;
        let mut dirty;
        let mut deadline: Option<Instant> = None;
        let mut draw_time = Duration::ZERO;
        loop {
            let sleep = async {
                match deadline {
                    Some(t) => sleep_until(t).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                ev = rx.recv() => {
                    let Some(ev) = ev else { break };
                    max_backlog = max_backlog.max(rx.len() + 1);
                    let now = Instant::now();
                    app.on_agent(ev, now);
                    applied += 1;
                    let mut n = 1;
                    while n < MAX_DRAIN {
                        match rx.try_recv() {
                            Ok(ev) => app.on_agent(ev, now),
                            Err(_) => break,
                        }
                        applied += 1;
                        n += 1;
                    }
                    dirty = true;
                }
                _ = sleep => dirty = true,
            }
            let now = Instant::now();
            let second = (now - start).as_secs() as usize;
            if backlog_at_second.len() <= second {
                backlog_at_second.push(rx.len());
            }
            let due = last_draw.map_or(now, |t| t + FRAME);
            if dirty && now >= due {
                let t = std::time::Instant::now();
                term.draw(|f| view::draw(&mut app, f, now)).expect("draw");
                draw_time += t.elapsed();
                draws += 1;
                last_draw = Some(now);
                dirty = false;
            }
            deadline = dirty.then_some(due);
        }
        let elapsed = start.elapsed().as_secs_f64();
        let _ = producer.await;
        println!(
            "streaming {RATE} deltas/s for {SECONDS} s: {applied} applied, {:.1} draws/s (goal ≤ 60), \
             largest backlog {max_backlog} events, backlog at each second {backlog_at_second:?}, \
             mean draw {:.3} ms",
            draws as f64 / elapsed,
            draw_time.as_secs_f64() * 1e3 / draws.max(1) as f64
        );
    });
}
