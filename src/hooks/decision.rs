//! What a finished hook said: exit 0 = nothing to object (or a JSON answer on stdout), exit
//! 2 = block with stderr as the reason, anything else = the hook itself failed, which is
//! reported but never blocks (a broken script must not wedge every tool call).

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
    /// Text to add for the model (post_tool_use, user_prompt_submit).
    pub context: Option<String>,
}

#[derive(Deserialize)]
struct JsonAnswer {
    decision: Option<String>,
    reason: Option<String>,
    context: Option<String>,
}

pub fn interpret(p: &HookProcess) -> Verdict {
    let none = |reason: Option<String>| Verdict {
        decision: HookDecision::None,
        reason,
        context: None,
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
        return none(Some("interrupted by user".into()));
    }
    let json = parse_json(&p.stdout);
    match p.exit {
        Some(0) => match json {
            Some(Ok(answer)) => answer,
            Some(Err(e)) => none(Some(e)),
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
    let decision = match answer.decision.as_deref() {
        None => HookDecision::None,
        Some("allow" | "approve") => HookDecision::Allow,
        Some("deny" | "block") => HookDecision::Deny,
        Some("stop") => HookDecision::Stop,
        Some(other) => {
            return Some(Err(format!(
                "unknown decision {other:?} (allow, deny or stop)"
            )));
        }
    };
    Some(Ok(Verdict {
        decision,
        reason: answer.reason.filter(|r| !r.trim().is_empty()),
        context: answer.context.filter(|c| !c.trim().is_empty()),
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
        let v = interpret(&exited(0, "some log line\n", ""));
        assert_eq!(v.decision, HookDecision::None);
        assert_eq!(v.reason, None);
    }

    #[test]
    fn exit_2_blocks_with_stderr_as_the_reason() {
        let v = interpret(&exited(2, "", "no rm -rf please\n"));
        assert_eq!(v.decision, HookDecision::Deny);
        assert_eq!(v.reason.as_deref(), Some("no rm -rf please"));
        let v = interpret(&exited(2, "", ""));
        assert_eq!(v.reason.as_deref(), Some("blocked by a hook (exit 2)"));
    }

    #[test]
    fn json_answers() {
        let v = interpret(&exited(0, r#"{"decision":"deny","reason":"nope"}"#, ""));
        assert_eq!(
            (v.decision, v.reason.as_deref()),
            (HookDecision::Deny, Some("nope"))
        );
        let v = interpret(&exited(0, r#"{"decision":"stop","reason":"enough"}"#, ""));
        assert_eq!(v.decision, HookDecision::Stop);
        let v = interpret(&exited(0, r#" {"context":"lint: 2 warnings"} "#, ""));
        assert_eq!(v.decision, HookDecision::None);
        assert_eq!(v.context.as_deref(), Some("lint: 2 warnings"));
        let v = interpret(&exited(0, r#"{"decision":"allow"}"#, ""));
        assert_eq!(v.decision, HookDecision::Allow);
    }

    #[test]
    fn broken_hooks_never_block() {
        let v = interpret(&exited(
            1,
            "",
            "bash: ./check.sh: No such file or directory",
        ));
        assert_eq!(v.decision, HookDecision::None);
        assert!(v.reason.unwrap().contains("exit code 1: bash: ./check.sh"));
        let v = interpret(&exited(0, r#"{"decision":"maybe"}"#, ""));
        assert_eq!(v.decision, HookDecision::None);
        assert!(v.reason.unwrap().contains("unknown decision"));
        let v = interpret(&exited(0, "{not json", ""));
        assert_eq!(v.decision, HookDecision::None);
        let timed_out = HookProcess {
            timed_out: true,
            ..HookProcess::default()
        };
        assert_eq!(interpret(&timed_out).decision, HookDecision::None);
    }
}
