//! How the conversation shows what the API's server tools did, one compact entry per block:
//! `🔎 web_search "query"`, then the results found, one `title — url` line each; and the
//! sources a reply cites, as a numbered list of links under it.

use serde_json::Value;

use crate::message::server::{self, Source};
use crate::message::{ContentBlock, Message};

/// Most result lines shown for one search (the JSON pane has them all).
const MAX_RESULTS: usize = 8;

/// The entry for one verbatim block.
pub fn describe(block: &Value) -> String {
    let ty = block.get("type").and_then(Value::as_str).unwrap_or("");
    let icon = match ty {
        "server_tool_use" => "🔎",
        _ => "  ↳",
    };
    let mut out = format!("{icon} {}", server::summary(block));
    let sources = server::sources(block);
    for s in sources.iter().take(MAX_RESULTS) {
        out.push_str(&format!("\n     {} — {}", s.title, s.url));
    }
    if sources.len() > MAX_RESULTS {
        out.push_str(&format!("\n     … {} more", sources.len() - MAX_RESULTS));
    }
    out
}

/// The sources the text blocks of `message` cite, each once, in order of first citation.
pub fn cited(message: &Message) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    for block in &message.content {
        if let ContentBlock::Text { citations, .. } = block {
            for s in citations.iter().filter_map(server::source) {
                if !out.iter().any(|o| o.url == s.url) {
                    out.push(s);
                }
            }
        }
    }
    out
}

/// `Sources:` and one numbered `title <url>` line each (terminals make the URLs links).
pub fn sources_entry(sources: &[Source]) -> Option<String> {
    if sources.is_empty() {
        return None;
    }
    let mut out = String::from("Sources:");
    for (i, s) in sources.iter().enumerate() {
        out.push_str(&format!("\n  [{}] {} <{}>", i + 1, s.title, s.url));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_search_and_its_results_and_the_cited_sources() {
        let call = json!({"type": "server_tool_use", "id": "s", "name": "web_search",
            "input": {"query": "rust"}});
        assert_eq!(describe(&call), "🔎 web_search \"rust\"");
        let result = json!({"type": "web_search_tool_result", "tool_use_id": "s",
            "content": [{"type": "web_search_result", "title": "Rust", "url": "https://rust-lang.org"}]});
        assert_eq!(
            describe(&result),
            "  ↳ 1 result\n     Rust — https://rust-lang.org"
        );
        let cite = json!({"type": "web_search_result_location", "url": "https://rust-lang.org",
            "title": "Rust", "cited_text": "x"});
        let m = Message::assistant(vec![
            ContentBlock::Text {
                text: "a".into(),
                citations: vec![cite.clone()],
            },
            ContentBlock::Text {
                text: "b".into(),
                citations: vec![cite],
            },
        ]);
        let sources = cited(&m);
        assert_eq!(sources.len(), 1);
        assert_eq!(
            sources_entry(&sources).as_deref(),
            Some("Sources:\n  [1] Rust <https://rust-lang.org>")
        );
    }
}
