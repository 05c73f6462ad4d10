//! TUI frame times, scrolling, streaming throughput and memory, in-process.
//!
//! `cargo bench --bench tui_render` — drives the real `App` (its `on_agent` updates) and
//! `view::draw` at 200×60: to ratatui's TestBackend and to a CrosstermBackend writing escape
//! sequences into a buffer (what a terminal would be sent). Histories of 10, 1,000 and 10,000
//! messages (text, markdown with code blocks, tool calls with output; ~2 MB at 10,000) are
//! loaded with HistoryReset, then a new answer streams in, a few deltas per frame.
//!
//! Every part checks what it measured reached the screen: the streamed text's last words are
//! on the last frame, each key is on the frame its latency is measured to. `BENCH_SHORT=1`
//! runs each part briefly (CI's mode), assertions included.

use std::sync::Arc;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend, TestBackend};
use ratatui::layout::Rect;
use ratatui::{TerminalOptions, Viewport};
use serde_json::json;
use tokio::time::Instant;

use tooloop::protocol::AgentEvent;
use tooloop::tui::app::{App, RunInfo};
use tooloop::tui::view;

#[path = "tui_render/throughput.rs"]
mod throughput;

#[path = "tui_render/keystroke.rs"]
mod keystroke;

#[path = "tui_render/history_cost.rs"]
mod history_cost;

#[path = "common/history.rs"]
mod common_history;
use common_history::history;

const W: u16 = 200;
const H: u16 = 60;
const FRAMES: usize = 300;

const ANSWER: &str = "Here is what I found. The loop in `query_loop.rs` **starts each tool** as \
soon as its block is complete, so:\n\n1. the stream keeps going\n2. results come back in order\n\n\
```rust\nfn main() {\n    let x = compute(42);\n    println!(\"{x}\");\n}\n```\n\n\
| case | time |\n|---|---|\n| streaming | 1.00 |\n| serial | 3.40 |\n\nThat is all. ";

fn app_with(n: usize) -> App {
    let mut app = App::new(RunInfo::default());
    let messages = history(n);
    let summaries = tooloop::tools::ToolRegistry::builtin().summaries(&messages);
    app.on_agent(
        AgentEvent::HistoryReset {
            messages: messages.into_iter().map(Arc::new).collect(),
            summaries,
        },
        Instant::now(),
    );
    app
}

fn start_answer(app: &mut App) {
    let now = Instant::now();
    app.on_agent(
        AgentEvent::PromptStart {
            text: "and now?".into(),
        },
        now,
    );
    app.on_agent(
        AgentEvent::RequestStart {
            turn: 1,
            attempt: 1,
            model: "m".into(),
            body: Arc::new(json!({"messages": []}).into()),
        },
        now,
    );
}

/// Deltas of a long answer: ANSWER repeated, cut every ~12 bytes (at char boundaries).
fn deltas() -> Vec<String> {
    let text = ANSWER.repeat(40);
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if cur.len() >= 12 && (c == ' ' || c == '\n') {
            out.push(std::mem::take(&mut cur));
        }
    }
    out.push(cur);
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn fmt(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Wall time of one frame. (A thread's CPU time from schedstat only advances at scheduler
/// ticks, 4 ms here: too coarse for one frame, so p99 carries the shared machine's noise.)
fn draw<B: Backend>(term: &mut Terminal<B>, app: &mut App) -> Duration {
    let start = std::time::Instant::now();
    term.draw(|f| view::draw(app, f, Instant::now()))
        .expect("draw");
    start.elapsed()
}

fn streaming_frames<B: Backend>(
    term: &mut Terminal<B>,
    app: &mut App,
) -> (Duration, Vec<Duration>) {
    let first = draw(term, app);
    start_answer(app);
    let deltas = deltas();
    let mut it = deltas.iter().cycle();
    let frames = if short() { 20 } else { FRAMES };
    let mut times = Vec::with_capacity(frames);
    let mut streamed = String::new();
    for _ in 0..frames {
        for _ in 0..6 {
            let text = it.next().cloned().unwrap_or_default();
            streamed.push_str(&text);
            app.on_agent(AgentEvent::TextDelta { text }, Instant::now());
        }
        times.push(draw(term, app));
    }
    // The last frame again, to read it: the answer's end is on the screen.
    let shown = term
        .draw(|f| view::draw(app, f, Instant::now()))
        .map(|frame| screen_text(frame.buffer))
        .expect("draw");
    assert_shows_the_end(&shown, &streamed, "streaming frames");
    times.sort();
    (first, times)
}

fn crossterm_terminal() -> Terminal<CrosstermBackend<Vec<u8>>> {
    // A fixed viewport: no tty to ask for the size.
    Terminal::with_options(
        CrosstermBackend::new(Vec::with_capacity(1 << 20)),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, W, H)),
        },
    )
    .expect("terminal")
}

