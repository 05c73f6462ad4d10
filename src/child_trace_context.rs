//! The W3C trace context that the processes tooloop starts (hooks, MCP servers) inherit as
//! `TRACEPARENT`, so a collector shows their own spans under tooloop's; and the context each
//! MCP tool call carries in its request's `params._meta.traceparent` (an MCP server starts
//! before any prompt, so its environment cannot name the prompt it serves).
//!
//! Telemetry (src/telemetry) writes it as prompts start and end; the places that spawn
//! processes only read it. It lives on the bottom floor, beside no one, because those places
//! sit below telemetry and must not import it. Empty whenever telemetry is off.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

static CURRENT: Mutex<Option<String>> = Mutex::new(None);

/// The `execute_tool` span of each tool call still running, by tool_use id (None: the span
/// has no valid context).
static CALLS: Mutex<Option<HashMap<String, Option<String>>>> = Mutex::new(None);

/// Sets the `traceparent` children started from now on receive (None: no variable).
pub fn set(traceparent: Option<String>) {
    if let Ok(mut slot) = CURRENT.lock() {
        *slot = traceparent;
    }
}

/// The `traceparent` a child started now receives.
pub fn current() -> Option<String> {
    CURRENT.lock().ok().and_then(|slot| slot.clone())
}

/// Gives `command` the current context as `TRACEPARENT` (and nothing when there is none:
/// a TRACEPARENT tooloop itself inherited then passes through unchanged).
pub fn apply(command: &mut tokio::process::Command) {
    if let Some(value) = current() {
        command.env("TRACEPARENT", value);
    }
}

/// Records that telemetry saw tool call `call_id` start, with its span's `traceparent`.
pub fn set_call(call_id: &str, traceparent: Option<String>) {
    if let Ok(mut slot) = CALLS.lock() {
        slot.get_or_insert_with(HashMap::new)
            .insert(call_id.to_string(), traceparent);
    }
}

/// Forgets tool call `call_id` (it ended).
pub fn end_call(call_id: &str) {
    if let Ok(mut slot) = CALLS.lock()
        && let Some(calls) = slot.as_mut()
    {
        calls.remove(call_id);
    }
}

/// Forgets every call (telemetry shuts down).
pub fn clear_calls() {
    if let Ok(mut slot) = CALLS.lock() {
        *slot = None;
    }
}

fn seen_call(call_id: &str) -> Option<Option<String>> {
    CALLS
        .lock()
        .ok()
        .and_then(|slot| slot.as_ref()?.get(call_id).cloned())
}

/// Longest a call waits for telemetry to see it start (then it carries the prompt's context).
const CALL_WAIT: Duration = Duration::from_millis(20);

/// The `traceparent` a request made for tool call `call_id` carries: its `execute_tool`
/// span's. The events reach telemetry through a channel, so a call that starts mid-stream
/// may get here first: it waits for telemetry to catch up ([`CALL_WAIT`] at most, usually
/// one yield), then falls back to the running prompt's context. None at once whenever
/// telemetry is off (no prompt context is set then).
pub async fn for_call(call_id: &str) -> Option<String> {
    current()?;
    let deadline = tokio::time::Instant::now() + CALL_WAIT;
    tokio::task::yield_now().await;
    loop {
        if let Some(own) = seen_call(call_id) {
            return own.or_else(current);
        }
        if tokio::time::Instant::now() >= deadline {
            return current();
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}
