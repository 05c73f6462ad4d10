//! The OpenAI side of the mock: a `/chat/completions` route that checks requests like the
//! real API (with its wording), and builders for chat completion chunk streams.
//!
//! - The route is in `server::default_routes()`, so any `MockServer::start()` speaks it;
//!   `openai::server()` is the same server, and `openai::base(&s)` its base URL
//!   (`http://127.0.0.1:PORT/v1`). A request with an `Authorization` header must carry
//!   `Bearer {TEST_KEY}` (401 otherwise); without the header it passes, like a local
//!   server. `route_key_required()` also refuses a missing key; `route_reasoning_model()`
//!   refuses `max_tokens` like OpenAI's o-series (add either with `server.add_route`).
//! - Chunks: `text(s)`, `role()`, `call(index, id, name, args)` (each part optional),
//!   `finish(reason)`, `usage(prompt, completion)`, `done()`, `chunk(delta, finish)`,
//!   `error_event(type, message)`.
//! - Replies: `text_reply("Hi")`, `calls_reply(&[("call_a", "glob", json!({..}))])` —
//!   role, then each call as OpenAI streams it (id and name first, arguments in pieces),
//!   finish `tool_calls`, usage, `[DONE]`. `error(status, type, message)` is an error reply
//!   with OpenAI's body shape.
//! - Provider streams: `request(history)`, `stream(reply)` / `stream_with(&server, &req)`
//!   → (events, error), `ok_events(reply)` (must end with MessageStop), `tool_uses(&events)`,
//!   `assemble(&events)` (the loop's Assembler), `stop_reason`, `position`.

use std::collections::HashSet;

use futures::StreamExt;
use serde_json::{Value, json};
use tooloop::agent::assembler::Assembler;
use tooloop::message::{ContentBlock, Message};
use tooloop::provider::openai::OpenAiProvider;
use tooloop::provider::{ModelRequest, Provider, ProviderError, StreamEvent, ToolSpec};

use super::server::{MockServer, Recorded, Reply, Route, SseEvent};

pub const TEST_KEY: &str = "sk-test-openai";

pub fn route() -> Route {
    Route {
        suffix: "/chat/completions",
        validate,
    }
}

pub fn route_key_required() -> Route {
    Route {
        suffix: "/chat/completions",
        validate: validate_key_required,
    }
}

/// Like OpenAI's reasoning models: `max_tokens` is refused in favour of
/// `max_completion_tokens`.
pub fn route_reasoning_model() -> Route {
    Route {
        suffix: "/chat/completions",
        validate: validate_reasoning_model,
    }
}

fn validate_reasoning_model(req: &Recorded) -> Result<(), Reply> {
    if req.body.get("max_tokens").is_some() {
        return Err(error(
            400,
            "invalid_request_error",
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        ));
    }
    validate(req)
}

/// A mock server (the OpenAI route is one of its default routes).
pub fn server() -> MockServer {
    MockServer::start()
}

/// `http://127.0.0.1:PORT/v1`.
pub fn base(server: &MockServer) -> String {
    format!("{}/v1", server.url())
}

/// An error reply shaped like OpenAI's: `{"error": {"message", "type", "param", "code"}}`.
pub fn error(status: u16, error_type: &str, message: &str) -> Reply {
    let body =
        json!({"error": {"message": message, "type": error_type, "param": null, "code": null}});
    Reply::status(status, &body.to_string())
}

fn invalid(message: &str) -> Reply {
    error(400, "invalid_request_error", message)
}

fn validate_key_required(req: &Recorded) -> Result<(), Reply> {
    if req.header("authorization").is_none() {
        return Err(error(
            401,
            "invalid_request_error",
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        ));
    }
    validate(req)
}

/// Checks a `/chat/completions` request like the real API does.
pub fn validate(req: &Recorded) -> Result<(), Reply> {
    if req.method != "POST" {
        return Err(invalid("Method not allowed"));
    }
    if let Some(auth) = req.header("authorization")
        && auth != format!("Bearer {TEST_KEY}")
    {
        return Err(error(
            401,
            "invalid_request_error",
            "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
        ));
    }
    let body = &req.body;
    if !body.is_object() {
        return Err(invalid(
            "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
        ));
    }
    for field in ["model", "messages"] {
        if body.get(field).is_none() {
            return Err(invalid(&format!("Missing required parameter: '{field}'.")));
        }
    }
    if body.get("stream_options").is_some() && body["stream"] != true {
        return Err(invalid(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        ));
    }
    validate_tools(body)?;
    let Some(messages) = body["messages"].as_array() else {
        return Err(invalid(
            "Invalid type for 'messages': expected an array, but got an object instead.",
        ));
    };
    for m in messages {
        let role = m["role"].as_str().unwrap_or("");
        let has_image = m["content"]
            .as_array()
            .is_some_and(|parts| parts.iter().any(|p| p["type"] == "image_url"));
        if has_image && role != "user" {
            return Err(invalid(&format!(
                "Image URLs are only allowed for messages with role 'user', but this message with role '{role}' contains an image URL."
            )));
        }
    }
    validate_messages(messages).map_err(|m| invalid(&m))
}

