//! The soak that really compacts: the same 2,000 tool turns, but the mock counts every
//! request's tokens and reports them as the API would (`input_tokens` = the request's size at
//! 4 bytes a token: `MockServer::set_context_window`, prompt caching off), and `claude-mock`
//! gets a `SOAK_WINDOW`-token window (default 40,000) from a config.toml with prices. The
//! history then reaches the auto-compaction threshold every ~250 turns: tooloop sends a
//! summary request (the one without tools), which the mock answers with a short summary, and
//! goes on from the summary plus the kept tail.
//!
//! Reported: time between requests for ordinary turns (first / last 10 % and per tenth of the
//! run, so a drift across compactions shows), the turns that carried a compaction apart, RSS
//! at tool turns 10 / 100 / 1,000 / 2,000, and the summary requests' tokens and cost apart
//! from the tool requests'.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::support::{Reply, ReplyBuilder, text_reply};

const PRICE_IN: f64 = 3.0;
const PRICE_OUT: f64 = 15.0;
const MAX_OUTPUT: u64 = 4096;

fn summary_reply(i: usize) -> (Reply, u64) {
    let text = format!(
        "Summary #{i}: the user asked to check the clock again and again. Every \
         get_current_time call so far returned the current time and nothing else changed; \
         no files were read or written, no errors happened. Next step: call get_current_time \
         again and report."
    );
    let out = (text.len() as u64).div_ceil(4);
    (ReplyBuilder::new().text(&text).usage(0, out).build(), out)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

pub fn run(turns: usize, bin: &str) {
    let window: u64 = std::env::var("SOAK_WINDOW")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if std::env::var_os("BENCH_SHORT").is_some() {
            9_000
        } else {
            40_000
        });
    let server = super::mock();
    server.set_context_window(window);
    let work = Arc::new(AtomicUsize::new(0));
    let summaries = Arc::new(AtomicUsize::new(0));
    let summary_out = Arc::new(AtomicUsize::new(0));
    let (w2, s2, o2) = (work.clone(), summaries.clone(), summary_out.clone());
    // Output tokens of a tool turn's reply: its text and call, at 4 bytes a token.
    let turn_out = (super::TEXT.len() as u64 + 60).div_ceil(4);
    server.respond_with(move |req| {
        if req.body.get("tools").is_none() {
            let (reply, out) = summary_reply(s2.fetch_add(1, Ordering::SeqCst));
            o2.fetch_add(out as usize, Ordering::SeqCst);
            return reply;
        }
        let i = w2.fetch_add(1, Ordering::SeqCst);
        if i < turns {
            ReplyBuilder::new()
                .text(super::TEXT)
                .tool_use(
                    &format!("toolu_{i:05}"),
                    "get_current_time",
                    serde_json::json!({}),
                )
                .usage(0, turn_out)
                .build()
        } else {
            text_reply("Done looking at the clock.")
        }
    });
    let home = tempfile::tempdir().expect("temp HOME");
    let config = home.path().join("soak-config.toml");
    std::fs::write(
        &config,
        format!(
            "[models.\"claude-mock\"]\ncontext_window = {window}\nmax_output_tokens = \
             {MAX_OUTPUT}\nprice_input = {PRICE_IN}\nprice_output = {PRICE_OUT}\n\
             price_cache_write = 3.75\nprice_cache_read = 0.30\n"
        ),
    )
    .expect("config");
    let config = config.to_str().expect("utf-8 path").to_string();
    let (wall, result) = super::run_binary(
        &server,
        turns,
        bin,
        home.path(),
        &["--config", &config, "--max-tokens", &MAX_OUTPUT.to_string()],
    );

    let requests = server.requests();
    let ends = server.reply_ends();
    let samples = super::samples().lock().expect("samples").clone();
    for (i, r) in requests.iter().enumerate() {
        assert!(
            r.rejected.is_none(),
            "request {i} rejected: {:?}",
            r.rejected
        );
    }
    let is_summary = |i: usize| samples.get(i).is_some_and(|s| s.3);
    let n = requests.len();
    let summary_idx: Vec<usize> = (0..n).filter(|&i| is_summary(i)).collect();
    // Ordinary turns: a tool request's reply → the next tool request. A compaction turn:
    // the reply before a summary request → the tool request after it (prepare, summary
    // request and its answer, rebuild).
    let gap = |a: usize, b: usize| {
        requests[b]
            .received
            .saturating_duration_since(ends[a])
            .as_secs_f64()
            * 1e3
    };
    let mut ordinary: Vec<(usize, f64)> = Vec::new();
    let mut with_compaction: Vec<f64> = Vec::new();
    let mut summary_client: Vec<f64> = Vec::new();
    for k in 0..n.saturating_sub(1) {
        if is_summary(k) {
            continue;
        }
        if is_summary(k + 1) {
            if k + 2 < n {
                with_compaction.push(gap(k, k + 2));
                summary_client.push(gap(k, k + 1));
            }
        } else {
            ordinary.push((k, gap(k, k + 1)));
        }
    }
    assert!(
        !summary_idx.is_empty(),
        "no compaction in {turns} turns over a {window}-token window"
    );
    let tenth = (ordinary.len() / 10).max(1);
    let ms: Vec<f64> = ordinary.iter().map(|x| x.1).collect();
    println!(
        "\nsoak with compaction: {turns} tool turns, window {window} tokens (mock counts 4 bytes \
         a token), {} requests, {} of them summary requests; wall {:.1} s",
        n,
        summary_idx.len(),
        wall.as_secs_f64()
    );
    let bytes = |i: usize| {
        requests[i]
            .header("content-length")
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let biggest = (0..n)
        .filter(|&i| !is_summary(i))
        .map(bytes)
        .max()
        .unwrap_or(0);
    println!(
        "largest tool request {:.0} KB, last one {:.0} KB",
        biggest as f64 / 1e3,
        bytes(n - 1) as f64 / 1e3
    );
    super::summary("first 10 %", &ms[..tenth]);
    super::summary("last 10 %", &ms[ms.len() - tenth..]);
    println!(
        "ratio last/first (means): {:.2}",
        mean(&ms[ms.len() - tenth..]) / mean(&ms[..tenth])
    );
    let tenths: Vec<String> = ms
        .chunks(ms.len().div_ceil(10).max(1))
        .map(|c| format!("{:.2}", mean(c)))
        .collect();
    println!(
        "mean per tenth of the ordinary turns (ms): {}",
        tenths.join(" ")
    );
    super::summary("compaction", &with_compaction);
    println!(
        "  of which reply → summary request (tooloop renders the transcript): mean {:.2} ms",
        mean(&summary_client)
    );
    // RSS and CPU at tool turns: the n-th tool request, summaries not counted.
    let tool_arrivals: Vec<&super::Sample> = samples.iter().filter(|s| !s.3).collect();
    for at in [10usize, 100, 1000, 2000, turns + 1] {
        if let Some(s) = tool_arrivals.get(at - 1) {
            println!(
                "tool request {at:>5}: RSS {:6.1} MB, CPU so far {:6.2} s",
                s.1 as f64 / 1024.0,
                s.2 as f64 / 100.0
            );
        }
    }
    let cpu_at = |k: usize| tool_arrivals.get(k - 1).map_or(0.0, |s| s.2 as f64 * 10.0);
    let t = turns / 10;
    if t > 0 {
        println!(
            "client CPU per tool turn (summaries included): first 10 % {:.2} ms, last 10 % {:.2} ms",
            (cpu_at(t + 1) - cpu_at(1)) / t as f64,
            (cpu_at(turns + 1) - cpu_at(turns + 1 - t)) / t as f64
        );
    }
    let rss_at = |k: usize| {
        tool_arrivals
            .get(k - 1)
            .map_or(0.0, |s| s.1 as f64 / 1024.0)
    };
    if turns >= 2000 {
        println!(
            "RSS growth tool request 100 → 2,000: {:.1} MB",
            rss_at(2000) - rss_at(100)
        );
    }
    // Tokens and cost at the mock's counts, summary requests apart.
    let tokens_in = |pick: &dyn Fn(usize) -> bool| -> u64 {
        (0..n)
            .filter(|&i| pick(i))
            .filter_map(|i| requests[i].accounted)
            .map(|a| a.total())
            .sum()
    };
    let sum_in = tokens_in(&|i| is_summary(i));
    let tool_in = tokens_in(&|i| !is_summary(i));
    let sum_out = summary_out.load(Ordering::SeqCst) as u64;
    let tool_out = (n - summary_idx.len()) as u64 * turn_out;
    let cost = |i: u64, o: u64| (i as f64 * PRICE_IN + o as f64 * PRICE_OUT) / 1e6;
    println!(
        "summary requests: {} × mean {:.0} input tokens, {} output tokens in all: ${:.4} \
         ({:.1} % of the session's ${:.4}); tool requests: {} input / {} output tokens, ${:.4}",
        summary_idx.len(),
        sum_in as f64 / summary_idx.len().max(1) as f64,
        sum_out,
        cost(sum_in, sum_out),
        100.0 * cost(sum_in, sum_out) / (cost(sum_in, sum_out) + cost(tool_in, tool_out)),
        cost(sum_in, sum_out) + cost(tool_in, tool_out),
        tool_in,
        tool_out,
        cost(tool_in, tool_out)
    );
    println!(
        "tooloop's own account: cost_usd {}, usage {}",
        result["cost_usd"], result["usage"]
    );
}
