//! The W3C trace context that the processes tooloop starts (hooks, MCP servers) inherit as
//! `TRACEPARENT`, so a collector shows their own spans under tooloop's; and the context each
//! MCP tool call carries in its request's `params._meta.traceparent` (an MCP server starts
//! before any prompt, so its environment cannot name the prompt it serves).
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

/// The span id of tool call `call_id`'s `execute_tool` span, minted from the call's id so
/// the caller and telemetry agree on it without telling each other (telemetry's id
/// generator hands it out when it starts that span; see `telemetry::ids`). FNV-1a over the
/// id: stable across builds and runs, never all zeros (an invalid span id).
pub fn span_id_for_call(call_id: &str) -> [u8; 8] {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in call_id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    if hash == 0 { 1 } else { hash }.to_be_bytes()
}

/// The `traceparent` a request made for tool call `call_id` carries: its `execute_tool`
/// span's (the running prompt's trace, the call's own span id). None whenever telemetry is
/// off (no prompt context is set then). Known at once: nothing waits for telemetry to see
/// the call start.
pub fn for_call(call_id: &str) -> Option<String> {
    let prompt = current()?;
    let mut parts = prompt.split('-');
    let (Some(version), Some(trace), Some(_span), Some(flags)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Some(prompt);
    };
    let span: String = span_id_for_call(call_id)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(format!("{version}-{trace}-{span}-{flags}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_gets_the_prompts_trace_and_its_own_span() {
        assert_ne!(span_id_for_call("toolu_a"), span_id_for_call("toolu_b"));
        assert_ne!(span_id_for_call(""), [0; 8]);
        set(Some(
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into(),
        ));
        let got = for_call("toolu_a").unwrap();
        set(None);
        let span: String = span_id_for_call("toolu_a")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            got,
            format!("00-0af7651916cd43dd8448eb211c80319c-{span}-01")
        );
        assert_eq!(for_call("toolu_a"), None, "telemetry off");
    }
}
