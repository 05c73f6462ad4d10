//! Does a frame cost more with a long history? Three apps, 10, 1,000 and 10,000 messages,
//! drawn in alternation in one run, so a busy machine slows them alike and the ratios of their
//! medians are load-independent figures. Two kinds of frame: a streamed delta (6 `TextDelta`s,
//! then a frame) and a keystroke (one key typed into the prompt, then a frame).
//!
//! The history-cost ratio is 10,000 ÷ 1,000: both screens are full. At 10 messages the tools
//! pane lists 2 calls where the longer ones fill it (a resumed history's calls are listed
//! since the tools pane shows them), so 10,000 ÷ 10 also counts ~55 more drawn rows of
//! screen, not history; it is printed too.
//!
//! `TUI_RENDER_CALLGRIND=N` runs only N streaming frames at 10,000 messages inside
//! `measured_frames`, for an instruction count that does not depend on the load at all:
//! `valgrind --tool=callgrind --toggle-collect='*measured_frames*' BENCH_BINARY` (see
//! BENCHMARKS.md); the same with `TUI_RENDER_CALLGRIND_MESSAGES=10` for the short history.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::time::Instant;

use tooloop::protocol::AgentEvent;
use tooloop::tui::app::App;

/// Rounds of each kind of frame (40 in CI's short mode).
fn rounds() -> usize {
    if super::short() { 40 } else { 400 }
}

/// The frame now on `term` shows `text`.
fn assert_on_screen(term: &Terminal<TestBackend>, text: &str, what: &str) {
    let screen = super::screen_text(term.backend().buffer());
    assert!(
        super::squash(&screen).contains(text),
        "{what}: {text:?} is not on the screen:\n{screen}"
    );
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn delta_frame(
    term: &mut Terminal<TestBackend>,
    app: &mut App,
    deltas: &[String],
    k: &mut usize,
) -> Duration {
    let start = std::time::Instant::now();
    for _ in 0..6 {
        let text = deltas[*k % deltas.len()].clone();
        *k += 1;
        app.on_agent(AgentEvent::TextDelta { text }, Instant::now());
    }
    super::draw(term, app);
    start.elapsed()
}

fn key_frame(term: &mut Terminal<TestBackend>, app: &mut App, i: usize) -> Duration {
    let start = std::time::Instant::now();
    // Type, and now and then clear the line so the prompt does not grow without end.
    let code = if i % 50 == 49 {
        KeyCode::Backspace
    } else {
        KeyCode::Char((b'a' + (i % 26) as u8) as char)
    };
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE), Instant::now());
    super::draw(term, app);
    start.elapsed()
}

/// Medians at 10, 1,000 and 10,000 messages, interleaved, for deltas and for keys.
pub fn run() {
    let deltas = super::deltas();
    let mut cases: Vec<(usize, App, Terminal<TestBackend>, usize)> = [10usize, 1_000, 10_000]
        .into_iter()
        .map(|n| {
            let mut app = super::app_with(n);
            let mut term = Terminal::new(TestBackend::new(super::W, super::H)).expect("t");
            super::draw(&mut term, &mut app);
            (n, app, term, 0)
        })
        .collect();
    // Keys first (idle apps), then the streaming answer.
    let mut keys: [Vec<Duration>; 3] = Default::default();
    for i in 0..rounds() {
        for (c, (_, app, term, _)) in cases.iter_mut().enumerate() {
            keys[c].push(key_frame(term, app, i));
        }
    }
    // The keys reached the frames: each prompt's last characters are on its screen.
    for (n, app, term, _) in &cases {
        let typed: Vec<char> = app.input.text().chars().collect();
        assert!(typed.len() >= 5, "{n} messages: the prompt holds {typed:?}");
        let tail: String = typed[typed.len() - 5..].iter().collect();
        assert_on_screen(term, &tail, &format!("keys at {n} messages"));
    }
    let mut frames: [Vec<Duration>; 3] = Default::default();
    for (_, app, _, _) in cases.iter_mut() {
        super::start_answer(app);
    }
    for _ in 0..rounds() {
        for (c, (_, app, term, k)) in cases.iter_mut().enumerate() {
            frames[c].push(delta_frame(term, app, &deltas, k));
        }
    }
    for (n, _, term, k) in &cases {
        let streamed: String = (0..*k).map(|i| deltas[i % deltas.len()].as_str()).collect();
        let screen = super::screen_text(term.backend().buffer());
        super::assert_shows_the_end(&screen, &streamed, &format!("deltas at {n} messages"));
    }
    let [k10, k1k, k10k] = keys.map(median);
    let [f10, f1k, f10k] = frames.map(median);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "interleaved, {} rounds, median at 10 / 1,000 / 10,000 messages: key + frame \
         {:.3} / {:.3} / {:.3} ms; delta + frame {:.3} / {:.3} / {:.3} ms",
        rounds(),
        ms(k10),
        ms(k1k),
        ms(k10k),
        ms(f10),
        ms(f1k),
        ms(f10k)
    );
    println!(
        "history cost (10,000 ÷ 1,000, both screens full; goal ≈ 1): key + frame {:.2}, delta + \
         frame {:.2}; 10,000 ÷ 10 (also a full tools pane against 2 rows): {:.2}, {:.2}",
        ms(k10k) / ms(k1k),
        ms(f10k) / ms(f1k),
        ms(k10k) / ms(k10),
        ms(f10k) / ms(f10)
    );
}

#[inline(never)]
fn measured_frames(app: &mut App, term: &mut Terminal<TestBackend>, frames: usize) {
    let deltas = super::deltas();
    let mut k = 0;
    for _ in 0..frames {
        delta_frame(term, app, &deltas, &mut k);
    }
}

/// The callgrind case: `frames` streaming frames only (loading the history is not counted
/// when callgrind collects inside `measured_frames` only).
pub fn callgrind(frames: usize) {
    let n = std::env::var("TUI_RENDER_CALLGRIND_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let mut app = super::app_with(n);
    let mut term = Terminal::new(TestBackend::new(super::W, super::H)).expect("t");
    super::draw(&mut term, &mut app);
    super::start_answer(&mut app);
    super::draw(&mut term, &mut app);
    measured_frames(&mut app, &mut term, frames);
    println!("callgrind case: {frames} streaming frames at {n} messages");
}
