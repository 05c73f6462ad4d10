//! What a finished hook said: exit 0 = nothing to object (or a JSON answer on stdout), exit
//! 2 = block with stderr as the reason, anything else = the hook itself failed, which is
//! reported but never blocks (a broken script must not wedge every tool call).
//!
//! The JSON answer is tooloop's (`decision`, `reason`, `context`) or Claude Code's
//! (`decision: "block"`, `continue: false` + `stopReason`, `systemMessage`,
//! `suppressOutput`, `hookSpecificOutput.permissionDecision` + `permissionDecisionReason`,
//! `hookSpecificOutput.additionalContext`, PermissionRequest's
//! `hookSpecificOutput.decision.behavior`): the keys do not collide, so one reader takes both.

use serde::{Deserialize, Serialize};

use super::runner::HookProcess;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookDecision {
    /// Nothing to add: the loop goes on as if there were no hook.
    None,
    /// An explicit yes (`{"decision":"allow"}`): for pre_tool_use it answers the approval
    /// question. A plain exit 0 is `None`, so a logging hook never grants a tool.
    Allow,
    /// Block this call / prompt / stop.
    Deny,
    /// End the turn (`hook_stopped`).
    Stop,
}

impl HookDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            HookDecision::None => "none",
            HookDecision::Allow => "allow",
            HookDecision::Deny => "deny",
            HookDecision::Stop => "stop",
        }
    }
}

