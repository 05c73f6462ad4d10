//! Hooks: the user's own commands at four points of the loop (DESIGN.md §11). Only the
//! user's config defines them; nothing the model writes can add or change one.
//!
//! - `pre_tool_use`: before consent is asked; deny → the call gets an is_error result.
//! - `post_tool_use`: before the result joins history; context is appended to it.
//! - `user_prompt_submit`: before the first request; deny → the prompt is not sent.
//! - `stop`: when the model stops asking for tools; deny → the reason goes back to the
//!   model and the loop goes on (at most [`MAX_STOP_CONTINUATIONS`] times in a row).
//! - `pre_compact`: before a compaction's summary request; context is added to it, deny
//!   refuses a manual `/compact`.
//!
//! `"decision": "stop"` from any hook ends the turn with `hook_stopped`.

pub mod config;
pub mod decision;
pub mod runner;

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use config::{Hook, HookSpec, HooksSection, MatcherError};
pub use decision::{HookDecision, Verdict};

/// A stop hook may send the model back to work this many times in a row; then the turn
/// ends with `stop_hook_prevented`.
pub const MAX_STOP_CONTINUATIONS: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    PreCompact,
}

impl HookEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "pre_tool_use",
            HookEvent::PostToolUse => "post_tool_use",
            HookEvent::UserPromptSubmit => "user_prompt_submit",
            HookEvent::Stop => "stop",
            HookEvent::PreCompact => "pre_compact",
        }
    }
}

/// One hook that ran, for the timeline and stream-json's `hook` line.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct HookReport {
    pub event: HookEvent,
    pub command: String,
    /// None when the hook was killed (timeout, abort) or could not start.
    pub exit: Option<i32>,
    pub duration_ms: u64,
    pub decision: HookDecision,
    /// Why it blocked or stopped, or why the hook itself failed.
    pub reason: Option<String>,
}

/// A hook starting or ending, as [`Hooks::run`] goes (the timeline draws each as a bar).
#[derive(Clone, Debug, PartialEq)]
pub enum HookStep<'a> {
    Start { command: &'a str },
    End(HookReport),
}

/// What all the hooks of one event decided together: the strongest decision wins
/// (stop > deny > allow > none), contexts are joined in config order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookOutcome {
    pub decision: Option<(HookDecision, Option<String>)>,
    pub context: Vec<String>,
}

impl HookOutcome {
    pub fn decision(&self) -> HookDecision {
        self.decision
            .as_ref()
            .map(|d| d.0)
            .unwrap_or(HookDecision::None)
    }

    pub fn reason(&self) -> Option<&str> {
        self.decision.as_ref().and_then(|d| d.1.as_deref())
    }

    /// The contexts joined for the model, or None.
    pub fn context_text(&self) -> Option<String> {
        (!self.context.is_empty()).then(|| self.context.join("\n"))
    }
}

/// The configured hooks, matchers compiled.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    pre_tool_use: Vec<Hook>,
    post_tool_use: Vec<Hook>,
    user_prompt_submit: Vec<Hook>,
    stop: Vec<Hook>,
    pre_compact: Vec<Hook>,
    cwd: PathBuf,
}

impl Hooks {
    /// Hooks from the config's `[hooks]` section, run in `cwd` (the workspace).
    pub fn new(section: &HooksSection, cwd: PathBuf) -> Result<Hooks, MatcherError> {
        let compile = |event, specs: &[HookSpec]| {
            specs
                .iter()
                .map(|s| Hook::compile(event, s))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Hooks {
            pre_tool_use: compile("pre_tool_use", &section.pre_tool_use)?,
            post_tool_use: compile("post_tool_use", &section.post_tool_use)?,
            user_prompt_submit: compile("user_prompt_submit", &section.user_prompt_submit)?,
            stop: compile("stop", &section.stop)?,
            pre_compact: compile("pre_compact", &section.pre_compact)?,
            cwd,
        })
    }

    fn list(&self, event: HookEvent) -> &[Hook] {
        match event {
            HookEvent::PreToolUse => &self.pre_tool_use,
            HookEvent::PostToolUse => &self.post_tool_use,
            HookEvent::UserPromptSubmit => &self.user_prompt_submit,
            HookEvent::Stop => &self.stop,
            HookEvent::PreCompact => &self.pre_compact,
        }
    }