fn validate_tools(body: &Value) -> Result<(), Reply> {
    let tools = body.get("tools");
    if body.get("parallel_tool_calls").is_some() && tools.is_none() {
        return Err(invalid(
            "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
        ));
    }
    let Some(tools) = tools else {
        return Ok(());
    };
    let Some(tools) = tools.as_array() else {
        return Err(invalid("Invalid type for 'tools': expected an array."));
    };
    if tools.is_empty() {
        return Err(invalid(
            "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        ));
    }
    for (i, t) in tools.iter().enumerate() {
        if t["type"] != "function" {
            return Err(invalid(&format!(
                "Missing required parameter: 'tools[{i}].type'."
            )));
        }
        if !t["function"]["name"].is_string() {
            return Err(invalid(&format!(
                "Missing required parameter: 'tools[{i}].function.name'."
            )));
        }
    }
    Ok(())
}

fn validate_messages(messages: &[Value]) -> Result<(), String> {
    if messages.is_empty() {
        return Err(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.".into(),
        );
    }
    // The calls of the last assistant message with tool_calls, while its tool messages run.
    let mut open: Option<Vec<String>> = None;
    let mut seen_ids: HashSet<String> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("");
        if role != "tool"
            && let Some(ids) = open.take()
        {
            let missing: Vec<&String> = ids.iter().filter(|id| !seen_ids.contains(*id)).collect();
            if !missing.is_empty() {
                return Err(unanswered(&missing));
            }
        }
        match role {
            "system" | "developer" | "user" => {
                if m.get("content").is_none_or(Value::is_null) {
                    return Err(format!(
                        "Missing required parameter: 'messages[{i}].content'."
                    ));
                }
            }
            "assistant" => {
                let calls = m["tool_calls"].as_array();
                if m["content"].is_null() && calls.is_none_or(Vec::is_empty) {
                    return Err(format!(
                        "Invalid value for 'messages[{i}].content': expected a string, got null."
                    ));
                }
                if let Some(calls) = calls {
                    let mut ids = Vec::new();
                    for (j, c) in calls.iter().enumerate() {
                        let Some(id) = c["id"].as_str() else {
                            return Err(format!(
                                "Missing required parameter: 'messages[{i}].tool_calls[{j}].id'."
                            ));
                        };
                        if !c["function"]["arguments"].is_string() {
                            return Err(format!(
                                "Invalid type for 'messages[{i}].tool_calls[{j}].function.arguments': expected a string, but got an object instead."
                            ));
                        }
                        if !c["function"]["name"].is_string() {
                            return Err(format!(
                                "Missing required parameter: 'messages[{i}].tool_calls[{j}].function.name'."
                            ));
                        }
                        ids.push(id.to_string());
                    }
                    seen_ids.clear();
                    open = Some(ids);
                }
            }
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap_or("");
                let answers_open = open.as_ref().is_some_and(|ids| ids.iter().any(|x| x == id));
                if !answers_open {
                    return Err("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".into());
                }
                if m.get("content").is_none_or(Value::is_null) {
                    return Err(format!(
                        "Missing required parameter: 'messages[{i}].content'."
                    ));
                }
                seen_ids.insert(id.to_string());
            }
            other => {
                return Err(format!(
                    "Invalid value: '{other}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function', and 'developer'."
                ));
            }
        }
    }
    if let Some(ids) = open {
        let missing: Vec<&String> = ids.iter().filter(|id| !seen_ids.contains(*id)).collect();
        if !missing.is_empty() {
            return Err(unanswered(&missing));
        }
    }
    Ok(())
}

fn unanswered(missing: &[&String]) -> String {
    let ids: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
    format!(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
        ids.join(", ")
    )
}

