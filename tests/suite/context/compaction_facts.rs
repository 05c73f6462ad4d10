//! Compaction keeps the facts tooloop recorded (issue 28), in process through the engine
//! against the API-faithful mock: a 60-turn session in a 12,000-token window with planted
//! facts (three requests, five files changed, a failing command and its fix, a todo list, a
//! background job still running)
//! and a deliberately poor one-sentence summary. After every compaction the next request still
//! carries them, the state block is never nested, and no compaction grows the context.
//! `/compact` on a short conversation changes nothing and says so; a pre_compact hook adds
//! instructions or denies a manual compaction.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tooloop::message::validate_history;
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal};
use tooloop::provider::anthropic::AnthropicProvider;

use support::compaction::*;
use support::*;

const POOR_SUMMARY: &str = "The user is working on some files.";

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
        9 => tool(
            "todo_write",
            json!({"todos": [
                {"content": "rename a to alpha", "status": "completed"},
                {"content": "写测试 for alpha", "status": "in_progress"},
                {"content": "update the README", "status": "pending"},
            ]}),
        ),
        // A job that outlives every compaction of the session.
        10 => tool(
            "bash",
            json!({"command": "sleep 600", "run_in_background": true}),
        ),
        19 | 39 | 59 => text_reply(&format!("Done with request {}.", i / 20 + 1)),
        _ => tool("read_file", json!({"path": "big.txt"})),
    }
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
        // Quoted in the block, or (when the kept tail holds it) said to be after it.
        let quoted = t.contains(&format!("(latest, in full):\n\"\"\"\n{latest}\n\"\"\""));
        let in_tail = t.contains("(latest): in full in the messages after this summary")
            && t.contains(&format!("\n{latest}\n"));
        assert!(
            quoted || in_tail,
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
            "## Todo list (update it with todo_write)\n- [x] rename a to alpha\n\
             - [>] 写测试 for alpha\n- [ ] update the README",
            "## Approval mode\nyolo",
            "`sleep 600`: running",
            "- `sleep 600` → started in background as b1",
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
        assert_eq!(c.kept.commands, 4, "{c:?}");
        assert_eq!(c.kept.todos, 2, "two open items: {c:?}");
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
    println!(
        "the last state block:\n{}",
        compactions.last().unwrap().state
    );
}

/// Sends `/compact [focus]` and returns what answered it: Compacted, a Notice or an Error.
async fn slash_compact(
    control: &tooloop::engine::Control,
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    focus: Option<&str>,
) -> AgentEvent {
    assert!(control.send(AgentCommand::Compact {
        instructions: focus.map(str::to_string),
    }));
    let events = until(rx, |e| {
        matches!(
            e,
            AgentEvent::Compacted { .. } | AgentEvent::Notice { .. } | AgentEvent::Error { .. }
        )
    })
    .await;
    events.into_iter().last().unwrap()
}