    /// Whether any hook would run for this event and tool (so callers skip building the
    /// payload when none would).
    pub fn wants(&self, event: HookEvent, tool: Option<&str>) -> bool {
        self.list(event).iter().any(|h| h.matches(tool))
    }

    /// Runs the matching hooks of `event` in config order, each with the JSON object
    /// `fields` + `session_id`, `event` and `cwd` on stdin. A deny or stop ends the run
    /// (later hooks would be asked about something that will not happen). Each hook is
    /// passed to `report` as it starts and as it ends.
    pub async fn run(
        &self,
        event: HookEvent,
        tool: Option<&str>,
        session_id: &str,
        mut fields: Map<String, Value>,
        cancel: &CancellationToken,
        mut report: impl FnMut(HookStep<'_>),
    ) -> HookOutcome {
        let mut outcome = HookOutcome::default();
        let hooks: Vec<&Hook> = self
            .list(event)
            .iter()
            .filter(|h| h.matches(tool))
            .collect();
        if hooks.is_empty() {
            return outcome;
        }
        fields.insert("session_id".into(), session_id.into());
        fields.insert("event".into(), event.as_str().into());
        fields.insert("cwd".into(), self.cwd.display().to_string().into());
        let stdin = serde_json::to_vec(&Value::Object(fields)).unwrap_or_default();
        for hook in hooks {
            report(HookStep::Start {
                command: &hook.command,
            });
            let p = runner::run_hook(
                &hook.command,
                &self.cwd,
                stdin.clone(),
                hook.timeout,
                cancel,
            )
            .await;
            let verdict = decision::interpret(&p);
            report(HookStep::End(HookReport {
                event,
                command: hook.command.clone(),
                exit: p.exit,
                duration_ms: p.duration.as_millis() as u64,
                decision: verdict.decision,
                reason: verdict.reason.clone(),
            }));
            if let Some(c) = verdict.context {
                outcome.context.push(c);
            }
            if verdict.decision > outcome.decision() {
                outcome.decision = Some((verdict.decision, verdict.reason));
            }
            if matches!(outcome.decision(), HookDecision::Deny | HookDecision::Stop)
                || cancel.is_cancelled()
            {
                break;
            }
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(pre: &[(&str, &str)]) -> HooksSection {
        HooksSection {
            pre_tool_use: pre
                .iter()
                .map(|(m, c)| HookSpec {
                    matcher: Some(m.to_string()),
                    command: c.to_string(),
                    timeout_secs: Some(5),
                })
                .collect(),
            ..HooksSection::default()
        }
    }

    #[tokio::test]
    async fn hooks_see_the_payload_and_the_strongest_decision_wins() {
        let dir = tempfile::tempdir().unwrap();
        let hooks = Hooks::new(
            &section(&[
                ("bash", "cat > seen.json; echo '{\"context\":\"first\"}'"),
                ("bash|write_file", "echo 'not allowed' >&2; exit 2"),
                ("bash", "touch never-ran"),
            ]),
            dir.path().to_path_buf(),
        )
        .unwrap();
        assert!(hooks.wants(HookEvent::PreToolUse, Some("bash")));
        assert!(!hooks.wants(HookEvent::PreToolUse, Some("read_file")));
        assert!(!hooks.wants(HookEvent::Stop, None));
        let mut fields = Map::new();
        fields.insert("tool_name".into(), "bash".into());
        fields.insert("tool_input".into(), serde_json::json!({"command": "ls"}));
        let mut reports = Vec::new();
        let out = hooks
            .run(
                HookEvent::PreToolUse,
                Some("bash"),
                "s1",
                fields,
                &CancellationToken::new(),
                |step| {
                    if let HookStep::End(r) = step {
                        reports.push(r)
                    }
                },
            )
            .await;
        assert_eq!(out.decision(), HookDecision::Deny);
        assert_eq!(out.reason(), Some("not allowed"));
        assert_eq!(out.context_text().as_deref(), Some("first"));
        assert_eq!(reports.len(), 2, "a deny ends the run");
        assert_eq!(reports[1].exit, Some(2));
        assert!(!dir.path().join("never-ran").exists());
        let seen: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("seen.json")).unwrap()).unwrap();
        assert_eq!(seen["event"], "pre_tool_use");
        assert_eq!(seen["session_id"], "s1");
        assert_eq!(seen["tool_name"], "bash");
        assert_eq!(seen["tool_input"]["command"], "ls");
        assert_eq!(seen["cwd"], dir.path().display().to_string());
    }
}