/// One chunk with `delta` for choice 0 and an optional finish_reason.
pub fn chunk(delta: Value, finish: Option<&str>) -> SseEvent {
    let c = json!({
        "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": "mock-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    SseEvent::data(&c.to_string())
}

pub fn role() -> SseEvent {
    chunk(json!({"role": "assistant", "content": ""}), None)
}

pub fn text(s: &str) -> SseEvent {
    chunk(json!({"content": s}), None)
}

/// One tool_calls fragment; `None` parts are left out of the JSON.
pub fn call(index: u64, id: Option<&str>, name: Option<&str>, args: Option<&str>) -> SseEvent {
    chunk(
        json!({"tool_calls": [fragment(index, id, name, args.map(Value::from))]}),
        None,
    )
}

pub fn fragment(index: u64, id: Option<&str>, name: Option<&str>, args: Option<Value>) -> Value {
    let mut f = json!({"index": index});
    if let Some(id) = id {
        f["id"] = json!(id);
        f["type"] = json!("function");
    }
    let mut function = json!({});
    if let Some(name) = name {
        function["name"] = json!(name);
    }
    if let Some(args) = args {
        function["arguments"] = args;
    }
    if function.as_object().is_some_and(|o| !o.is_empty()) {
        f["function"] = function;
    }
    f
}

pub fn finish(reason: &str) -> SseEvent {
    chunk(json!({}), Some(reason))
}

/// The usage chunk `stream_options.include_usage` asks for: empty choices.
pub fn usage(prompt: u64, completion: u64) -> SseEvent {
    let c = json!({
        "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": "mock-model",
        "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    });
    SseEvent::data(&c.to_string())
}

pub fn done() -> SseEvent {
    SseEvent::data("[DONE]")
}

/// An error object inside the stream, as OpenAI sends one mid-stream.
pub fn error_event(error_type: &str, message: &str) -> SseEvent {
    SseEvent::data(
        &json!({"error": {"message": message, "type": error_type, "code": null}}).to_string(),
    )
}

pub fn text_reply(s: &str) -> Reply {
    Reply::sse(vec![role(), text(s), finish("stop"), usage(10, 5), done()])
}

/// Each call as OpenAI streams it: id, type and name with empty arguments first, then the
/// arguments in three pieces.
pub fn calls_reply(calls: &[(&str, &str, Value)]) -> Reply {
    let mut events = vec![role()];
    for (i, (id, name, input)) in calls.iter().enumerate() {
        events.extend(call_events(i as u64, id, name, &input.to_string()));
    }
    events.extend([finish("tool_calls"), usage(20, 8), done()]);
    Reply::sse(events)
}

pub fn call_events(index: u64, id: &str, name: &str, args: &str) -> Vec<SseEvent> {
    let mut events = vec![call(index, Some(id), Some(name), Some(""))];
    let n = args.chars().count();
    let cuts = [0, n / 3, 2 * n / 3, n];
    let chars: Vec<char> = args.chars().collect();
    for w in cuts.windows(2) {
        if w[1] > w[0] {
            let piece: String = chars[w[0]..w[1]].iter().collect();
            events.push(call(index, None, None, Some(&piece)));
        }
    }
    events
}

// ---- Provider streams, for assertions ----

/// A request with one tool (read_file) and the given history.
pub fn request(messages: Vec<Message>) -> ModelRequest {
    ModelRequest {
        model: "mock-model".into(),
        system: "sys".into(),
        messages,
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "read".into(),
            input_schema: json!({"type": "object"}),
            defer_loading: false,
        }],
        max_tokens: 64,
        disable_parallel_tool_use: false,
        reasoning: Default::default(),
    }
}

/// Everything the stream yielded, and the error it ended with, if any.
pub async fn stream_with(
    server: &MockServer,
    req: &ModelRequest,
) -> (Vec<StreamEvent>, Option<ProviderError>) {
    let p = OpenAiProvider::new(&base(server), None).expect("provider");
    let mut s = p.start(req).await.expect("request accepted");
    let mut events = Vec::new();
    while let Some(item) = s.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

/// One reply from a fresh server, for a one-message history.
pub async fn stream(reply: Reply) -> (Vec<StreamEvent>, Option<ProviderError>) {
    let server = server();
    server.enqueue(reply);
    stream_with(&server, &request(vec![Message::user_text("go")])).await
}

/// The events of a stream that must end properly.
pub async fn ok_events(reply: Reply) -> Vec<StreamEvent> {
    let (events, err) = stream(reply).await;
    assert_eq!(err, None, "events so far: {events:#?}");
    assert_eq!(events.last(), Some(&StreamEvent::MessageStop));
    events
}

/// The completed tool_use blocks, as (id, name, input).
pub fn tool_uses(events: &[StreamEvent]) -> Vec<(String, String, Value)> {
    super::stream::assembled(events)
        .0
        .into_iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some((id, name, input)),
            _ => None,
        })
        .collect()
}

/// Where the block started with tool_use id `id` stops.
pub fn stop_of(events: &[StreamEvent], id: &str) -> usize {
    let index = events
        .iter()
        .find_map(|e| match e {
            StreamEvent::BlockStart {
                index, id: Some(i), ..
            } if i == id => Some(*index),
            _ => None,
        })
        .expect("the block started");
    position(events, |e| *e == StreamEvent::BlockStop { index })
}

/// The events fed through the loop's own assembler.
pub fn assemble(events: &[StreamEvent]) -> Assembler {
    let mut asm = Assembler::new();
    for e in events {
        asm.push(e.clone());
    }
    asm
}

pub fn stop_reason(events: &[StreamEvent]) -> Option<String> {
    assemble(events).stop_reason
}

/// Where the first event matching `pred` is.
pub fn position(events: &[StreamEvent], pred: impl Fn(&StreamEvent) -> bool) -> usize {
    events.iter().position(pred).expect("event present")
}
