//! An MCP `tools/call` result as the text the model reads: text content as text; images,
//! audio and resources as one placeholder line each (type, size, URI); `isError` kept.
//! Read from the JSON shape of the spec, so a newer rmcp with more content kinds still
//! gives a line instead of a compile error or a panic.

use serde_json::Value;

use crate::tools::ToolOutput;

pub fn to_output(result: &Value) -> ToolOutput {
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut parts: Vec<String> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().map(describe).collect())
        .unwrap_or_default();
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        parts.push(structured.to_string());
    }
    // Blocks with nothing in them (an empty text) say nothing: the same as no block.
    parts.retain(|p| !p.is_empty());
    let content = if parts.is_empty() {
        "(the tool returned no content)".to_string()
    } else {
        parts.join("\n")
    };
    ToolOutput {
        content,
        is_error,
        images: Vec::new(),
        references: Vec::new(),
    }
}

fn describe(block: &Value) -> String {
    let kind = block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    match kind {
        "text" => str_of(block, "text").unwrap_or_default(),
        "image" | "audio" => {
            let mime = str_of(block, "mimeType").unwrap_or_else(|| "?".into());
            // base64: 4 characters carry 3 bytes.
            let bytes = block
                .get("data")
                .and_then(Value::as_str)
                .map(|d| d.len() / 4 * 3)
                .unwrap_or(0);
            format!("[{kind}: {mime}, {bytes} bytes]")
        }
        "resource" => {
            let res = block.get("resource").unwrap_or(&Value::Null);
            let uri = str_of(res, "uri").unwrap_or_else(|| "?".into());
            match str_of(res, "text") {
                Some(text) => format!("[resource {uri}]\n{text}"),
                None => {
                    let size = res
                        .get("blob")
                        .and_then(Value::as_str)
                        .map(|b| b.len() / 4 * 3)
                        .unwrap_or(0);
                    format!("[resource {uri}, {size} bytes]")
                }
            }
        }
        "resource_link" => {
            let uri = str_of(block, "uri").unwrap_or_else(|| "?".into());
            format!("[resource link {uri}]")
        }
        other => format!("[{other} content]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_images_and_resources() {
        let out = to_output(&json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAAAAAA"}},
                {"type": "resource_link", "uri": "file:///c", "name": "c"},
                {"type": "hologram"}
            ]
        }));
        assert!(!out.is_error);
        assert_eq!(
            out.content,
            "hello\n[image: image/png, 3 bytes]\n[resource file:///a.txt]\ninside\n\
             [resource file:///b.bin, 6 bytes]\n[resource link file:///c]\n[hologram content]"
        );
    }

    #[test]
    fn is_error_and_empty_results() {
        let out =
            to_output(&json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        assert!(out.is_error);
        assert_eq!(out.content, "boom");
        assert_eq!(
            to_output(&json!({})).content,
            "(the tool returned no content)"
        );
        assert_eq!(
            to_output(&json!({"content": [], "structuredContent": {"n": 1}})).content,
            r#"{"n":1}"#
        );
    }
}
