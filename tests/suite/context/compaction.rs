//! Compaction end to end: the real binary, headless, against the mock's context window.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use support::*;

const KEY: &str = "sk-ant-compact-test";
const MODEL: &str = "claude-mock";

/// A workspace with notes.txt and a config.toml that gives MODEL a `window`.
fn setup(window: u64) -> tempfile::TempDir {
    setup_with(window, 30)
}

fn setup_with(window: u64, lines: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let notes: String = (0..lines)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    std::fs::write(dir.path().join("notes.txt"), notes).expect("notes");
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "[models.\"{MODEL}\"]\ncontext_window = {window}\nmax_output_tokens = 2048\n\
             price_input = 3.0\nprice_output = 15.0\nprice_cache_write = 3.75\n\
             price_cache_read = 0.30\n"
        ),
    )
    .expect("config");
    dir
}

fn tooloop(server: &MockServer, dir: &tempfile::TempDir, prompt: &str, extra: &[&str]) -> Tooloop {
    let base = server.anthropic_base();
    let config = dir.path().join("config.toml");
    let config = config.to_str().expect("utf-8 path").to_string();
    let mut args: Vec<&str> = vec![
        "-p",
        prompt,
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        MODEL,
        "--output-format",
        "stream-json",
        "--max-tokens",
        "2048",
        "--config",
        &config,
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args)
        .env("ANTHROPIC_API_KEY", KEY)
        .workspace(dir.path())
}

/// A summary request is the one without tools.
fn is_summary_request(r: &Recorded) -> bool {
    r.body.get("tools").is_none()
}

fn summary_reply(i: usize) -> Reply {
    text_reply(&format!(
        "The user asked to read notes.txt 200 times. Summary #{i}: the reads so far all \
         returned the same 30 lines; keep reading."
    ))
}

#[test]
fn two_hundred_turns_over_a_20k_window_run_to_the_end() {
    const TURNS: usize = 200;
    let dir = setup(20_000);
    let server = MockServer::start();
    server.set_context_window(20_000);
    server.enable_prompt_cache();
    let work = Arc::new(AtomicUsize::new(0));
    let summaries = Arc::new(AtomicUsize::new(0));
    let s2 = summaries.clone();
    server.respond_with(move |req| {
        if is_summary_request(req) {
            return summary_reply(s2.fetch_add(1, Ordering::SeqCst));
        }
        let i = work.fetch_add(1, Ordering::SeqCst);
        if i + 1 < TURNS {
            ReplyBuilder::new()
                .text(&format!("Pass {i}."))
                .tool_use(
                    &format!("toolu_{i:04}"),
                    "read_file",
                    json!({"path": "notes.txt"}),
                )
                .build()
        } else {
            text_reply("All 200 passes done.")
        }
    });
    let run = tooloop(
        &server,
        &dir,
        "Read notes.txt 200 times.",
        &["--max-turns", "200"],
    )
    .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_eq!(result["turns"], 200);
    assert_valid_history(result);
    // Every request was accepted and under the window: none was prompt_too_long.
    let requests = server.requests();
    for (i, r) in requests.iter().enumerate() {
        assert!(
            r.rejected.is_none(),
            "request {i} rejected: {:?}",
            r.rejected
        );
        let a = r
            .accounted
            .unwrap_or_else(|| panic!("request {i} was over the window"));
        assert!(a.total() <= 20_000, "request {i}: {a:?}");
    }
    let compacts = run.of_type("compact");
    assert!(!compacts.is_empty(), "no compaction in 200 turns");
    assert_eq!(compacts.len(), summaries.load(Ordering::SeqCst));
    for c in &compacts {
        assert_eq!(c["trigger"], "auto");
        let (pre, post) = (
            c["pre_tokens"].as_u64().unwrap(),
            c["post_tokens"].as_u64().unwrap(),
        );
        assert!(post < pre / 2, "{c}");
        assert!(
            c["messages_after"].as_u64() < c["messages_before"].as_u64(),
            "{c}"
        );
    }
    let pre_post: Vec<String> = compacts
        .iter()
        .map(|c| format!("{}→{}", c["pre_tokens"], c["post_tokens"]))
        .collect();
    println!(
        "200 turns, {} requests, {} compactions (tokens {}), final context {} tokens",
        requests.len(),
        compacts.len(),
        pre_post.join(", "),
        result["context_tokens"]
    );
    // The history as sent now starts with the summary.
    let first = &result["messages"][0]["content"][0]["text"];
    assert!(
        first
            .as_str()
            .unwrap_or("")
            .starts_with("[Summary of an earlier part"),
        "{first}"
    );
}

