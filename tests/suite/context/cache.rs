//! Prompt caching end to end: the real binary, headless, against the mock's cache rules.
//! The per-turn curve printed here is the BENCHMARKS.md figure:
//! `cargo test --test all suite::context::cache -- --nocapture`.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use support::anthropic_cache::Accounted;
use support::*;

const KEY: &str = "sk-ant-cache-test";
const TURNS: usize = 60;

/// A 60-turn scripted tool loop: each turn reads a ~1 KB file, then the model answers.
fn run_loop(extra: &[&str]) -> (Run, Vec<Accounted>) {
    let server = MockServer::start();
    server.enable_prompt_cache();
    let n = Arc::new(AtomicUsize::new(0));
    server.respond_with(move |_| {
        let i = n.fetch_add(1, Ordering::SeqCst);
        if i + 1 < TURNS {
            ReplyBuilder::new()
                .text(&format!("Reading the notes again, pass {i}."))
                .tool_use(
                    &format!("toolu_{i:03}"),
                    "read_file",
                    json!({"path": "notes.txt"}),
                )
                .build()
        } else {
            text_reply("All passes done.")
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let notes: String = (0..20)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    std::fs::write(dir.path().join("notes.txt"), notes).expect("write");
    let base = server.anthropic_base();
    let max_turns = (TURNS + 1).to_string();
    let mut args = vec![
        "-p",
        "Read notes.txt sixty times.",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "claude-sonnet-4-5",
        "--output-format",
        "json",
        "--max-turns",
        &max_turns,
    ];
    args.extend_from_slice(extra);
    let run = Tooloop::new(&args)
        .env("ANTHROPIC_API_KEY", KEY)
        .workspace(dir.path())
        .run();
    let counts = server
        .accepted()
        .iter()
        .map(|r| r.accounted.expect("accounted"))
        .collect();
    (run, counts)
}

fn share(a: &Accounted) -> f64 {
    a.cache_read as f64 / a.total() as f64
}

#[test]
fn sixty_turns_read_at_least_90_percent_from_the_cache() {
    let (run, counts) = run_loop(&[]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(counts.len(), TURNS);
    assert_valid_history(run.result());
    let curve: Vec<String> = counts
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{}:{:.1}%", i + 1, share(a) * 100.0))
        .collect();
    println!("cache-read share per turn: {}", curve.join(" "));
    let (read, total) = counts[2..]
        .iter()
        .fold((0, 0), |(r, t), a| (r + a.cache_read, t + a.total()));
    let overall = read as f64 / total as f64;
    println!(
        "turns 3–{TURNS}: {read} of {total} input tokens read from cache ({:.1}%)",
        overall * 100.0
    );
    assert!(overall >= 0.90, "cache-read share {overall:.3} < 0.90");
    for (i, a) in counts.iter().enumerate().skip(2) {
        assert!(share(a) >= 0.80, "turn {}: share {:.3}", i + 1, share(a));
    }
    // The result reports the cache counts and a cost from the model table.
    let r = run.result();
    let usage = &r["usage"];
    let sum_read: u64 = counts.iter().map(|a| a.cache_read).sum();
    let sum_write: u64 = counts.iter().map(|a| a.cache_write).sum();
    assert_eq!(usage["cache_read_tokens"], sum_read);
    assert_eq!(usage["cache_write_tokens"], sum_write);
    let cost = r["cost_usd"].as_f64().expect("cost");
    let input: u64 = counts.iter().map(|a| a.input).sum();
    let output = usage["output_tokens"].as_u64().expect("output");
    let want = (input as f64 * 3.0
        + output as f64 * 15.0
        + sum_write as f64 * 3.75
        + sum_read as f64 * 0.30)
        / 1e6;
    assert!((cost - want).abs() < 1e-9, "cost {cost} vs {want}");
    println!("cost with caching: ${cost:.4} (claude-sonnet-4-5 prices)");
    assert!(r["context_tokens"].as_u64().expect("context_tokens") > 0);
}

#[test]
fn without_prompt_cache_nothing_is_read_from_the_cache() {
    let (run, counts) = run_loop(&["--no-prompt-cache"]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let total: u64 = counts.iter().map(Accounted::total).sum();
    let read: u64 = counts.iter().map(|a| a.cache_read).sum();
    println!("--no-prompt-cache: {read} of {total} input tokens read from cache");
    assert_eq!(read, 0);
    println!(
        "cost without caching: ${:.4}",
        run.result()["cost_usd"].as_f64().expect("cost")
    );
    assert_eq!(run.result()["usage"]["cache_read_tokens"], 0);
}

#[test]
fn more_than_four_breakpoints_is_refused_with_the_api_wording() {
    let body = json!({
        "model": "m", "max_tokens": 5,
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "c", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "d", "cache_control": {"type": "ephemeral"}},
            ]}
        ]
    });
    assert_eq!(
        support::anthropic_cache::validate_cache(&body),
        Err("A maximum of 4 blocks with cache_control may be provided. Found 5.".into())
    );
}
