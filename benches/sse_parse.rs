//! SSE parsing throughput: raw framing (`provider::sse`) and full decoding to StreamEvents.
//!
//! `cargo bench --bench sse_parse` — generates a ~32 MB recorded-like Anthropic stream
//! (text deltas, thinking, tool_use input_json_delta fragments), feeds it in 1400-byte (one
//! TCP segment) and 16 KiB chunks, and prints MB/s (median of 5 passes).

#[path = "sse_parse/streams.rs"]
mod streams;

use std::collections::VecDeque;
use std::time::Instant;

use tooloop::provider::StreamEvent;
use tooloop::provider::anthropic_stream::Decoder;
use tooloop::provider::sse::SseParser;

const PASSES: usize = 5;
const GOAL_MB_S: f64 = 300.0;

/// Median MB/s of `PASSES` runs of `f` over `bytes`; `f` returns a count that is checked
/// to be the same every pass (so the work cannot be optimized away or go wrong quietly).
fn measure(bytes: &[u8], mut f: impl FnMut(&[u8]) -> usize) -> (f64, usize) {
    let mut rates = Vec::new();
    let mut count = None;
    for _ in 0..PASSES {
        let start = Instant::now();
        let n = f(bytes);
        let secs = start.elapsed().as_secs_f64();
        assert!(count.is_none() || count == Some(n), "passes disagree");
        count = Some(n);
        rates.push(bytes.len() as f64 / secs / 1e6);
    }
    rates.sort_by(f64::total_cmp);
    (rates[rates.len() / 2], count.unwrap_or(0))
}

fn frame(bytes: &[u8], chunk: usize) -> usize {
    let mut p = SseParser::new();
    let mut out = Vec::new();
    let mut n = 0;
    for c in bytes.chunks(chunk) {
        p.feed(c, &mut out);
        n += out.len();
        out.clear();
    }
    n
}

fn decode_anthropic(bytes: &[u8], chunk: usize) -> usize {
    let mut d = Decoder::new();
    let mut out = VecDeque::new();
    let mut n = 0;
    for c in bytes.chunks(chunk) {
        d.feed(c, &mut out);
        for item in out.drain(..) {
            match item {
                Ok(StreamEvent::Raw { .. }) => {}
                Ok(_) => n += 1,
                Err(e) => panic!("decoder failed: {e}"),
            }
        }
    }
    assert!(d.is_done(), "the stream did not reach message_stop");
    n
}

fn row(what: &str, chunk: usize, (rate, count): (f64, usize), unit: &str) {
    let verdict = if rate >= GOAL_MB_S { "met" } else { "MISSED" };
    println!("{what:<34} {chunk:>6} B {rate:>9.0} MB/s  {count:>8} {unit:<7} goal ≥ {GOAL_MB_S} MB/s: {verdict}");
}

fn main() {
    let anthropic = streams::anthropic(32 << 20);
    println!(
        "anthropic stream: {:.1} MB, {} events",
        anthropic.len() as f64 / 1e6,
        anthropic.windows(2).filter(|w| w == b"\n\n").count()
    );
    for chunk in [1400, 16 << 10] {
        row("framing (provider::sse)", chunk, measure(&anthropic, |b| frame(b, chunk)), "records");
        row(
            "anthropic decode → StreamEvent",
            chunk,
            measure(&anthropic, |b| decode_anthropic(b, chunk)),
            "events",
        );
    }
}