fn ptl() -> Reply {
    Reply::error(
        400,
        "invalid_request_error",
        "prompt is too long: 31000 tokens > 30000 maximum",
    )
}

/// A first prompt large enough that a compaction can take 30 % off (a short one is left
/// as it is: "nothing to compact").
fn question(words: &str) -> String {
    format!("{words} {}", big_prompt(15_000))
}

#[test]
fn reactive_compaction_once_then_the_retry_succeeds() {
    let dir = setup(30_000);
    let server = MockServer::start();
    server.enqueue(ptl());
    server.enqueue(summary_reply(0));
    server.enqueue(text_reply("Fine now."));
    let run = tooloop(&server, &dir, &question("hello"), &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let r = run.result();
    assert_eq!(r["reason"], "completed");
    assert_eq!(r["text"], "Fine now.");
    assert!(
        r["transitions"]
            .as_array()
            .unwrap()
            .contains(&json!("reactive_compact"))
    );
    let c = run.of_type("compact");
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["trigger"], "reactive");
    assert_valid_history(r);
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 3);
    assert!(is_summary_request(&reqs[1]));
    // The retry carries the summary, which quotes nothing it should not.
    let retry = reqs[2].body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(retry.contains("Summary #0"), "{retry}");
}

#[test]
fn prompt_too_long_twice_ends_the_turn() {
    // The retry after a compaction is too long again.
    let dir = setup(30_000);
    let server = MockServer::start();
    server.enqueue(ptl());
    server.enqueue(summary_reply(0));
    server.enqueue(ptl());
    let run = tooloop(&server, &dir, &question("hello"), &[]).run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    assert_eq!(run.result()["reason"], "prompt_too_long");
    assert_valid_history(run.result());
    assert_eq!(server.accepted().len(), 3, "no second compaction");
}

#[test]
fn prompt_too_long_on_a_short_conversation_compacts_nothing() {
    // A summary cannot take 30 % off one short prompt: no summary request is spent.
    let dir = setup(30_000);
    let server = MockServer::start();
    server.enqueue(ptl());
    let run = tooloop(&server, &dir, "hello", &[]).run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    let r = run.result();
    assert_eq!(r["reason"], "prompt_too_long");
    assert_valid_history(r);
    assert_eq!(server.requests().len(), 1, "no summary request");
    assert!(run.of_type("compact").is_empty());
    assert!(
        run.of_type("error").iter().any(|e| e["message"]
            .as_str()
            .unwrap_or("")
            .contains("nothing to compact: the conversation is")),
        "{}",
        run.stdout
    );
}

#[test]
fn a_failed_summary_leaves_history_exactly_as_it_was() {
    // prompt_too_long, and the summary request is too long as well.
    let dir = setup(30_000);
    let server = MockServer::start();
    server.enqueue(ptl());
    server.enqueue(ptl());
    let prompt = question("hello there");
    let run = tooloop(&server, &dir, &prompt, &[]).run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    let r = run.result();
    assert_eq!(r["reason"], "prompt_too_long");
    assert_eq!(
        r["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": prompt}]}])
    );
    assert!(run.of_type("compact").is_empty());
    assert!(
        run.of_type("error").iter().any(|e| e["message"]
            .as_str()
            .unwrap_or("")
            .contains("compaction failed")),
        "{}",
        run.stdout
    );
}

/// A prompt of about `tokens` tokens.
fn big_prompt(tokens: usize) -> String {
    "lorem ipsum dolor sit amet ".repeat(tokens * 4 / 27)
}

