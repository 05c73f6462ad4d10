//! The OpenAI provider's HTTP side against the mock: what it sends, how errors come back,
//! and the mock's own validation (it must refuse what the real API refuses).

use crate::support;

use futures::StreamExt;
use serde_json::{Value, json};
use support::openai as oa;
use support::{MockServer, Reply};
use tooloop::message::{ContentBlock, Message};
use tooloop::provider::openai::OpenAiProvider;
use tooloop::provider::{ModelRequest, Provider, ProviderError, StreamEvent, ToolSpec};

fn request(messages: Vec<Message>) -> ModelRequest {
    ModelRequest {
        model: "mock-model".into(),
        system: "be brief".into(),
        messages,
        tools: vec![ToolSpec {
            name: "glob".into(),
            description: "find files".into(),
            input_schema: json!({"type": "object", "properties": {"pattern": {"type": "string"}}}),
            defer_loading: false,
        }],
        max_tokens: 128,
        disable_parallel_tool_use: true,
        reasoning: Default::default(),
    }
}

async fn drain(p: &OpenAiProvider, req: &ModelRequest) -> Result<Vec<StreamEvent>, ProviderError> {
    let mut s = p.start(req).await?;
    let mut out = Vec::new();
    while let Some(e) = s.next().await {
        out.push(e?);
    }
    Ok(out)
}

#[tokio::test]
async fn sends_the_chat_completions_request() {
    let server = oa::server();
    server.enqueue(oa::text_reply("ok"));
    let base = format!("{}/prefix/v1/", server.url());
    let p = OpenAiProvider::new(&base, Some(oa::TEST_KEY.into())).expect("provider");
    let req = request(vec![Message::user_text("hi")]);
    drain(&p, &req).await.expect("stream");
    let got = &server.accepted()[0];
    assert_eq!(
        got.path, "/prefix/v1/chat/completions",
        "prefix kept, slash tolerated"
    );
    assert_eq!(got.header("authorization"), Some("Bearer sk-test-openai"));
    assert_eq!(
        got.body,
        p.request_body(&req),
        "request_body is what is sent"
    );
    assert_eq!(got.body["stream"], true);
    assert_eq!(got.body["stream_options"]["include_usage"], true);
    assert_eq!(got.body["max_tokens"], 128);
    assert_eq!(got.body["parallel_tool_calls"], false);
    assert_eq!(
        got.body["tools"][0],
        json!({"type": "function", "function": {"name": "glob", "description": "find files",
            "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}}}})
    );
    assert_eq!(
        got.body["messages"],
        json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    );
}

#[tokio::test]
async fn no_key_no_authorization_header() {
    let server = oa::server();
    server.enqueue(oa::text_reply("ok"));
    let p = OpenAiProvider::new(&oa::base(&server), None).expect("provider");
    drain(&p, &request(vec![Message::user_text("hi")]))
        .await
        .expect("a local server needs no key");
    assert_eq!(server.accepted()[0].header("authorization"), None);
}

#[tokio::test]
async fn a_wrong_key_is_a_401_with_the_api_message() {
    let server = oa::server();
    server.expect_rejections();
    let p = OpenAiProvider::new(&oa::base(&server), Some("sk-wrong".into())).expect("provider");
    let err = drain(&p, &request(vec![Message::user_text("hi")]))
        .await
        .expect_err("refused");
    match &err {
        ProviderError::Http {
            status, message, ..
        } => {
            assert_eq!(*status, 401);
            assert!(
                message.starts_with("Incorrect API key provided"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(!err.is_retryable());
    assert!(!err.to_string().contains("sk-wrong"));
}

#[tokio::test]
async fn a_required_key_that_is_missing_says_how_to_set_it() {
    let server = MockServer::start();
    server.expect_rejections();
    server.add_route(oa::route_key_required());
    let p = OpenAiProvider::new(&oa::base(&server), None).expect("provider");
    let err = drain(&p, &request(vec![Message::user_text("hi")]))
        .await
        .expect_err("refused");
    assert!(matches!(err, ProviderError::Http { status: 401, .. }));
    assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");
}

#[tokio::test]
async fn rate_limits_carry_the_wait_and_retry_hints() {
    let server = oa::server();
    server.enqueue(
        oa::error(429, "rate_limit_error", "Rate limit reached")
            .header("retry-after-ms", "1500")
            .header("x-should-retry", "true"),
    );
    let p = OpenAiProvider::new(&oa::base(&server), None).expect("provider");
    let err = drain(&p, &request(vec![Message::user_text("hi")]))
        .await
        .expect_err("429");
    // The raw body travels along as the server sent it.
    let body = match &err {
        ProviderError::Http { body, .. } => body.clone(),
        _ => String::new(),
    };
    assert!(body.contains("Rate limit reached"), "{body}");
    assert_eq!(
        err,
        ProviderError::Http {
            status: 429,
            error_type: Some("rate_limit_error".into()),
            message: "Rate limit reached".into(),
            retry_after: Some(std::time::Duration::from_millis(1500)),
            should_retry: Some(true),
            body,
        }
    );
}

#[tokio::test]
async fn nobody_listening_is_a_connection_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let p = OpenAiProvider::new(&format!("http://127.0.0.1:{port}/v1"), None).expect("provider");
    let err = drain(&p, &request(vec![Message::user_text("hi")]))
        .await
        .expect_err("refused");
    assert!(matches!(err, ProviderError::Connect(_)), "{err:?}");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn max_completion_tokens_when_the_model_asks_for_it() {
    let server = MockServer::start();
    // The reasoning-model route refuses `max_tokens` once; the provider switches.
    server.expect_rejections();
    server.add_route(oa::route_reasoning_model());
    server
        .enqueue(oa::text_reply("ok"))
        .enqueue(oa::text_reply("again"));
    let p = OpenAiProvider::new(&oa::base(&server), None).expect("provider");
    let req = request(vec![Message::user_text("hi")]);
    drain(&p, &req).await.expect("switched and succeeded");
    drain(&p, &req).await.expect("remembered");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3, "one refusal, then two accepted");
    assert!(reqs[0].rejected.is_some());
    assert_eq!(reqs[1].body["max_completion_tokens"], 128);
    assert!(reqs[2].body.get("max_tokens").is_none());
    assert_eq!(p.request_body(&req)["max_completion_tokens"], 128);
}

#[tokio::test]
async fn a_server_that_ignores_stream_true_still_works() {
    let server = oa::server();
    let completion = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "mock-model",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Looking.",
            "tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": "glob", "arguments": "{\"pattern\":\"*.rs\"}"}}]}}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3},
    });
    server.enqueue(Reply::status(200, &completion.to_string()));
    let p = OpenAiProvider::new(&oa::base(&server), None).expect("provider");
    let events = drain(&p, &request(vec![Message::user_text("hi")]))
        .await
        .expect("stream");
    let mut asm = tooloop::agent::assembler::Assembler::new();
    for e in events {
        asm.push(e);
    }
    assert!(asm.saw_stop);
    assert_eq!(
        asm.blocks(true),
        vec![
            ContentBlock::text("Looking."),
            ContentBlock::ToolUse {
                id: "c1".into(),
                name: "glob".into(),
                input: json!({"pattern": "*.rs"})
            }
        ]
    );
    assert_eq!(asm.usage.input_tokens, 7);
}