/// A hook's answer, read from its process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub decision: HookDecision,
    pub reason: Option<String>,
    /// Text to add for the model (post_tool_use, user_prompt_submit, session_start).
    pub context: Option<String>,
    /// Claude Code's `systemMessage`: for the user.
    pub system_message: Option<String>,
    /// PreToolUse's `hookSpecificOutput.updatedInput`: the input the tool runs with instead
    /// (as the hook wrote it: Claude Code's field names for a Claude Code hook).
    pub updated_input: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonAnswer {
    decision: Option<String>,
    reason: Option<String>,
    context: Option<String>,
    #[serde(rename = "continue")]
    go_on: Option<bool>,
    stop_reason: Option<String>,
    system_message: Option<String>,
    hook_specific_output: Option<Specific>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Specific {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    additional_context: Option<String>,
    updated_input: Option<serde_json::Map<String, serde_json::Value>>,
    /// PermissionRequest: `{"behavior": "allow" | "deny", "message": …}`.
    decision: Option<Behavior>,
}

#[derive(Deserialize)]
struct Behavior {
    behavior: Option<String>,
    message: Option<String>,
}

/// `plain_context`: exit 0 with plain (non-JSON) stdout adds it as context.
pub fn interpret(p: &HookProcess, plain_context: bool) -> Verdict {
    let none = |reason: Option<String>| Verdict {
        decision: HookDecision::None,
        reason,
        context: None,
        system_message: None,
        updated_input: None,
    };
    if let Some(e) = &p.spawn_error {
        return none(Some(e.clone()));
    }
    if p.timed_out {
        return none(Some(format!(
            "timed out after {} ms and was stopped",
            p.duration.as_millis()
        )));
    }
    if p.cancelled {
        return none(Some(crate::message::markers::INTERRUPTED.into()));
    }
    let json = parse_json(&p.stdout);
    match p.exit {
        Some(0) => match json {
            Some(Ok(answer)) => answer,
            Some(Err(e)) => none(Some(e)),
            None if plain_context => Verdict {
                context: non_empty(&p.stdout),
                ..none(None)
            },
            None => none(None),
        },
        Some(2) => {
            let from_json = json.and_then(Result::ok);
            let reason = from_json
                .as_ref()
                .and_then(|a| a.reason.clone())
                .or_else(|| non_empty(&p.stderr))
                .unwrap_or_else(|| "blocked by a hook (exit 2)".to_string());
            Verdict {
                decision: HookDecision::Deny,
                reason: Some(reason),
                context: from_json.and_then(|a| a.context),
                system_message: None,
                updated_input: None,
            }
        }
        Some(code) => none(Some(format!(
            "the hook failed with exit code {code}{}",
            non_empty(&p.stderr)
                .map(|e| format!(": {}", first_line(&e)))
                .unwrap_or_default()
        ))),
        None => none(Some("the hook was killed by a signal".into())),
    }
}

/// None when stdout is not a JSON object (plain output is allowed and ignored).
fn parse_json(stdout: &str) -> Option<Result<Verdict, String>> {
    let text = stdout.trim();
    if !text.starts_with('{') {
        return None;
    }
    let answer: JsonAnswer = match serde_json::from_str(text) {
        Ok(a) => a,
        Err(e) => return Some(Err(format!("the hook's JSON answer does not parse: {e}"))),
    };
    let text = |s: Option<String>| s.filter(|r| !r.trim().is_empty());
    let specific = answer.hook_specific_output;
    let (specific_decision, specific_reason, specific_context, updated_input) = match specific {
        Some(s) => {
            let (d, r) = match (s.permission_decision, s.decision) {
                (Some(d), _) => (Some(d), s.permission_decision_reason),
                (None, Some(b)) => (b.behavior, b.message),
                (None, None) => (None, None),
            };
            let updated = s.updated_input.map(serde_json::Value::Object);
            (d, r, s.additional_context, updated)
        }
        None => (None, None, None, None),
    };
    // `continue: false` beats every other answer: the turn ends.
    if answer.go_on == Some(false) {
        return Some(Ok(Verdict {
            decision: HookDecision::Stop,
            reason: text(answer.stop_reason).or(text(answer.reason)),
            context: None,
            system_message: text(answer.system_message),
            updated_input: None,
        }));
    }
    let decision = match specific_decision.as_deref().or(answer.decision.as_deref()) {
        None => HookDecision::None,
        Some("allow" | "approve") => HookDecision::Allow,
        Some("deny" | "block") => HookDecision::Deny,
        Some("stop") => HookDecision::Stop,
        // Claude Code's `ask`: the question is asked as if there were no hook.
        Some("ask") => HookDecision::None,
        Some(other) => {
            return Some(Err(format!(
                "unknown decision {other:?} (allow, deny, ask, block or stop)"
            )));
        }
    };
    Some(Ok(Verdict {
        decision,
        reason: text(specific_reason).or(text(answer.reason)),
        context: text(specific_context).or(text(answer.context)),
        system_message: text(answer.system_message),
        updated_input,
    }))
}

fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interpret_plain(p: &HookProcess) -> Verdict {
        interpret(p, false)
    }

    #[test]
    fn claude_code_answers() {
        let v = interpret_plain(&exited(
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe"}}"#,
            "",
        ));
        assert_eq!(
            (v.decision, v.reason.as_deref()),
            (HookDecision::Allow, Some("safe"))
        );
        let v = interpret_plain(&exited(
            0,
            r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"},"systemMessage":"blocked rm"}"#,
            "",
        ));
        assert_eq!(
            (v.decision, v.reason.as_deref()),
            (HookDecision::Deny, Some("no"))
        );
        assert_eq!(v.system_message.as_deref(), Some("blocked rm"));
        let v = interpret_plain(&exited(
            0,
            r#"{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}"#,
            "",
        ));
        assert_eq!(v.decision, HookDecision::Allow);
        assert_eq!(
            v.updated_input,
            Some(serde_json::json!({"command": "ls -a"}))
        );
        let v = interpret_plain(&exited(
            0,
            r#"{"decision":"block","reason":"tests fail"}"#,
            "",
        ));
        assert_eq!(
            (v.decision, v.reason.as_deref()),
            (HookDecision::Deny, Some("tests fail"))
        );
        let v = interpret_plain(&exited(
            0,
            r#"{"continue":false,"stopReason":"done for today"}"#,
            "",
        ));
        assert_eq!(
            (v.decision, v.reason.as_deref()),
            (HookDecision::Stop, Some("done for today"))
        );
        let v = interpret_plain(&exited(
            0,
            r#"{"suppressOutput":true,"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch: main"}}"#,
            "",
        ));
        assert_eq!(
            (v.decision, v.context.as_deref()),
            (HookDecision::None, Some("branch: main"))
        );
        let v = interpret_plain(&exited(
            0,
            r#"{"hookSpecificOutput":{"permissionDecision":"ask"}}"#,
            "",
        ));
        assert_eq!(v.decision, HookDecision::None);
        let v = interpret_plain(&exited(
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not now"}}}"#,
            "",
        ));
        assert_eq!(
            (v.decision, v.reason.as_deref()),
            (HookDecision::Deny, Some("not now"))
        );
        // Plain stdout is context only where the event says so.
        assert_eq!(
            interpret(&exited(0, "on branch main\n", ""), true)
                .context
                .as_deref(),
            Some("on branch main")
        );
        assert_eq!(
            interpret_plain(&exited(0, "on branch main\n", "")).context,
            None
        );
    }

    fn exited(code: i32, stdout: &str, stderr: &str) -> HookProcess {
        HookProcess {
            exit: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            ..HookProcess::default()
        }
    }

    #[test]
    fn plain_exit_0_adds_nothing_and_grants_nothing() {
        let v = interpret_plain(&exited(0, "some log line\n", ""));
        assert_eq!(v.decision, HookDecision::None);
        assert_eq!(v.reason, None);
    }

    #[test]
    fn exit_2_blocks_with_stderr_as_the_reason() {
        let v = interpret_plain(&exited(2, "", "no rm -rf please\n"));
        assert_eq!(v.decision, HookDecision::Deny);
        assert_eq!(v.reason.as_deref(), Some("no rm -rf please"));
        let v = interpret_plain(&exited(2, "", ""));
        assert_eq!(v.reason.as_deref(), Some("blocked by a hook (exit 2)"));
    }

    #[test]
    fn json_answers() {
        let v = interpret_plain(&exited(0, r#"{"decision":"deny","reason":"nope"}"#, ""));
        assert_eq!(
            (v.decision, v.reason.as_deref()),
            (HookDecision::Deny, Some("nope"))
        );
        let v = interpret_plain(&exited(0, r#"{"decision":"stop","reason":"enough"}"#, ""));
        assert_eq!(v.decision, HookDecision::Stop);
        let v = interpret_plain(&exited(0, r#" {"context":"lint: 2 warnings"} "#, ""));
        assert_eq!(v.decision, HookDecision::None);
        assert_eq!(v.context.as_deref(), Some("lint: 2 warnings"));
        let v = interpret_plain(&exited(0, r#"{"decision":"allow"}"#, ""));
        assert_eq!(v.decision, HookDecision::Allow);
    }

    #[test]
    fn broken_hooks_never_block() {
        let v = interpret_plain(&exited(
            1,
            "",
            "bash: ./check.sh: No such file or directory",
        ));
        assert_eq!(v.decision, HookDecision::None);
        assert!(v.reason.unwrap().contains("exit code 1: bash: ./check.sh"));
        let v = interpret_plain(&exited(0, r#"{"decision":"maybe"}"#, ""));
        assert_eq!(v.decision, HookDecision::None);
        assert!(v.reason.unwrap().contains("unknown decision"));
        let v = interpret_plain(&exited(0, "{not json", ""));
        assert_eq!(v.decision, HookDecision::None);
        let timed_out = HookProcess {
            timed_out: true,
            ..HookProcess::default()
        };
        assert_eq!(interpret_plain(&timed_out).decision, HookDecision::None);
    }
}
