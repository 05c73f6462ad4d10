//! "Run outside the sandbox?": after a sandbox denial, the user (never the model) may let the
//! same command run again unsandboxed. The question goes through the ordinary approval
//! flow — a `PermissionRequest` for the same call, titled "bash outside the sandbox", whose
//! input carries `sandbox_denied` and whose preview notes what was blocked — so the TUI's
//! modal asks it like any other question and Ctrl+C ends the wait.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent::exec_env::ExecEnv;
use crate::permission::Consent;
use crate::protocol::AgentEvent;
use crate::protocol::approval::Preview;
use crate::sandbox::{AskOutside, CallSandbox, DENIED_KEY};

/// What a session-wide answer is remembered under; no tool has this name, so it never
/// grants anything else.
const GRANT_NAME: &str = "bash (outside the sandbox)";
/// What allowing means, under the note in the approval prompt.
const OUTSIDE_NOTE: &str = "Allowing runs it again outside the sandbox, with your full rights.";

/// The sandbox of one bash call, or None when the run has no sandbox.
pub fn for_call(
    env: &ExecEnv,
    id: &str,
    name: &str,
    input: &Value,
    token: &CancellationToken,
) -> Option<CallSandbox> {
    let policy = env.sandbox.clone()?;
    let ask_outside = env.policy.is_interactive().then(|| {
        let permissions = env.policy.clone();
        let events = env.events.clone();
        let id = id.to_string();
        let name = name.to_string();
        let input = input.clone();
        let token = token.clone();
        let tool = env.registry.get(&name).map(|r| r.tool.clone());
        let ask: AskOutside = Arc::new(move |note: String| {
            let permissions = permissions.clone();
            let events = events.clone();
            let (id, name, token) = (id.clone(), name.clone(), token.clone());
            let summary = tool.as_ref().map(|t| t.summary(&input)).unwrap_or_default();
            let preview = match tool.as_ref().and_then(|t| t.preview(&input)) {
                Some(Preview::Command { text, .. }) => Some(Preview::Command {
                    text,
                    note: Some(format!("{note}. {OUTSIDE_NOTE}")),
                }),
                other => other,
            };
            let mut shown = input.clone();
            if let Value::Object(map) = &mut shown {
                map.insert(DENIED_KEY.into(), Value::String(note));
            }
            Box::pin(async move {
                let rx = permissions.register(&id);
                events.send(AgentEvent::PermissionRequest {
                    id: id.clone(),
                    tool: format!("{name} outside the sandbox"),
                    input: shown,
                    summary,
                    preview,
                    // Never "always allow": leaving the sandbox is asked each time.
                    why: Default::default(),
                });
                let granted = matches!(
                    permissions.wait(&id, GRANT_NAME, rx, &token).await,
                    Consent::Granted
                );
                events.send(AgentEvent::Permission {
                    id: id.clone(),
                    name: name.clone(),
                    allowed: granted,
                    rule: None,
                });
                if granted {
                    events.send(AgentEvent::ToolStart { id, name });
                }
                granted
            })
        });
        ask
    });
    Some(CallSandbox {
        policy,
        ask_outside,
    })
}
