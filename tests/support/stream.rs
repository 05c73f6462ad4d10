//! Collecting a provider's normalized stream for assertions.

use futures::StreamExt;
use serde_json::json;
use tooloop::agent::assembler::{Assembler, Completed, InvalidToolUse};
use tooloop::message::{ContentBlock, Message};
use tooloop::provider::anthropic::AnthropicProvider;
use tooloop::provider::{
    EventStream, ModelRequest, Provider, ProviderError, StreamEvent, ToolSpec,
};

use super::reply::Reply;
use super::server::MockServer;

/// The key the provider tests use; asserted never to appear in an error.
pub const TEST_KEY: &str = "sk-ant-test-secret-0123456789";

/// Everything a stream yielded: raw events apart, normalized events, the error if any.
#[derive(Debug, Default)]
pub struct Seen {
    pub raw: Vec<(String, String)>,
    pub events: Vec<StreamEvent>,
    pub error: Option<ProviderError>,
}

/// What the loop's own assembler completes from `events`, in completion order: the
/// blocks, and the tool_uses whose input was invalid.
pub fn assembled(events: &[StreamEvent]) -> (Vec<ContentBlock>, Vec<InvalidToolUse>) {
    let mut asm = Assembler::new();
    let (mut blocks, mut invalid) = (Vec::new(), Vec::new());
    for e in events {
        match asm.push(e.clone()) {
            Some(Completed::Block(b)) => blocks.push(b.clone()),
            Some(Completed::Invalid(inv)) => invalid.push(inv.clone()),
            None => {}
        }
    }
    (blocks, invalid)
}

impl Seen {
    /// The blocks completed, as the loop's assembler builds them.
    pub fn completed(&self) -> Vec<ContentBlock> {
        assembled(&self.events).0
    }

    /// The tool_uses whose input did not parse.
    pub fn invalid(&self) -> Vec<InvalidToolUse> {
        assembled(&self.events).1
    }

    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn thinking(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ThinkingDelta { thinking, .. } => Some(thinking.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Reads a stream to its end; panics if anything follows an error.
pub async fn collect(mut stream: EventStream) -> Seen {
    let mut seen = Seen::default();
    while let Some(item) = stream.next().await {
        assert!(seen.error.is_none(), "{item:?} came after {:?}", seen.error);
        match item {
            Ok(StreamEvent::Raw { event, data }) => seen.raw.push((event.into_owned(), data)),
            Ok(ev) => seen.events.push(ev),
            Err(e) => seen.error = Some(e),
        }
    }
    seen
}

/// One user message and one tool.
pub fn sample_request() -> ModelRequest {
    ModelRequest {
        model: "claude-test".into(),
        system: "You are a test.".into(),
        messages: vec![Message::user_text("hello")],
        tools: vec![ToolSpec {
            name: "get_current_time".into(),
            description: "The current time".into(),
            input_schema: json!({"type": "object", "properties": {}}),
            defer_loading: false,
        }],
        max_tokens: 256,
        disable_parallel_tool_use: false,
        reasoning: Default::default(),
    }
}

/// An Anthropic provider pointed at the mock's prefixed base URL.
pub fn anthropic(server: &MockServer) -> AnthropicProvider {
    AnthropicProvider::new(&server.anthropic_base(), TEST_KEY.into()).expect("provider")
}

/// Queues `reply`, sends `sample_request()` and collects the stream.
pub async fn anthropic_run(server: &MockServer, reply: Reply) -> Seen {
    server.enqueue(reply);
    let p = anthropic(server);
    let req = sample_request();
    collect(p.start(&req).await.expect("start")).await
}

/// Queues `reply` and returns the error `start` must give.
pub async fn anthropic_start_err(server: &MockServer, reply: Reply) -> ProviderError {
    server.enqueue(reply);
    let p = anthropic(server);
    let req = sample_request();
    match p.start(&req).await {
        Ok(_) => panic!("expected start to fail"),
        Err(e) => e,
    }
}
