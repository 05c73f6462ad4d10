//! Compaction keeps the facts tooloop recorded (issue 28), in process through the engine
//! against the API-faithful mock: a 60-turn session in a 12,000-token window with planted
//! facts (three requests, five files changed, a failing command and its fix) and a
//! deliberately poor one-sentence summary. After every compaction the next request still
//! carries them, the state block is never nested, and no compaction grows the context.
//! `/compact` on a short conversation changes nothing and says so; a pre_compact hook adds
//! instructions or denies a manual compaction.

mod support;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use clap::Parser;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tooloop::agent::protocol::{AgentCommand, AgentEvent, Terminal};
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::message::validate_history;
use tooloop::provider::anthropic::AnthropicProvider;

use support::*;

const MODEL: &str = "claude-mock";
const WINDOW: u64 = 12_000;
const POOR_SUMMARY: &str = "The user is working on some files.";

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

/// The engine over `server` in `workspace`, yolo, `WINDOW` tokens, with `extra_toml`.
fn engine(workspace: &Path, server: &MockServer, extra_toml: &str) -> tooloop::engine::Engine {
    let ws = workspace.to_string_lossy().into_owned();
    let base = server.anthropic_base();
    let cli = Cli::try_parse_from([
        "tooloop",
        "--provider",
        "anthropic",
        "--base-url",
        base.as_str(),
        "--model",
        MODEL,
        "--workspace",
        ws.as_str(),
        "--approval",
        "yolo",
        "--max-tokens",
        "2048",
        "--max-turns",
        "100",
        "--sandbox",
        "off",
        "--no-session",
    ])
    .expect("cli");
    let toml = format!(
        "[models.\"{MODEL}\"]\ncontext_window = {WINDOW}\nmax_output_tokens = 2048\n{extra_toml}"
    );
    let file = FileConfig::parse(&toml, Path::new("config.toml")).expect("config.toml");
    let cfg = Config::resolve_with(&cli, &NoEnv, &file).expect("config");
    tooloop::engine::start_with(
        &cfg,
        tooloop::engine::FrontEnd::Headless,
        tooloop::engine::Overrides {
            provider: Some(Arc::new(
                AnthropicProvider::new(&server.anthropic_base(), "test-key".into())
                    .expect("provider"),
            )),
            sessions_dir: None,
            tools: None,
        },
    )
    .expect("engine")
}

async fn until(
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    stop: impl Fn(&AgentEvent) -> bool,
) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    loop {
        let e = tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no event for 60 s after {seen:?}"))
            .unwrap_or_else(|| panic!("the agent stopped early: {seen:?}"));
        let done = stop(&e);
        seen.push(e);
        if done {
            return seen;
        }
    }
}

fn done(e: &AgentEvent) -> bool {
    matches!(e, AgentEvent::Done(_))
}

fn is_summary_request(body: &Value) -> bool {
    body.get("tools").is_none()
}

