//! Opening a request's stream: the request sent (its body encoded once per attempt, the
//! same bytes to the wire and to the front end), errors before the first byte retried after
//! their backoff, and the fallback model after too many overloads in a row.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::super::Agent;
use super::State;
use crate::protocol::{AgentEvent, Transition};
use crate::provider::{EventStream, ProviderError};

/// Overloaded answers in a row before the fallback model (if any) takes over.
const OVERLOADS_BEFORE_FALLBACK: u32 = 3;

/// Why no stream was opened.
pub(super) enum OpenError {
    Aborted,
    Failed(ProviderError),
}

/// Sends the request, retrying errors that happen before the first byte. The body is
/// encoded once per attempt; the same bytes go to the wire and to the front end.
pub(super) async fn open_stream(
    agent: &Agent,
    state: &mut State,
    cancel: &CancellationToken,
) -> Result<EventStream, OpenError> {
    let tools = super::steering::offered_tools(agent);
    loop {
        let req = agent.request(&state.model, &tools);
        let body = Arc::new(agent.provider.encode(&req));
        agent.exec.events.send(AgentEvent::RequestStart {
            turn: state.turn,
            attempt: state.attempt,
            model: state.model.clone(),
            body: body.clone(),
        });
        let result = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(OpenError::Aborted),
            r = agent.provider.open(&req, &body) => r,
        };
        let err = match result {
            Ok(stream) => return Ok(stream),
            Err(e) => e,
        };
        super::failure::report_http(agent, &err);
        if !agent.settings.retry.should_retry(state.attempt, &err) {
            return Err(OpenError::Failed(err));
        }
        note_overload(agent, state, &err);
        if !wait_before_retry(agent, state, &err, cancel).await {
            return Err(OpenError::Aborted);
        }
    }
}

/// Whether `err` will make [`note_overload`] switch to the fallback model.
pub(super) fn will_fall_back(agent: &Agent, state: &State, err: &ProviderError) -> bool {
    err.is_overloaded()
        && state.consecutive_overloads + 1 >= OVERLOADS_BEFORE_FALLBACK
        && agent.settings.retry.should_retry(state.attempt, err)
        && agent
            .settings
            .fallback_model
            .as_ref()
            .is_some_and(|f| *f != state.model)
}

/// Counts overloads and switches to the fallback model after too many in a row.
pub(super) fn note_overload(agent: &Agent, state: &mut State, err: &ProviderError) {
    if !err.is_overloaded() {
        state.consecutive_overloads = 0;
        return;
    }
    state.consecutive_overloads += 1;
    if state.consecutive_overloads < OVERLOADS_BEFORE_FALLBACK {
        return;
    }
    if let Some(fallback) = &agent.settings.fallback_model
        && *fallback != state.model
    {
        agent.exec.events.send(AgentEvent::Notice {
            text: format!(
                "{} is overloaded ({} times in a row); switching to {fallback}",
                state.model, state.consecutive_overloads
            ),
        });
        state.model = fallback.clone();
        state.consecutive_overloads = 0;
        state.transitions.push(Transition::FallbackModel);
    }
}

/// Waits out the backoff; false if the user aborted during the wait.
pub(super) async fn wait_before_retry(
    agent: &Agent,
    state: &mut State,
    err: &ProviderError,
    cancel: &CancellationToken,
) -> bool {
    let delay = agent.settings.retry.delay(state.attempt, err);
    agent.exec.events.send(AgentEvent::Retry {
        attempt: state.attempt + 1,
        max_attempts: agent.settings.retry.attempts_for(err),
        delay_ms: delay.as_millis() as u64,
        error: err.to_string(),
    });
    state.attempt += 1;
    tokio::select! {
        biased;
        _ = cancel.cancelled() => false,
        _ = tokio::time::sleep(delay) => true,
    }
}
