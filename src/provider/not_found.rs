//! A 404 that is not the API's own error: a gateway or proxy answering `Not Found` (plain
//! text, HTML, nothing) for a path it does not serve. That almost always means the base URL
//! is wrong, so the message names the URL asked and the model, and where to fix it.

/// The message for a 404 whose `body` is not a JSON error; None for the API's own 404s
/// (an unknown model, which `agent::request_errors` explains).
pub fn explain(url: &str, model: &str, body: &str, hint: &str) -> Option<String> {
    if serde_json::from_str::<serde_json::Value>(body).is_ok_and(|v| v.is_object()) {
        return None;
    }
    let said = crate::text::ellipsize(body.trim(), 120);
    let said = if said.is_empty() {
        "Not Found".to_string()
    } else {
        said
    };
    Some(format!(
        "{said} — nothing answers at {url} (model {model:?}); check --base-url ({hint})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_url_the_model_and_the_flag() {
        let m = explain(
            "http://gw.local/v1/messages",
            "claude-sonnet-4-5",
            "Not Found",
            "the API root",
        )
        .expect("explained");
        assert!(m.contains("http://gw.local/v1/messages"), "{m}");
        assert!(
            m.contains("\"claude-sonnet-4-5\"") && m.contains("--base-url"),
            "{m}"
        );
        assert!(
            explain("u", "m", "", "h").is_some_and(|m| m.starts_with("Not Found")),
            "an empty body"
        );
        let api = r#"{"type":"error","error":{"type":"not_found_error","message":"model: x"}}"#;
        assert_eq!(explain("u", "m", api, "h"), None);
    }
}