#[test]
fn a_failed_auto_summary_keeps_history_and_the_request_still_goes() {
    let dir = setup(30_000);
    let server = MockServer::start();
    server.enqueue(Reply::error(400, "invalid_request_error", "boom"));
    server.enqueue(text_reply("Answered anyway."));
    let prompt = big_prompt(29_000);
    let run = tooloop(&server, &dir, &prompt, &[]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    let r = run.result();
    assert_eq!(r["messages"][0]["content"][0]["text"], json!(prompt));
    assert!(run.of_type("compact").is_empty());
    let reqs = server.accepted();
    assert!(is_summary_request(&reqs[0]));
    assert!(!is_summary_request(&reqs[1]));
}

#[cfg(unix)]
#[test]
fn abort_during_the_summary_request() {
    let dir = setup(30_000);
    let server = MockServer::start();
    server.enqueue(Reply::hang());
    let prompt = big_prompt(29_000);
    let child = tooloop(&server, &dir, &prompt, &[]).spawn();
    server.wait_for_requests(1, std::time::Duration::from_secs(20));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.pid() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("kill");
    let run = child.wait();
    assert_eq!(run.code, Some(130), "stderr:\n{}", run.stderr);
    let r = run.result();
    assert_eq!(r["reason"], "aborted_streaming");
    assert_valid_history(r);
    let blocks = r["messages"][0]["content"].as_array().unwrap();
    assert_eq!(blocks[0]["text"], json!(prompt), "history unchanged");
    assert!(run.of_type("compact").is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn blocking_limit_with_auto_compaction_off() {
    let dir = setup(30_000);
    let server = MockServer::start();
    let prompt = big_prompt(29_000);
    let run = tooloop(&server, &dir, &prompt, &["--auto-compact", "off"]).run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    assert_eq!(run.result()["reason"], "blocking_limit");
    assert!(server.requests().is_empty(), "nothing was sent");
}

#[test]
fn token_budget_stops_before_the_request_that_would_pass_it() {
    let dir = setup(200_000);
    let server = MockServer::start();
    server.enable_prompt_cache();
    let n = Arc::new(AtomicUsize::new(0));
    server.respond_with(move |_| {
        let i = n.fetch_add(1, Ordering::SeqCst);
        tool_reply(&[(
            &format!("toolu_{i}"),
            "read_file",
            json!({"path": "notes.txt"}),
        )])
    });
    let run = tooloop(
        &server,
        &dir,
        "read forever",
        &["--max-budget-tokens", "60000", "--max-turns", "100"],
    )
    .run();
    assert_eq!(run.code, Some(1), "stderr:\n{}", run.stderr);
    let r = run.result();
    assert_eq!(r["reason"], "budget_exceeded");
    assert_valid_history(r);
    let u = &r["usage"];
    let spent: u64 = [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
    ]
    .iter()
    .map(|k| u[k].as_u64().unwrap())
    .sum();
    assert!(spent <= 60_000, "spent {spent}");
    assert!(server.requests().len() >= 3);
}

#[test]
fn cost_budget_and_unknown_prices() {
    let dir = setup(200_000);
    let server = MockServer::start();
    // A model without prices: cost_usd is null, and a cost budget cannot be kept.
    server.enqueue(text_reply("hi"));
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "mystery-model",
        "--output-format",
        "json",
    ])
    .env("ANTHROPIC_API_KEY", KEY)
    .run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.result()["cost_usd"], Value::Null);
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--model",
        "mystery-model",
        "--output-format",
        "json",
        "--max-budget-usd",
        "1",
    ])
    .env("ANTHROPIC_API_KEY", KEY)
    .run();
    assert_eq!(run.code, Some(1));
    assert_eq!(run.result()["reason"], "budget_exceeded");
    let _ = dir;
}

