//! Real provider behaviour end to end (the binary against the mock over HTTP): Anthropic's
//! server-side web search and its blocks sent back unchanged, `pause_turn`, DeepSeek's
//! reasoning round trip, a gateway's 404, and `--web-search` refused where it cannot work.

use crate::support;

use serde_json::{Value, json};
use support::openai as oa;
use support::web_search::{search_events, search_reply};
use support::{MockServer, Recorded, Reply, Route, Tooloop, assert_valid_history};

const RESULTS: &[(&str, &str)] = &[
    (
        "Apple Ginza reopens",
        "https://www.apple.com/newsroom/ginza",
    ),
    ("Tech news today", "https://news.example/today"),
];

fn anthropic(server: &MockServer, extra: &[&str]) -> support::Run {
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "tech news today",
        "--base-url",
        &base,
        "--model",
        "claude-sonnet-4-5",
        "--output-format",
        "stream-json",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args).env("ANTHROPIC_API_KEY", "k").run()
}

fn types(message: &Value) -> Vec<String> {
    message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| b["type"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn web_search_runs_on_the_api_and_its_blocks_are_kept() {
    let server = MockServer::start();
    server.enqueue(search_reply(
        "tech news today",
        RESULTS,
        "Apple Ginza reopened on September 26.",
    ));
    let run = anthropic(&server, &["--web-search"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let req = &server.accepted()[0];
    let tools = req.body["tools"].as_array().expect("tools");
    assert_eq!(
        tools.last(),
        Some(&json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5}))
    );
    let result = run.result();
    assert_valid_history(result);
    let reply = &result["messages"][1];
    assert_eq!(
        types(reply),
        ["server_tool_use", "web_search_tool_result", "text", "text"]
    );
    assert_eq!(
        reply["content"][0]["input"],
        json!({"query": "tech news today"})
    );
    assert_eq!(
        reply["content"][3]["citations"][0]["url"],
        "https://www.apple.com/newsroom/ginza"
    );
    assert_eq!(result["usage"]["web_search_requests"], 1);
    // 2037 in, 95 out on Sonnet 4.5 ($3 / $15 per million) + one search at $10 / 1,000.
    let cost = result["cost_usd"].as_f64().expect("cost");
    let want = 2037.0 * 3.0 / 1e6 + 95.0 * 15.0 / 1e6 + 0.01;
    assert!((cost - want).abs() < 1e-9, "{cost} vs {want}");
    assert!(
        result["text"]
            .as_str()
            .unwrap_or("")
            .contains("Apple Ginza")
    );
}

#[test]
fn config_sets_max_uses_and_openai_compatible_providers_refuse_with_a_notice() {
    let server = MockServer::start();
    server.enqueue(support::text_reply("No search needed."));
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[tools]\nweb_search = true\nweb_search_max_uses = 2\n",
    )
    .expect("config");
    let base = server.anthropic_base();
    let config = config.display().to_string();
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--base-url",
        &base,
        "--output-format",
        "json",
        "--config",
        &config,
    ])
    .env("ANTHROPIC_API_KEY", "k")
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let tools = server.accepted()[0].body["tools"].clone();
    assert_eq!(
        tools
            .as_array()
            .and_then(|t| t.last())
            .map(|t| t["max_uses"].clone()),
        Some(json!(2))
    );

    server.enqueue(oa::text_reply("Hi."));
    let base = oa::base(&server);
    let run = Tooloop::new(&[
        "-p",
        "hi",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--web-search",
    ])
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("--web-search is not available with the openai provider"),
        "{}",
        run.stderr
    );
    let req = server.accepted().last().cloned().expect("request");
    assert!(!req.body.to_string().contains("web_search"), "{}", req.body);
}