/// The text of every block of every message of a request body.
fn texts(body: &Value) -> String {
    let mut out = String::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        for b in m["content"].as_array().into_iter().flatten() {
            for key in ["text", "content"] {
                if let Some(t) = b[key].as_str() {
                    out.push_str(t);
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// The session's three requests: the first one is long (the state block cuts it at 500
/// characters once a newer one exists).
fn requests() -> [String; 3] {
    [
        format!(
            "Refactor the parser and keep the public API stable. {}",
            "Every function keeps its name and signature; only the bodies change. ".repeat(12)
        ),
        "Now add tests for the renamed function alpha.".to_string(),
        "最后：update the README and run the check again.".to_string(),
    ]
}

/// The model's reply to main request `i` (0-based over the session): the first turns plant
/// the facts, the rest read a large file so the context fills and compacts.
fn scripted(i: usize) -> Reply {
    let id = format!("toolu_{i:03}");
    let tool = |name: &str, input: Value| {
        ReplyBuilder::new()
            .text(&format!("Step {i}."))
            .tool_use(&id, name, input)
            .build()
    };
    match i {
        0 => tool(
            "write_file",
            json!({"path": "src/new_a.rs", "content": "pub fn a() {}\n"}),
        ),
        1 => tool(
            "write_file",
            json!({"path": "src/new_b.rs", "content": "pub fn b() {}\n"}),
        ),
        2 => tool(
            "edit_file",
            json!({"path": "src/lib.rs", "old_string": "fn a()", "new_string": "fn alpha()"}),
        ),
        3 | 5 => tool("bash", json!({"command": "grep -q DONE src/lib.rs"})),
        4 => tool(
            "edit_file",
            json!({"path": "src/lib.rs", "old_string": "fn alpha() {}", "new_string": "fn alpha() {} // DONE"}),
        ),
        6 => tool(
            "edit_file",
            json!({"path": "README.md", "old_string": "# old", "new_string": "# new"}),
        ),
        7 => tool(
            "edit_file",
            json!({"path": "old.txt", "old_string": "x", "new_string": "y"}),
        ),
        8 => tool("bash", json!({"command": "rm old.txt"})),
        19 | 39 | 59 => text_reply(&format!("Done with request {}.", i / 20 + 1)),
        _ => tool("read_file", json!({"path": "big.txt"})),
    }
}

fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path();
    std::fs::create_dir(p.join("src")).expect("src");
    std::fs::write(p.join("src/lib.rs"), "pub fn a() {}\n").expect("lib");
    std::fs::write(p.join("README.md"), "# old\n").expect("readme");
    std::fs::write(p.join("old.txt"), "x\n").expect("old");
    // Under micro-compaction's 2,000 bytes per result: only summaries make room.
    let big: String = (0..30)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    std::fs::write(p.join("big.txt"), big).expect("big");
    tmp
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_turns_in_a_12k_window_keep_every_planted_fact() {
    let server = MockServer::start();
    server.set_context_window(WINDOW);
    server.enable_prompt_cache();
    let main = Arc::new(AtomicUsize::new(0));
    let m2 = main.clone();
    server.respond_with(move |req| {
        if is_summary_request(&req.body) {
            return text_reply(POOR_SUMMARY);
        }
        scripted(m2.fetch_add(1, Ordering::SeqCst))
    });
    let tmp = workspace();
    let engine = engine(tmp.path(), &server, "");
    let mut rx = engine.events;
    let control = engine.control;
    let reqs = requests();
    let mut compactions = Vec::new();
    for text in &reqs {
        assert!(control.send(AgentCommand::Submit { text: text.clone() }));
        let events = until(&mut rx, done).await;
        let Some(AgentEvent::Done(summary)) = events.last() else {
            unreachable!()
        };
        assert_eq!(summary.reason, Terminal::Completed, "{:?}", summary.error);
        compactions.extend(events.into_iter().filter_map(|e| match e {
            AgentEvent::Compacted { info, .. } if info.trigger.as_str() != "micro" => Some(info),
            _ => None,
        }));
    }
    assert_eq!(main.load(Ordering::SeqCst), 60, "60 main requests");
    assert!(
        compactions.len() >= 3,
        "a 12k window compacts several times in 60 turns: {}",
        compactions.len()
    );

    let bodies: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    let mut checked = 0;
    let mut main_seen = 0;
    for (k, body) in bodies.iter().enumerate() {
        if is_summary_request(body) {
            continue;
        }
        // Main requests 0–19 answer the first request of the user, 20–39 the second, …
        let prompts_seen = main_seen / 20 + 1;
        main_seen += 1;
        if k == 0 || !is_summary_request(&bodies[k - 1]) {
            continue;
        }
        // The request right after a summary: the facts are all there.
        checked += 1;
        let t = texts(body);
        let latest = &reqs[prompts_seen - 1];
        assert!(
            t.contains(&format!("(latest, in full):\n\"\"\"\n{latest}\n\"\"\"")),
            "request {k}: the latest request verbatim\n{t}"
        );
        for earlier in &reqs[..prompts_seen - 1] {
            let cut: String = earlier.chars().take(500).collect();
            assert!(t.contains(&cut), "request {k}: earlier request (cut)");
            if earlier.chars().count() > 500 {
                assert!(
                    !t.contains(earlier.as_str()),
                    "request {k}: an earlier request is cut at 500 characters"
                );
            }
        }
        for line in [
            "- src/new_a.rs: created (1 edit)",
            "- src/new_b.rs: created (1 edit)",
            "- src/lib.rs: edited (2 edits)",
            "- README.md: edited (1 edit)",
            "- old.txt: deleted (1 edit)",
            "- `grep -q DONE src/lib.rs` → exit 1",
            "- `grep -q DONE src/lib.rs` → exit 0",
            "- `rm old.txt` → exit 0",
            "## Approval mode\nyolo",
        ] {
            assert!(t.contains(line), "request {k}: {line:?} missing\n{t}");
        }
        assert!(t.contains(POOR_SUMMARY));
        // Never nested: one state block, one summary, in the first message only.
        assert_eq!(t.matches("<state>").count(), 1, "request {k}\n{t}");
        assert_eq!(t.matches("<summary>").count(), 1, "request {k}");
    }
    assert_eq!(checked, compactions.len(), "every compaction was checked");

    // The summary request saw the state block and asked for the fixed sections.
    let summary_req = bodies.iter().find(|b| is_summary_request(b)).unwrap();
    let prompt = texts(summary_req);
    for s in [
        "## Intent",
        "## Current state",
        "## Decisions and constraints",
        "## Errors and fixes",
        "## Open questions",
        "## Next step",
        "- src/lib.rs: edited",
    ] {
        assert!(prompt.contains(s), "summary request lacks {s}");
    }

    for c in &compactions {
        assert!(
            c.post_tokens * 10 <= c.pre_tokens * 7,
            "each compaction takes ≥ 30 % off: {c:?}"
        );
        assert_eq!(c.kept.files_changed, 5, "{c:?}");
        assert_eq!(c.kept.commands, 3, "{c:?}");
        assert!(c.kept.requests >= 1);
        assert!(c.state.contains("src/new_a.rs"));
        assert_eq!(c.summary, POOR_SUMMARY);
    }
    for (i, r) in server.requests().iter().enumerate() {
        assert!(r.rejected.is_none(), "request {i}: {:?}", r.rejected);
    }
    let agent = control
        .stop(Duration::from_secs(5))
        .await
        .expect("the agent stops");
    validate_history(agent.history.shared()).expect("history invariants");
    println!(
        "60 turns in a {WINDOW}-token window: {} requests, {} compactions ({})",
        bodies.len(),
        compactions.len(),
        compactions
            .iter()
            .map(|c| format!("{}→{}", c.pre_tokens, c.post_tokens))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("the last state block:\n{}", compactions.last().unwrap().state);
}
