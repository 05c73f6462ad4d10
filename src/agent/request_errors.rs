//! Requests the API refused because of a setting the user chose (the model, thinking,
//! reasoning effort): a message that names the setting and what to do, instead of the bare
//! HTTP error. None of these is retried (4xx), so the user sees this once.

use crate::provider::ProviderError;

/// A message for `e` if it is about the model or the reasoning settings; None otherwise.
pub fn explain(e: &ProviderError, model: &str) -> Option<String> {
    let ProviderError::Http {
        status, message, ..
    } = e
    else {
        return None;
    };
    let lower = message.to_lowercase();
    match status {
        // Anthropic: not_found_error "model: NAME"; OpenAI: model_not_found "The model `NAME`
        // does not exist…"; Ollama: "model 'NAME' not found". A 404 that does not mention a
        // model is more likely a wrong base URL, which the plain error says better.
        404 if lower.contains("model") && !lower.contains("--base-url") => Some(format!(
            "the provider does not know the model {model:?} ({e}); pick another with --model \
             or /model (`tooloop models` lists the known ones), or check --base-url"
        )),
        400 if lower.contains("reasoning_effort") => Some(format!(
            "the server refused reasoning_effort for {model:?} ({e}); run without \
             --reasoning-effort or pick a model that supports it"
        )),
        400 if lower.contains("thinking") && !lower.contains("messages.") => Some(format!(
            "the API refused the thinking settings for {model:?} ({e}); --thinking needs at \
             least 1024 tokens and a model with extended thinking, or use --thinking off"
        )),
        _ => None,
    }
}

/// A message a user can act on.
pub fn describe(e: &ProviderError) -> String {
    match e {
        ProviderError::Http {
            status: 401 | 403,
            message,
            ..
        } => format!("the API key was rejected ({message}); check the key you configured"),
        ProviderError::Http { status: 413, .. } => {
            "the conversation is too long for the model (HTTP 413)".to_string()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, ty: &str, message: &str) -> ProviderError {
        ProviderError::Http {
            status,
            error_type: Some(ty.into()),
            message: message.into(),
            retry_after: None,
            should_retry: None,
            body: String::new(),
        }
    }

    #[test]
    fn names_the_model_and_the_setting() {
        let m = explain(
            &http(404, "not_found_error", "model: claude-nope"),
            "claude-nope",
        )
        .expect("explained");
        assert!(m.contains("\"claude-nope\"") && m.contains("/model"), "{m}");
        let m = explain(
            &http(
                400,
                "invalid_request_error",
                "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            ),
            "gpt-4.1",
        )
        .expect("explained");
        assert!(m.contains("--reasoning-effort"), "{m}");
        let m = explain(
            &http(
                400,
                "invalid_request_error",
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
            ),
            "claude-sonnet-4-5",
        )
        .expect("explained");
        assert!(m.contains("--thinking"), "{m}");
    }

    #[test]
    fn leaves_other_errors_alone() {
        assert_eq!(explain(&http(404, "x", "page not found"), "m"), None);
        assert_eq!(explain(&http(500, "api_error", "model broke"), "m"), None);
        // History problems name messages.N and are not about the settings.
        let history = http(
            400,
            "invalid_request_error",
            "messages.3: The final block in an assistant message cannot be `thinking`.",
        );
        assert_eq!(explain(&history, "m"), None);
        assert_eq!(explain(&ProviderError::Incomplete, "m"), None);
    }
}
