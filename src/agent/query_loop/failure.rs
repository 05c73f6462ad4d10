//! How a request that could not be made ends the prompt, and the words the user sees for
//! a provider error.

use super::super::Agent;
use super::Flow;
use crate::protocol::{AgentEvent, Terminal};
use crate::provider::ProviderError;

/// Ends the prompt with the right reason for a request that could not be made.
pub(super) fn fail(agent: &Agent, model: &str, e: ProviderError) -> Flow {
    let reason = if is_prompt_too_long(&e) {
        Terminal::PromptTooLong
    } else {
        Terminal::ModelError
    };
    // A setting the user chose (the model, thinking, reasoning effort) is named.
    let message = super::super::request_errors::explain(&e, model)
        .unwrap_or_else(|| super::super::request_errors::describe(&e));
    agent.exec.events.send(AgentEvent::Error {
        message: message.clone(),
    });
    Flow::End(reason, Some(message))
}

/// Passes a server's refusal on as it was sent (status and error body) for the JSON pane's
/// request stepper and recordings; other failures have no such answer.
pub(super) fn report_http(agent: &Agent, e: &ProviderError) {
    if let ProviderError::Http { status, body, .. } = e {
        agent.exec.events.send(AgentEvent::RequestFailed {
            status: *status,
            body: body.clone(),
        });
    }
}

/// Anthropic says 413 or "prompt is too long"; OpenAI `context_length_exceeded` ("maximum
/// context length"); llama.cpp `exceed_context_size_error`.
pub(super) fn is_prompt_too_long(e: &ProviderError) -> bool {
    match e {
        ProviderError::Http {
            status,
            message,
            error_type,
            ..
        } => {
            let message = message.to_lowercase();
            *status == 413
                || message.contains("prompt is too long")
                || message.contains("maximum context length")
                || matches!(
                    error_type.as_deref(),
                    Some("context_length_exceeded" | "exceed_context_size_error")
                )
        }
        _ => false,
    }
}
