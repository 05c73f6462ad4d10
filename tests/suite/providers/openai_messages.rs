//! What the OpenAI-compatible provider writes for a history: the wire shape of each kind
//! of message (checked against the API's format) and a round trip back through
//! `support::openai_history` that loses nothing the canonical history needs.

use crate::support;

use serde_json::{Value, json};
use support::openai_history::from_openai_messages;
use tooloop::message::{ContentBlock, Message, validate_history};
use tooloop::provider::openai::OpenAiProvider;
use tooloop::provider::{ModelRequest, Provider, ToolSpec};

/// The body's `messages` for `system` and `history`, as the provider encodes them.
fn to_openai_messages(system: &str, history: &[Message]) -> Vec<Value> {
    to_openai_body(system, history, Vec::new())["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn to_openai_body(system: &str, history: &[Message], tools: Vec<ToolSpec>) -> Value {
    let p = OpenAiProvider::new("http://h/v1", None).expect("provider");
    p.request_body(&ModelRequest {
        model: "m".into(),
        system: system.into(),
        messages: history.to_vec(),
        tools,
        max_tokens: 7,
        disable_parallel_tool_use: false,
        reasoning: Default::default(),
    })
}

fn to_openai_tools(tools: &[ToolSpec]) -> Vec<Value> {
    to_openai_body("", &[Message::user_text("x")], tools.to_vec())["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn tool_use(id: &str, name: &str, input: Value) -> ContentBlock {
    ContentBlock::ToolUse {
        id: id.into(),
        name: name.into(),
        input,
    }
}

fn conversation() -> Vec<Message> {
    vec![
        Message::user_text("read a and b"),
        Message::assistant(vec![
            ContentBlock::text("Reading both."),
            tool_use("call_1", "read_file", json!({"path": "a"})),
            tool_use("call_2", "read_file", json!({"path": "b", "limit": 3})),
        ]),
        Message::user(vec![
            ContentBlock::tool_result("call_1", "alpha", false),
            ContentBlock::tool_result("call_2", "Error: no such file", true),
        ]),
        Message::assistant(vec![tool_use("call_3", "list_dir", json!({}))]),
        Message::user(vec![
            ContentBlock::tool_result("call_3", "a\nb", false),
            ContentBlock::text("[interrupted by user]"),
            ContentBlock::text("go on"),
        ]),
        Message::assistant(vec![ContentBlock::text("a says alpha; b is missing.")]),
        Message::user_text("thanks"),
    ]
}

#[test]
fn round_trip_is_unchanged() {
    let history = conversation();
    validate_history(&history).expect("valid input");
    let wire = to_openai_messages("be brief", &history);
    let (system, back) = from_openai_messages(&wire).expect("converts back");
    assert_eq!(system, "be brief");
    assert_eq!(back, history);
}

#[test]
fn wire_shape_matches_the_api() {
    let wire = to_openai_messages("sys", &conversation());
    assert_eq!(wire[0], json!({"role": "system", "content": "sys"}));
    assert_eq!(wire[1], json!({"role": "user", "content": "read a and b"}));
    assert_eq!(
        wire[2],
        json!({"role": "assistant", "content": "Reading both.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}},
            {"id": "call_2", "type": "function",
             "function": {"name": "read_file", "arguments": "{\"path\":\"b\",\"limit\":3}"}},
        ]})
    );
    assert_eq!(
        wire[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "alpha"})
    );
    assert_eq!(wire[4]["role"], "tool");
    assert_eq!(
        wire[5]["content"],
        Value::Null,
        "no text next to tool_calls"
    );
    assert_eq!(wire[6]["tool_call_id"], "call_3");
    assert_eq!(
        wire[7],
        json!({"role": "user", "content": [
            {"type": "text", "text": "[interrupted by user]"},
            {"type": "text", "text": "go on"},
        ]})
    );
    assert_eq!(wire.len(), 10);
}

#[test]
fn error_results_get_a_prefix_and_thinking_is_dropped() {
    let history = vec![
        Message::user_text("x"),
        Message::assistant(vec![
            ContentBlock::Thinking {
                thinking: "hmm".into(),
                signature: "sig".into(),
            },
            tool_use("t1", "bash", json!({"command": "false"})),
        ]),
        Message::user(vec![ContentBlock::tool_result("t1", "exit 1", true)]),
    ];
    let wire = to_openai_messages("", &history);
    assert_eq!(wire[0]["role"], "user", "no system message when empty");
    assert_eq!(wire[1]["content"], Value::Null);
    assert_eq!(wire[2]["content"], "Error: exit 1");
    let (_, back) = from_openai_messages(&wire).expect("converts back");
    assert_eq!(back[1].content.len(), 1, "thinking does not come back");
    assert_eq!(
        back[2].content[0],
        ContentBlock::tool_result("t1", "Error: exit 1", true)
    );
}

#[test]
fn reverse_accepts_what_servers_send() {
    let wire = vec![
        json!({"role": "developer", "content": [{"type": "text", "text": "dev"}]}),
        json!({"role": "user", "content": "hi"}),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "glob", "arguments": ""}},
            {"id": "c2", "type": "function", "function": {"name": "glob", "arguments": {"pattern": "*"}}},
        ]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "x"}]}),
        json!({"role": "tool", "tool_call_id": "c2", "content": "y"}),
    ];
    let (system, back) = from_openai_messages(&wire).expect("converts");
    assert_eq!(system, "dev");
    assert_eq!(back.len(), 3);
    assert_eq!(back[1].content[0], tool_use("c1", "glob", json!({})));
    assert_eq!(
        back[1].content[1],
        tool_use("c2", "glob", json!({"pattern": "*"}))
    );
    validate_history(&back).expect("valid");
    let bad = vec![json!({"role": "assistant", "tool_calls": [
        {"id": "c", "function": {"name": "x", "arguments": "{not json"}}]})];
    let err = from_openai_messages(&bad)
        .expect_err("bad arguments")
        .to_string();
    assert!(err.contains("messages[0].tool_calls[0]"), "{err}");
    assert!(from_openai_messages(&[json!({"role": "robot"})]).is_err());
}

#[test]
fn tools_are_functions() {
    let tools = to_openai_tools(&[ToolSpec {
        name: "glob".into(),
        description: "find files".into(),
        input_schema: json!({"type": "object"}),
        defer_loading: false,
    }]);
    assert_eq!(
        tools,
        vec![json!({"type": "function", "function": {
            "name": "glob", "description": "find files", "parameters": {"type": "object"}}})]
    );
}