/// Posts raw messages to the mock and returns (status, error message).
async fn post(server: &MockServer, messages: Value) -> (u16, String) {
    let resp = reqwest::Client::new()
        .post(format!("{}/chat/completions", oa::base(server)))
        .json(&json!({"model": "m", "messages": messages, "stream": true}))
        .send()
        .await
        .expect("send");
    let status = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    (
        status,
        body["error"]["message"].as_str().unwrap_or("").to_string(),
    )
}

#[tokio::test]
async fn the_mock_refuses_what_the_api_refuses() {
    let server = oa::server();
    server.expect_rejections();
    let call = |id: &str| json!({"id": id, "type": "function", "function": {"name": "glob", "arguments": "{}"}});
    let (status, msg) = post(
        &server,
        json!([{"role": "user", "content": "hi"},
               {"role": "assistant", "content": null, "tool_calls": [call("c1"), call("c2")]},
               {"role": "tool", "tool_call_id": "c1", "content": "x"},
               {"role": "user", "content": "next"}]),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        msg,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c2"
    );
    let (status, msg) = post(
        &server,
        json!([{"role": "user", "content": "hi"},
               {"role": "assistant", "content": null, "tool_calls": [call("c1")]},
               {"role": "tool", "tool_call_id": "c9", "content": "x"}]),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        msg,
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    );
    let (status, _) = post(
        &server,
        json!([{"role": "user", "content": "hi"},
               {"role": "tool", "tool_call_id": "c1", "content": "x"}]),
    )
    .await;
    assert_eq!(status, 400);
    // A valid conversation passes validation (and then finds no scripted reply).
    server.enqueue(oa::text_reply("fine"));
    let (status, _) = post(
        &server,
        json!([{"role": "user", "content": "hi"},
               {"role": "assistant", "content": null, "tool_calls": [call("c1")]},
               {"role": "tool", "tool_call_id": "c1", "content": "x"}]),
    )
    .await;
    assert_eq!(status, 200);
}
