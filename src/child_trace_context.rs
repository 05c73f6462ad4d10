//! The W3C trace context that the processes tooloop starts (hooks, MCP servers) inherit as
//! `TRACEPARENT`, so a collector shows their own spans under tooloop's.
//!
//! Telemetry (src/telemetry) writes it as prompts start and end; the places that spawn
//! processes only read it. It lives on the bottom floor, beside no one, because those places
//! sit below telemetry and must not import it. Empty whenever telemetry is off.

use std::sync::Mutex;

static CURRENT: Mutex<Option<String>> = Mutex::new(None);

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
