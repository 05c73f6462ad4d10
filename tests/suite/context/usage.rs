//! Cache accounting through both providers' real HTTP paths, and the agent's cost and
//! context events (in process, against the mock).

use crate::support;

use futures::StreamExt;
use serde_json::json;
use support::openai as oa;
use support::*;
use tooloop::provider::openai::OpenAiProvider;
use tooloop::provider::{Provider, StreamEvent, Usage};

async fn usages(p: &dyn Provider, req: &tooloop::provider::ModelRequest) -> Vec<Usage> {
    let mut s = p.start(req).await.expect("start");
    let mut out = Vec::new();
    while let Some(ev) = s.next().await {
        match ev.expect("event") {
            StreamEvent::MessageStart { usage, .. } | StreamEvent::Delta { usage, .. } => {
                out.push(usage)
            }
            _ => {}
        }
    }
    out
}

#[tokio::test]
async fn anthropic_cache_counts_are_parsed_from_message_start() {
    let server = MockServer::start();
    server.enable_prompt_cache();
    server.respond_with(|_| text_reply("ok"));
    let p = support::stream::anthropic(&server);
    let mut req = support::stream::sample_request();
    // A system prompt long enough to be cached (≥ 1,024 tokens).
    req.system = "You are a test. ".repeat(400).into();
    let first = usages(&p, &req).await;
    let second = usages(&p, &req).await;
    let a = server.accepted();
    let (w, r) = (a[0].accounted.unwrap(), a[1].accounted.unwrap());
    assert!(w.cache_write > 1024 && w.cache_read == 0, "{w:?}");
    assert!(r.cache_read >= w.cache_write, "{r:?}");
    assert_eq!(first[0].cache_write_tokens, w.cache_write);
    assert_eq!(first[0].input_tokens, w.input);
    assert_eq!(second[0].cache_read_tokens, r.cache_read);
    assert_eq!(second[0].cache_write_tokens, r.cache_write);
    // The body carried ≤ 4 breakpoints, one on the system prompt.
    assert_eq!(
        a[0].body["system"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
}

#[tokio::test]
async fn openai_cached_tokens_become_cache_reads() {
    let server = oa::server();
    let usage = SseEvent::data(
        &json!({
            "id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 7, "total_tokens": 1007,
                      "prompt_tokens_details": {"cached_tokens": 900}},
        })
        .to_string(),
    );
    server.enqueue(Reply::sse(vec![
        oa::role(),
        oa::text("hi"),
        oa::finish("stop"),
        usage,
        oa::done(),
    ]));
    let p = OpenAiProvider::new(&oa::base(&server), None).expect("provider");
    let u = usages(
        &p,
        &oa::request(vec![tooloop::message::Message::user_text("x")]),
    )
    .await;
    let last = u.last().expect("usage");
    assert_eq!(last.input_tokens, 100, "uncached part only");
    assert_eq!(last.cache_read_tokens, 900);
    assert_eq!(last.output_tokens, 7);
}
