//! What a block tooloop keeps verbatim ([`super::ContentBlock::Other`]) says, in one line:
//! a server tool's call (`web_search "query"`) or its result (the titles and URLs found, a
//! fetched page, a program's exit status). The block itself is never changed.

use serde_json::Value;

/// One search result, fetched page or cited source: its title and URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub title: String,
    pub url: String,
}

/// The one-line summary of a verbatim block, for the conversation and exports.
pub fn summary(block: &Value) -> String {
    let ty = block.get("type").and_then(Value::as_str).unwrap_or("block");
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    match ty {
        "server_tool_use" | "mcp_tool_use" => {
            let name = str_of(block, "name").unwrap_or_else(|| ty.to_string());
            let input = block.get("input").unwrap_or(&Value::Null);
            let what = ["query", "url", "command", "code"]
                .iter()
                .find_map(|k| str_of(input, k))
                .map(|s| format!("{:?}", crate::text::ellipsize(&s, 120)))
                .unwrap_or_else(|| crate::text::ellipsize(&input.to_string(), 120));
            format!("{name} {what}")
        }
        _ if ty.ends_with("_tool_result") => result_summary(ty, block),
        _ => ty.to_string(),
    }
}

fn result_summary(ty: &str, block: &Value) -> String {
    let content = block.get("content").unwrap_or(&Value::Null);
    if let Some(code) = error_code(content) {
        return format!("{ty}: error {code}");
    }
    match ty {
        "web_search_tool_result" => {
            let n = content.as_array().map_or(0, Vec::len);
            format!("{n} result{}", if n == 1 { "" } else { "s" })
        }
        "web_fetch_tool_result" => match str_of_path(content, &["url"]) {
            Some(url) => format!("fetched {url}"),
            None => "fetched".to_string(),
        },
        _ => match content.get("return_code").and_then(Value::as_i64) {
            Some(code) => format!("{ty}: exit {code}"),
            None => ty.to_string(),
        },
    }
}

/// The error a server tool result reports (`{"type": "…_error", "error_code": "…"}`).
fn error_code(content: &Value) -> Option<String> {
    let ty = content.get("type").and_then(Value::as_str)?;
    ty.ends_with("_error").then(|| {
        content
            .get("error_code")
            .and_then(Value::as_str)
            .unwrap_or(ty)
            .to_string()
    })
}

fn str_of_path(v: &Value, path: &[&str]) -> Option<String> {
    let mut at = v;
    for k in path {
        at = at.get(k)?;
    }
    at.as_str().map(str::to_string)
}

/// The sources a verbatim block lists: search results, a fetched page.
pub fn sources(block: &Value) -> Vec<Source> {
    let content = block.get("content").unwrap_or(&Value::Null);
    match content {
        Value::Array(items) => items.iter().filter_map(source).collect(),
        Value::Object(_) => source(content).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// A citation's or a result's title and URL, if it has a URL.
pub fn source(v: &Value) -> Option<Source> {
    let url = v.get("url").and_then(Value::as_str)?.to_string();
    let title = v
        .get("title")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .unwrap_or(&url)
        .to_string();
    Some(Source { title, url })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_and_results_in_one_line() {
        let call = json!({"type": "server_tool_use", "id": "s", "name": "web_search",
            "input": {"query": "rust 2024"}});
        assert_eq!(summary(&call), "web_search \"rust 2024\"");
        let result = json!({"type": "web_search_tool_result", "tool_use_id": "s", "content": [
            {"type": "web_search_result", "title": "Rust", "url": "https://rust-lang.org",
             "encrypted_content": "x"},
            {"type": "web_search_result", "url": "https://b.example"}]});
        assert_eq!(summary(&result), "2 results");
        assert_eq!(
            sources(&result),
            vec![
                Source {
                    title: "Rust".into(),
                    url: "https://rust-lang.org".into()
                },
                Source {
                    title: "https://b.example".into(),
                    url: "https://b.example".into()
                }
            ]
        );
        let error = json!({"type": "web_search_tool_result", "tool_use_id": "s",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}});
        assert_eq!(
            summary(&error),
            "web_search_tool_result: error max_uses_exceeded"
        );
        let code = json!({"type": "code_execution_tool_result", "tool_use_id": "s",
            "content": {"type": "code_execution_result", "stdout": "1", "return_code": 0}});
        assert_eq!(summary(&code), "code_execution_tool_result: exit 0");
        assert_eq!(
            summary(&json!({"type": "container_upload"})),
            "container_upload"
        );
    }
}