/// A conversation of `turns` reads of big.txt in answer to one prompt, replies computed.
async fn long_conversation(
    server: &MockServer,
    control: &tooloop::engine::Control,
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    turns: usize,
) {
    // The mock counts tokens as the API does (else it reports 10 per request).
    server.set_context_window(200_000);
    server.enable_prompt_cache();
    let n = Arc::new(AtomicUsize::new(0));
    server.respond_with(move |req| {
        if is_summary_request(&req.body) {
            return text_reply(POOR_SUMMARY);
        }
        let i = n.fetch_add(1, Ordering::SeqCst);
        if i + 1 < turns {
            ReplyBuilder::new()
                .text("Reading.")
                .tool_use(
                    &format!("toolu_{i:03}"),
                    "read_file",
                    json!({"path": "big.txt"}),
                )
                .build()
        } else {
            text_reply("Read it all.")
        }
    });
    assert!(control.send(AgentCommand::Submit {
        text: "Read big.txt again and again.".into()
    }));
    until(rx, done).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_compact_on_a_short_conversation_changes_nothing_and_says_so() {
    let server = MockServer::start();
    server.enqueue(text_reply("Hello."));
    let tmp = workspace();
    let engine = engine(tmp.path(), &server, "");
    let mut rx = engine.events;
    let control = engine.control;
    assert!(control.send(AgentCommand::Submit { text: "hi".into() }));
    until(&mut rx, done).await;
    match slash_compact(&control, &mut rx, None).await {
        AgentEvent::Notice { text } => assert!(
            text.starts_with("nothing to compact: the conversation is ")
                && text.ends_with(" tokens"),
            "{text}"
        ),
        other => panic!("expected the notice, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 1, "no summary request was spent");
    let agent = control.stop(Duration::from_secs(5)).await.expect("stops");
    assert_eq!(agent.history.len(), 2, "history unchanged");
    assert_eq!(agent.history[0].text(), "hi");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_compact_shrinks_a_long_conversation_and_repeats_never_grow_it() {
    let server = MockServer::start();
    let tmp = workspace();
    // A window large enough that nothing compacts by itself.
    let provider = AnthropicProvider::new(&server.anthropic_base(), "k".into()).expect("p");
    let engine = engine_with(tmp.path(), Arc::new(provider), 200_000, "");
    let mut rx = engine.events;
    let control = engine.control;
    long_conversation(&server, &control, &mut rx, 12).await;
    let AgentEvent::Compacted { info, messages } =
        slash_compact(&control, &mut rx, Some("keep the parser names")).await
    else {
        panic!("the first /compact compacts");
    };
    assert!(info.post_tokens * 10 <= info.pre_tokens * 7, "{info:?}");
    assert_eq!(info.trigger.as_str(), "manual");
    validate_history(&messages).expect("valid");
    let summary_req = server
        .requests()
        .into_iter()
        .find(|r| is_summary_request(&r.body))
        .expect("a summary request");
    assert!(
        texts(&summary_req.body)
            .contains("The user asks the summary to focus on: keep the parser names")
    );
    // Again and again: each compacts by ≥ 30 % or changes nothing; it never grows.
    let mut tokens = info.post_tokens;
    for round in 0..3 {
        match slash_compact(&control, &mut rx, None).await {
            AgentEvent::Compacted { info, messages } => {
                assert!(info.post_tokens * 10 <= info.pre_tokens * 7, "{info:?}");
                assert!(info.post_tokens <= tokens, "round {round}: {info:?}");
                tokens = info.post_tokens;
                let first = messages[0].text();
                assert_eq!(first.matches("<state>").count(), 1, "never nested");
            }
            AgentEvent::Notice { text } => assert!(text.starts_with("nothing to compact")),
            other => panic!("round {round}: {other:?}"),
        }
    }
    let agent = control.stop(Duration::from_secs(5)).await.expect("stops");
    validate_history(agent.history.shared()).expect("valid");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_compact_hook_denies_a_manual_compaction_or_adds_instructions() {
    let server = MockServer::start();
    let tmp = workspace();
    std::fs::write(
        tmp.path().join("hook.sh"),
        "cat > seen.json\nif [ -e deny ]; then\n  echo '{\"decision\": \"deny\", \"reason\": \"not now\"}'\n\
         else\n  echo '{\"context\": \"keep the API names\"}'\nfi\n",
    )
    .expect("hook.sh");
    let hook = "[[hooks.pre_compact]]\ncommand = \"bash hook.sh\"\n";
    let provider = AnthropicProvider::new(&server.anthropic_base(), "k".into()).expect("p");
    let engine = engine_with(tmp.path(), Arc::new(provider), 200_000, hook);
    let mut rx = engine.events;
    let control = engine.control;
    long_conversation(&server, &control, &mut rx, 12).await;
    std::fs::write(tmp.path().join("deny"), "").expect("deny");
    match slash_compact(&control, &mut rx, None).await {
        AgentEvent::Error { message } => {
            assert_eq!(message, "compaction denied by a pre_compact hook: not now")
        }
        other => panic!("expected the denial, got {other:?}"),
    }
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["event"], "pre_compact");
    assert_eq!(seen["trigger"], "manual");
    assert!(seen["pre_tokens"].as_u64().unwrap() > 1_000, "{seen}");
    assert!(
        !server
            .requests()
            .iter()
            .any(|r| is_summary_request(&r.body))
    );
    std::fs::remove_file(tmp.path().join("deny")).expect("rm");
    let AgentEvent::Compacted { .. } = slash_compact(&control, &mut rx, None).await else {
        panic!("compacts once the hook allows it");
    };
    let summary_req = server
        .requests()
        .into_iter()
        .find(|r| is_summary_request(&r.body))
        .expect("a summary request");
    assert!(
        texts(&summary_req.body)
            .contains("Instructions from a pre_compact hook: keep the API names")
    );
    control.stop(Duration::from_secs(5)).await.expect("stops");
}

/// The bug of issue 28: seven demo prompts, then `/compact` made the context bigger
/// (3780 → 3999 tokens) because the kept tail was sized from the window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_compact_after_seven_demo_prompts_never_grows_the_context() {
    use tooloop::provider::demo::{DemoProvider, Pace};
    let tmp = workspace();
    let demo = DemoProvider::new(Pace {
        word: Duration::ZERO,
        json_chunk: Duration::ZERO,
        first_byte: Duration::ZERO,
    });
    let engine = engine_with(tmp.path(), Arc::new(demo), 200_000, "");
    let mut rx = engine.events;
    let control = engine.control;
    let mut before = 0;
    for _ in 0..7 {
        assert!(control.send(AgentCommand::Submit {
            text: "list files, read README.md and tell me the time".into()
        }));
        let events = until(&mut rx, done).await;
        let Some(AgentEvent::Done(s)) = events.last() else {
            unreachable!()
        };
        before = s.context_tokens;
    }
    match slash_compact(&control, &mut rx, None).await {
        AgentEvent::Compacted { info, .. } => {
            assert!(info.post_tokens * 10 <= info.pre_tokens * 7, "{info:?}");
            println!(
                "seven demo prompts: /compact {} → {} tokens",
                info.pre_tokens, info.post_tokens
            );
        }
        AgentEvent::Notice { text } => {
            assert!(text.starts_with("nothing to compact"), "{text}");
            println!("seven demo prompts ({before} tokens): {text}");
        }
        other => panic!("{other:?}"),
    }
    let agent = control.stop(Duration::from_secs(5)).await.expect("stops");
    validate_history(agent.history.shared()).expect("valid");
}
