//! Anthropic's server-side web search, as the mock runs it: the tool definition is checked
//! like the API checks it, and a reply searches the way the API streams one (a
//! server_tool_use whose input arrives as JSON fragments, a web_search_tool_result with the
//! results, text blocks with web_search_result_location citations, `server_tool_use.
//! web_search_requests` in the usage). Blocks sent back must be the ones the mock issued:
//! their `encrypted_content` / `encrypted_index` are checked, as the API decrypts them.

use serde_json::{Value, json};

use super::anthropic::named;
use super::reply::{Reply, SseEvent};

/// What `encrypted_content` / `encrypted_index` the mock issues for a URL.
pub fn sealed(url: &str) -> String {
    let sum: u32 = url.bytes().map(u32::from).sum();
    format!("Eo{sum:08x}{}", url.len())
}

/// A server tool definition in `tools` (one with a `type`), as the API validates it.
pub fn validate_tool(i: usize, t: &Value) -> Result<(), String> {
    match t["type"].as_str() {
        Some("web_search_20250305") => {
            if t["name"] != "web_search" {
                return Err(format!(
                    "tools.{i}.web_search_20250305.name: Input should be 'web_search'"
                ));
            }
            if let Some(n) = t.get("max_uses")
                && n.as_u64().is_none_or(|n| n < 1)
            {
                return Err(format!(
                    "tools.{i}.web_search_20250305.max_uses: Input should be greater than or equal to 1"
                ));
            }
            Ok(())
        }
        Some(other) => Err(format!(
            "tools.{i}: Input tag '{other}' found using 'type' does not match any of the expected tags"
        )),
        None => Ok(()),
    }
}

/// Server blocks in a request's message `i`: each result answers a server_tool_use of the
/// same message, and carries what the mock issued.
pub fn validate_blocks(i: usize, role: &str, content: &[Value]) -> Result<(), String> {
    let mut calls = Vec::new();
    for (j, b) in content.iter().enumerate() {
        match b["type"].as_str().unwrap_or("") {
            "server_tool_use" | "web_search_tool_result" if role != "assistant" => {
                return Err(format!(
                    "messages.{i}.content.{j}: `{}` blocks are only allowed in assistant messages",
                    b["type"].as_str().unwrap_or("")
                ));
            }
            "server_tool_use" => {
                let id = b["id"].as_str().unwrap_or("");
                if !id.starts_with("srvtoolu_") {
                    return Err(format!(
                        "messages.{i}.content.{j}.server_tool_use.id: String should match pattern '^srvtoolu_[a-zA-Z0-9_]+$'"
                    ));
                }
                calls.push(id.to_string());
            }
            "web_search_tool_result" => {
                let id = b["tool_use_id"].as_str().unwrap_or("");
                if !calls.iter().any(|c| c == id) {
                    return Err(format!(
                        "messages.{i}.content.{j}: `web_search_tool_result` block with tool_use_id `{id}` has no corresponding `server_tool_use` block before it"
                    ));
                }
                for r in b["content"].as_array().into_iter().flatten() {
                    let url = r["url"].as_str().unwrap_or("");
                    if r["encrypted_content"].as_str() != Some(sealed(url).as_str()) {
                        return Err(format!(
                            "messages.{i}.content.{j}: Invalid `encrypted_content` in web_search_tool_result block"
                        ));
                    }
                }
            }
            "text" => {
                for c in b["citations"].as_array().into_iter().flatten() {
                    let url = c["url"].as_str().unwrap_or("");
                    if c["type"] == "web_search_result_location"
                        && c["encrypted_index"].as_str() != Some(sealed(url).as_str())
                    {
                        return Err(format!(
                            "messages.{i}.content.{j}: Invalid `encrypted_index` in citation"
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether a request offers the web_search tool.
pub fn offered(body: &Value) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["type"] == "web_search_20250305"))
}

fn block_start(index: usize, block: Value) -> SseEvent {
    named(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": block}),
    )
}

fn delta(index: usize, delta: Value) -> SseEvent {
    named(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

fn stop(index: usize) -> SseEvent {
    named(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    )
}

/// The events of one search for `query` finding `results` (title, url), then `answer`
/// citing the first result; `stop_reason` as given (`end_turn`, or `pause_turn`).
pub fn search_events(
    id: &str,
    query: &str,
    results: &[(&str, &str)],
    answer: &str,
    stop_reason: &str,
) -> Vec<SseEvent> {
    let mut ev = vec![named(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": "msg_mock_search", "type": "message", "role": "assistant",
            "model": "mock-model", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 2037, "output_tokens": 3,
                      "server_tool_use": {"web_search_requests": 0}}}}),
    )];
    ev.push(block_start(
        0,
        json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": {}}),
    ));
    let input = json!({"query": query}).to_string();
    // Cut in the middle, at a char boundary (a query may be Chinese or Japanese).
    let mut mid = input.len() / 2;
    while !input.is_char_boundary(mid) {
        mid -= 1;
    }
    let (a, b) = input.split_at(mid);
    ev.push(delta(
        0,
        json!({"type": "input_json_delta", "partial_json": ""}),
    ));
    ev.push(delta(
        0,
        json!({"type": "input_json_delta", "partial_json": a}),
    ));
    ev.push(delta(
        0,
        json!({"type": "input_json_delta", "partial_json": b}),
    ));
    ev.push(stop(0));
    let found: Vec<Value> = results
        .iter()
        .map(|(title, url)| {
            json!({"type": "web_search_result", "title": title, "url": url,
                   "encrypted_content": sealed(url), "page_age": "September 26, 2025"})
        })
        .collect();
    ev.push(block_start(
        1,
        json!({"type": "web_search_tool_result", "tool_use_id": id, "content": found}),
    ));
    ev.push(stop(1));
    let mut index = 2;
    if !answer.is_empty() {
        ev.push(block_start(index, json!({"type": "text", "text": ""})));
        ev.push(delta(
            index,
            json!({"type": "text_delta", "text": "Based on the results: "}),
        ));
        ev.push(stop(index));
        index += 1;
        ev.push(block_start(
            index,
            json!({"citations": [], "type": "text", "text": ""}),
        ));
        if let Some((title, url)) = results.first() {
            ev.push(delta(
                index,
                json!({"type": "citations_delta", "citation": {
                    "type": "web_search_result_location", "cited_text": answer,
                    "url": url, "title": title, "encrypted_index": sealed(url)}}),
            ));
        }
        ev.push(delta(index, json!({"type": "text_delta", "text": answer})));
        ev.push(stop(index));
    }
    ev.push(named(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"input_tokens": 2037, "output_tokens": 95,
                         "server_tool_use": {"web_search_requests": 1}}}),
    ));
    ev.push(named("message_stop", json!({"type": "message_stop"})));
    ev
}

/// A reply that searches for `query` once and answers, citing the first result.
pub fn search_reply(query: &str, results: &[(&str, &str)], answer: &str) -> Reply {
    Reply::sse(search_events(
        "srvtoolu_01mock",
        query,
        results,
        answer,
        "end_turn",
    ))
}