/// The API pauses a long server-tool turn; the reply goes back as it is (the last message
/// of the next request, no user message after it) and the continuation joins it.
#[test]
fn pause_turn_sends_the_reply_back_and_the_model_continues_it() {
    let server = MockServer::start();
    server.enqueue(Reply::sse(search_events(
        "srvtoolu_01paused",
        "tech news today",
        RESULTS,
        "",
        "pause_turn",
    )));
    server.enqueue(support::text_reply("Here is what I found."));
    let run = anthropic(&server, &["--web-search"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let reqs = server.accepted();
    assert_eq!(reqs.len(), 2, "one continuation request");
    let sent = reqs[1].body["messages"].as_array().expect("messages");
    assert_eq!(sent.len(), 2, "user, paused assistant: {sent:?}");
    assert_eq!(sent[1]["role"], "assistant");
    assert_eq!(
        types(&sent[1]),
        ["server_tool_use", "web_search_tool_result"]
    );
    let result = run.result();
    assert_eq!(result["reason"], "completed");
    assert_valid_history(result);
    let messages = result["messages"].as_array().expect("messages");
    assert_eq!(
        messages.len(),
        2,
        "the continuation is part of the same reply"
    );
    assert_eq!(
        types(&messages[1]),
        ["server_tool_use", "web_search_tool_result", "text"]
    );
    assert_eq!(result["text"], "Here is what I found.");
}

/// Like DeepSeek in thinking mode: a tool-call turn sent back without its
/// reasoning_content is refused with DeepSeek's words.
fn deepseek_thinking(req: &Recorded) -> Result<(), Reply> {
    for m in req.body["messages"].as_array().into_iter().flatten() {
        let calls = m.get("tool_calls").is_some_and(|c| c.is_array());
        if m["role"] == "assistant" && calls && !m["reasoning_content"].is_string() {
            return Err(oa::error(
                400,
                "invalid_request_error",
                "The reasoning_content in the thinking mode must be passed back to the API.",
            ));
        }
    }
    oa::validate(req)
}

fn reasoning_then_call() -> Reply {
    let mut events = vec![oa::role()];
    for piece in ["Need ", "the time."] {
        events.push(oa::chunk(
            json!({"content": null, "reasoning_content": piece}),
            None,
        ));
    }
    events.extend(oa::call_events(0, "call_00_x", "get_current_time", "{}"));
    events.push(oa::finish("tool_calls"));
    events.push(oa::done());
    Reply::sse(events)
}

#[test]
fn deepseek_gets_its_reasoning_back_and_openai_does_not() {
    for (provider, key_env) in [
        ("deepseek", "DEEPSEEK_API_KEY"),
        ("openai", "OPENAI_API_KEY"),
    ] {
        let server = MockServer::start();
        server.add_route(Route {
            suffix: "/chat/completions",
            validate: deepseek_thinking,
        });
        if provider == "openai" {
            // The plain OpenAI rule sends no reasoning back: this server refuses that.
            server.expect_rejections();
        }
        server.enqueue(reasoning_then_call());
        server.enqueue(oa::text_reply("It is noon."));
        let base = oa::base(&server);
        let run = Tooloop::new(&[
            "-p",
            "what time is it",
            "--provider",
            provider,
            "--base-url",
            &base,
            "--model",
            "deepseek-reasoner",
            "--output-format",
            "json",
        ])
        .env(key_env, oa::TEST_KEY)
        .run();
        let second = server.requests().get(1).cloned();
        let second = second.unwrap_or_else(|| panic!("{provider}: {} {}", run.stderr, run.stdout));
        let assistant = &second.body["messages"][2]; // after system and user
        if provider == "deepseek" {
            assert_eq!(run.code, Some(0), "{}", run.stderr);
            assert_eq!(assistant["reasoning_content"], "Need the time.");
            assert_eq!(assistant["content"], Value::Null);
            assert_valid_history(run.result());
        } else {
            // The plain OpenAI rule sends no reasoning: this server refuses it.
            assert!(assistant.get("reasoning_content").is_none(), "{assistant}");
            assert_eq!(run.code, Some(1));
            let error = run.result()["error"].as_str().unwrap_or("").to_string();
            assert!(
                error.contains("reasoning_content in the thinking mode"),
                "{error}"
            );
        }
    }
}

#[test]
fn a_gateway_404_names_the_url_the_model_and_base_url() {
    let server = MockServer::start();
    server.enqueue(Reply::status(404, "Not Found"));
    let run = anthropic(&server, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let error = run.result()["error"].as_str().unwrap_or("").to_string();
    assert!(
        error.contains(&format!("{}/v1/messages", server.anthropic_base())),
        "{error}"
    );
    assert!(
        error.contains("claude-sonnet-4-5") && error.contains("--base-url"),
        "{error}"
    );
}
