//! Claude Code's prompt hooks (`{"type": "prompt", "prompt": "…", "timeout": 30}`): the
//! event's JSON goes into the prompt (at `$ARGUMENTS`, else after it), a small model
//! answers `{"ok": true}` or `{"ok": false, "reason": "…"}`, and that answer is read like a
//! command hook's: `ok: false` blocks (the tool call, the prompt, the stop) with the reason.
//!
//! `ok: true` is "no objection", never a grant: like a command hook's plain exit 0, it does
//! not answer a permission question for the user. An answer that is not that JSON (or no
//! answer in time) is a failed hook, reported and never blocking, as a broken script is.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::decision::{HookDecision, Verdict};
use super::{HookEvent, HookSpend};

/// Claude Code's default for a prompt hook.
pub const DEFAULT_PROMPT_TIMEOUT: Duration = Duration::from_secs(30);

/// The events a prompt hook may be written for (as Claude Code's docs list them: those
/// whose hooks decide something).
pub const PROMPT_EVENTS: [HookEvent; 7] = [
    HookEvent::PreToolUse,
    HookEvent::PostToolUse,
    HookEvent::PostToolUseFailure,
    HookEvent::PermissionRequest,
    HookEvent::UserPromptSubmit,
    HookEvent::Stop,
    HookEvent::SubagentStop,
];

/// What the judging model is told, whatever the hook's own prompt says.
pub const SYSTEM: &str = "You evaluate a hook of a coding agent. You are given the hook's \
instructions and the event's JSON input. Answer with one JSON object and nothing else: \
{\"ok\": true} when the condition is met (the action may proceed), or {\"ok\": false, \
\"reason\": \"…\"} when it is not, with a short reason the agent will be told.";

/// Why a prompt hook got no answer.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("the model request failed: {0}")]
    Request(#[from] crate::provider::ProviderError),
    #[error("the model's reply ended before it was complete")]
    Incomplete,
    #[error("no model answers prompt hooks here")]
    Unavailable,
}

/// A model's answer to a prompt hook, and what the question cost.
pub struct Answer {
    pub text: String,
    pub spent: HookSpend,
}

/// Asks a model one question and returns its answer (the engine gives the session's
/// provider and its `small` route: src/engine/prompt_judge.rs).
pub trait PromptJudge: Send + Sync {
    fn ask<'a>(
        &'a self,
        prompt: String,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Answer, JudgeError>>;
}

/// The prompt the model sees: `$ARGUMENTS` replaced by the event's JSON, or the JSON after
/// the prompt when it has no `$ARGUMENTS`.
pub fn fill(prompt: &str, input: &str) -> String {
    if prompt.contains("$ARGUMENTS") {
        prompt.replace("$ARGUMENTS", input)
    } else {
        format!("{prompt}\n\n{input}")
    }
}

/// How one prompt hook ended, in the terms a command hook's report uses.
pub struct Judged {
    pub verdict: Verdict,
    /// Some(0) when the model answered, None when it did not (timeout, error, Ctrl+C).
    pub exit: Option<i32>,
    pub duration: Duration,
    /// The answering model and its usage, when it answered.
    pub spent: Option<HookSpend>,
}

/// Asks `judge` within `timeout` (Ctrl+C stops the wait) and reads the answer.
pub async fn run(
    judge: Option<&Arc<dyn PromptJudge>>,
    prompt: String,
    model: Option<&str>,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Judged {
    let started = Instant::now();
    let failed = |why: String| Verdict {
        decision: HookDecision::None,
        reason: Some(why),
        context: None,
        system_message: None,
        updated_input: None,
    };
    let answer = match judge {
        None => Err(JudgeError::Unavailable.to_string()),
        Some(j) => tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(crate::message::markers::INTERRUPTED.to_string()),
            r = tokio::time::timeout(timeout, j.ask(prompt, model)) => match r {
                Err(_) => Err(format!("no answer within {} s", timeout.as_secs())),
                Ok(Err(e)) => Err(e.to_string()),
                Ok(Ok(answer)) => Ok(answer),
            },
        },
    };
    let (verdict, exit, spent) = match answer {
        Ok(a) => (read_answer(&a.text), Some(0), Some(a.spent)),
        Err(why) => (failed(why), None, None),
    };
    Judged {
        verdict,
        exit,
        duration: started.elapsed(),
        spent,
    }
}

/// `{"ok": true}` → no objection; `{"ok": false, "reason": …}` → block with the reason.
/// The object may sit in a code fence or among words (small models add them).
pub fn read_answer(text: &str) -> Verdict {
    let mut v = Verdict {
        decision: HookDecision::None,
        reason: None,
        context: None,
        system_message: None,
        updated_input: None,
    };
    let json = match (text.find('{'), text.rfind('}')) {
        (Some(a), Some(b)) if a < b => serde_json::from_str::<Value>(&text[a..=b]).ok(),
        _ => None,
    };
    match json
        .as_ref()
        .and_then(|j| j.get("ok"))
        .and_then(Value::as_bool)
    {
        Some(true) => {}
        Some(false) => {
            v.decision = HookDecision::Deny;
            v.reason = Some(
                json.as_ref()
                    .and_then(|j| j.get("reason"))
                    .and_then(Value::as_str)
                    .filter(|r| !r.trim().is_empty())
                    .unwrap_or("a prompt hook said no")
                    .to_string(),
            );
        }
        None => {
            let shown = crate::text::ellipsize(text.trim(), 200);
            v.reason = Some(format!(
                "the model's answer is not {{\"ok\": true|false}} JSON: {shown:?}"
            ));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_like_claude_codes() {
        assert_eq!(read_answer(r#"{"ok": true}"#).decision, HookDecision::None);
        let no = read_answer("```json\n{\"ok\": false, \"reason\": \"tests not run\"}\n```");
        assert_eq!(no.decision, HookDecision::Deny);
        assert_eq!(no.reason.as_deref(), Some("tests not run"));
        let garbage = read_answer("sure, looks fine");
        assert_eq!(garbage.decision, HookDecision::None);
        assert!(garbage.reason.unwrap().contains("not {\"ok\""));
        assert_eq!(fill("check $ARGUMENTS now", "{}"), "check {} now");
        assert_eq!(fill("check", "{\"a\":1}"), "check\n\n{\"a\":1}");
    }
}