/// CI's mode: every part briefly.
fn short() -> bool {
    std::env::var_os("BENCH_SHORT").is_some()
}

/// The text of a drawn frame, row by row.
fn screen_text(buffer: &ratatui::buffer::Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// `text` without whitespace and box-drawing characters: a prompt wrapped over rows reads
/// as one string.
fn squash(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && !('\u{2500}'..='\u{257f}').contains(c))
        .collect()
}

/// The last words of `streamed` (markdown marks dropped) are on `screen`: the deltas reached
/// the frame, not only the app.
fn assert_shows_the_end(screen: &str, streamed: &str, what: &str) {
    let words: Vec<&str> = streamed
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3)
        .collect();
    let tail = &words[words.len().saturating_sub(3)..];
    assert!(
        !tail.is_empty() && tail.iter().all(|w| screen.contains(w)),
        "{what}: the last words streamed {tail:?} are not on the screen:\n{screen}"
    );
}

fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    if let Some(frames) = std::env::var("TUI_RENDER_CALLGRIND")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        history_cost::callgrind(frames);
        return;
    }
    let sizes: &[usize] = if short() {
        &[10, 1_000]
    } else {
        &[10, 1_000, 10_000]
    };
    // `TUI_RENDER_HISTORY_COST=1`: only the interleaved 10 / 1,000 / 10,000 measure.
    if std::env::var_os("TUI_RENDER_HISTORY_COST").is_some() {
        history_cost::run();
        return;
    }
    let bytes: usize = history(10_000)
        .iter()
        .map(|m| serde_json::to_string(m).map(|s| s.len()).unwrap_or(0))
        .sum();
    println!(
        "history of 10,000 messages: {:.1} MB as JSON; {W}×{H}; {FRAMES} streaming frames each (6 deltas per frame)",
        bytes as f64 / 1e6
    );
    // Memory of the TUI's state for 10,000 messages, every cell wrapped once.
    let before = rss_kib();
    let mut app = app_with(10_000);
    let mut term = Terminal::new(TestBackend::new(W, H)).expect("t");
    draw(&mut term, &mut app);
    app.panes.conversation.scroll.top();
    draw(&mut term, &mut app);
    if let (Some(b), Some(a)) = (before, rss_kib()) {
        println!(
            "RSS: {:.1} MB for the process, +{:.1} MB for the TUI state of 10,000 messages",
            a as f64 / 1024.0,
            a.saturating_sub(b) as f64 / 1024.0
        );
    }
    drop((app, term));

    println!(
        "{:<20} {:>8} {:>12} {:>10} {:>10} {:>10}",
        "backend", "messages", "first frame", "p50", "p99", "max"
    );
    for &n in sizes {
        for backend in ["TestBackend", "Crossterm → buffer"] {
            let mut app = app_with(n);
            let (first, times) = if backend == "TestBackend" {
                streaming_frames(
                    &mut Terminal::new(TestBackend::new(W, H)).expect("t"),
                    &mut app,
                )
            } else {
                streaming_frames(&mut crossterm_terminal(), &mut app)
            };
            println!(
                "{:<20} {:>8} {:>12} {:>10} {:>10} {:>10}",
                backend,
                n,
                fmt(first),
                fmt(percentile(&times, 0.5)),
                fmt(percentile(&times, 0.99)),
                fmt(*times.last().expect("frames"))
            );
        }
    }

    // Scrolling: one page up per frame through a 10,000-message history.
    let mut app = app_with(10_000);
    let mut term = Terminal::new(TestBackend::new(W, H)).expect("t");
    draw(&mut term, &mut app);
    let mut times = Vec::new();
    for _ in 0..if short() { 20 } else { 200 } {
        app.panes.conversation.scroll.page_up();
        times.push(draw(&mut term, &mut app));
    }
    times.sort();
    println!(
        "scroll one page up at 10,000 messages: p50 {} p99 {} max {} (goal ≤ 2 ms)",
        fmt(percentile(&times, 0.5)),
        fmt(percentile(&times, 0.99)),
        fmt(*times.last().expect("frames"))
    );
    drop((app, term));

    history_cost::run();

    throughput::run(app_with(1_000));

    // Keystroke → frame through the real event loop, idle and while an answer streams.
    for n in [10usize, if short() { 1_000 } else { 10_000 }] {
        for streaming in [false, true] {
            let (p50, p99, max) = keystroke::run(app_with(n), streaming);
            println!(
                "keystroke → frame at {n} messages{}: p50 {} p99 {} max {} (goal p99 ≤ 10 ms)",
                if streaming {
                    ", streaming 20,000 deltas/s"
                } else {
                    ""
                },
                fmt(p50),
                fmt(p99),
                fmt(max)
            );
        }
    }
}