#[test]
fn continue_resumes_from_the_last_compaction_boundary() {
    let dir = setup(30_000);
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let server = MockServer::start();
    server.enqueue(ptl());
    server.enqueue(summary_reply(0));
    server.enqueue(text_reply("First answer."));
    server.enqueue(text_reply("Second answer."));
    let first_question = question("first question");
    let first = tooloop(&server, &dir, &first_question, &[])
        .env("XDG_DATA_HOME", data)
        .run();
    assert_eq!(first.code, Some(0), "stderr:\n{}", first.stderr);
    let second = tooloop(&server, &dir, "second question", &["--continue"])
        .env("XDG_DATA_HOME", data)
        .run();
    assert_eq!(second.code, Some(0), "stderr:\n{}", second.stderr);
    let r = second.result();
    assert_valid_history(r);
    let msgs = r["messages"].as_array().unwrap();
    // summary (with the first question folded in), first answer, second question, answer.
    let first_text = msgs[0]["content"][0]["text"].as_str().unwrap();
    assert!(first_text.contains("Summary #0"), "{first_text}");
    assert!(
        !msgs
            .iter()
            .any(|m| m["content"][0]["text"] == first_question.as_str()),
        "the replaced message is not sent again: {msgs:?}"
    );
    assert_eq!(msgs.last().unwrap()["content"][0]["text"], "Second answer.");
    let sent = &server.accepted()[3].body["messages"];
    assert_eq!(sent[0]["content"][0]["text"].as_str(), Some(first_text));
    // The transcript keeps the replaced message above the boundary.
    let sessions = std::path::Path::new(data).join("tooloop/sessions");
    let file = std::fs::read_dir(&sessions)
        .expect("sessions dir")
        .next()
        .expect("a session")
        .expect("entry")
        .path();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"type\":\"compaction\""), "{text}");
    assert!(text.contains(&first_question));
    // Loading it gives the replaced messages apart (the TUI draws them dimmed above the
    // divider) and the history from the boundary on.
    let loaded = tooloop::session::load::read(&file).expect("load");
    assert_eq!(loaded.earlier.len(), 1, "{:?}", loaded.earlier);
    assert_eq!(loaded.earlier[0].text(), first_question);
    assert!(loaded.messages[0].text().contains("Summary #0"));
    assert!(!loaded.messages.iter().any(|m| m.text() == first_question));
}

#[test]
fn micro_compaction_clears_old_large_results_and_keeps_history_valid() {
    const TURNS: usize = 30;
    // ~4 KB results; window 40,000: micro-compaction may run past ~17,000 tokens.
    let dir = setup_with(40_000, 75);
    let server = MockServer::start();
    server.set_context_window(40_000);
    server.enable_prompt_cache();
    let n = Arc::new(AtomicUsize::new(0));
    server.respond_with(move |req| {
        if is_summary_request(req) {
            return summary_reply(0);
        }
        let i = n.fetch_add(1, Ordering::SeqCst);
        if i + 1 < TURNS {
            tool_reply(&[(
                &format!("toolu_{i}"),
                "read_file",
                json!({"path": "notes.txt"}),
            )])
        } else {
            text_reply("done")
        }
    });
    let run = tooloop(&server, &dir, "read a lot", &["--max-turns", "30"]).run();
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_valid_history(run.result());
    let reqs = server.accepted();
    assert_eq!(reqs.len(), server.requests().len(), "all accepted");
    let stubbed = |r: &Recorded| {
        r.body_text
            .contains("[tool result cleared to save context:")
    };
    let first = reqs
        .iter()
        .position(stubbed)
        .expect("some request carries stubs");
    // Once cleared, results stay cleared (the stubs are part of the new cached prefix).
    assert!(reqs[first..].iter().all(stubbed));
    // It freed enough that no summary was needed.
    assert!(run.of_type("compact").is_empty());
    assert!(!reqs.iter().any(is_summary_request));
    let a = reqs[first].accounted.unwrap();
    let b = reqs[first - 1].accounted.unwrap();
    println!(
        "micro-compaction at request {first}: {} → {} tokens",
        b.total(),
        a.total()
    );
    assert!(a.total() < b.total());
    // The request after the clearing reads the cache again.
    let next = reqs[first + 1].accounted.unwrap();
    assert!(next.cache_read > next.total() / 2, "{next:?}");
}
