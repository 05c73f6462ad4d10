//! Every 404 on the messages endpoint names the URL asked and the model, and where to fix
//! each: a gateway or proxy answering `Not Found` (plain text, HTML, nothing, or an
//! Anthropic-shaped `not_found_error` "Not Found") almost always means a wrong base URL; the
//! API's own "model: NAME" means an unknown model (`agent::request_errors` says so).

/// The message for a 404. `message` is what the body said (its JSON error message, or the
/// body itself); `body` is the raw text, to tell JSON from the rest.
pub fn explain(url: &str, model: &str, body: &str, message: &str, hint: &str) -> String {
    let json = serde_json::from_str::<serde_json::Value>(body).is_ok_and(|v| v.is_object());
    if json && message.to_lowercase().contains("model") {
        // The API does not know the model: request_errors names it and /model; the URL
        // says which server answered.
        return format!("{message} (at {url})");
    }
    let said = crate::text::ellipsize(message.trim(), 120);
    let said = if said.is_empty() {
        "Not Found".to_string()
    } else {
        said
    };
    format!(
        "{said} — nothing answers at {url} (model {model:?}); check --base-url ({hint}) or \
         the model (--model, /model)"
    )
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
            "Not Found",
            "the API root",
        );
        assert!(m.contains("http://gw.local/v1/messages"), "{m}");
        assert!(
            m.contains("\"claude-sonnet-4-5\"") && m.contains("--base-url"),
            "{m}"
        );
        assert!(
            explain("u", "m", "", "", "h").starts_with("Not Found"),
            "an empty body"
        );
        // An Anthropic-shaped gateway 404 (issue 41, item 6): the model, the URL, both fixes.
        let gw = r#"{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}"#;
        let m = explain("http://gw.local/v1/messages", "m1", gw, "Not Found", "h");
        assert!(
            m.contains("http://gw.local/v1/messages")
                && m.contains("\"m1\"")
                && m.contains("--base-url")
                && m.contains("/model"),
            "{m}"
        );
        let api = r#"{"type":"error","error":{"type":"not_found_error","message":"model: x"}}"#;
        assert_eq!(explain("u", "m", api, "model: x", "h"), "model: x (at u)");
    }
}
