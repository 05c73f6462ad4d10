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

pub mod claude_tools;
pub mod config;
pub mod decision;
pub mod prompt;
pub mod runner;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use config::{Dialect, Hook, HookKind, HookSpec, HooksSection, MatcherError};
pub use decision::{HookDecision, Verdict};

/// A stop hook may send the model back to work this many times in a row; then the turn
/// ends with `stop_hook_prevented`.
pub const MAX_STOP_CONTINUATIONS: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    PreCompact,
    SessionStart,
    SessionEnd,
    PostToolUseFailure,
    SubagentStart,
    SubagentStop,
    Notification,
    PostCompact,
    PermissionRequest,
}

impl HookEvent {
    pub const ALL: [HookEvent; 13] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::PreCompact,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::PostToolUseFailure,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::Notification,
        HookEvent::PostCompact,
        HookEvent::PermissionRequest,
    ];

    /// The name in tooloop's `[[hooks.NAME]]` tables.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "pre_tool_use",
            HookEvent::PostToolUse => "post_tool_use",
            HookEvent::UserPromptSubmit => "user_prompt_submit",
            HookEvent::Stop => "stop",
            HookEvent::PreCompact => "pre_compact",
            HookEvent::SessionStart => "session_start",
            HookEvent::SessionEnd => "session_end",
            HookEvent::PostToolUseFailure => "post_tool_use_failure",
            HookEvent::SubagentStart => "subagent_start",
            HookEvent::SubagentStop => "subagent_stop",
            HookEvent::Notification => "notification",
            HookEvent::PostCompact => "post_compact",
            HookEvent::PermissionRequest => "permission_request",
        }
    }

    /// The name in Claude Code's settings.json and its `hook_event_name`.
    pub fn claude_name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::Notification => "Notification",
            HookEvent::PostCompact => "PostCompact",
            HookEvent::PermissionRequest => "PermissionRequest",
        }
    }

    pub fn from_claude(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.claude_name() == name)
    }

    /// Whether the event is about one tool call (its matcher is on the tool's name; for
    /// the others it is on the event's subject: SessionStart's source, PreCompact's
    /// trigger).
    pub fn is_tool_event(self) -> bool {
        matches!(
            self,
            HookEvent::PreToolUse
                | HookEvent::PostToolUse
                | HookEvent::PostToolUseFailure
                | HookEvent::PermissionRequest
        )
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
    /// A prompt hook's model and the tokens its question used (None for a command hook,
    /// and for a question that got no answer: its tokens still count in the session's cost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spent: Option<HookSpend>,
}

/// What a prompt hook's question cost: the model that answered and its usage.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct HookSpend {
    pub model: String,
    pub usage: crate::provider::Usage,
}

/// A hook starting or ending, as [`Hooks::run`] goes (the timeline draws each as a bar).
#[derive(Clone, Debug, PartialEq)]
/// `index` is the hook's place among those run (they run at once, so they end in any
/// order).
pub enum HookStep<'a> {
    Start { index: usize, command: &'a str },
    End { index: usize, report: HookReport },
}

/// What all the hooks of one event decided together, whatever order they finished in: the
/// strongest decision wins (stop > deny > allow > none; on a tie the first in config order
/// gives the reason), contexts are joined in config order, the first `updatedInput` in
/// config order is the one used.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookOutcome {
    pub decision: Option<(HookDecision, Option<String>)>,
    pub context: Vec<String>,
    /// Claude Code's `systemMessage`s: said to the user, not the model.
    pub messages: Vec<String>,
    /// PreToolUse's `updatedInput`, in tooloop's field names.
    pub updated_input: Option<Value>,
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

/// The configured hooks, matchers compiled: tooloop's `[[hooks.*]]` first, then Claude
/// Code's settings.json entries.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    by_event: HashMap<HookEvent, Vec<Hook>>,
    cwd: PathBuf,
    /// Who answers prompt hooks (the engine sets the session's provider and small model).
    judge: Judge,
}

#[derive(Clone, Default)]
struct Judge(Option<Arc<dyn prompt::PromptJudge>>);

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Judge(set)"
        } else {
            "Judge(none)"
        })
    }
}

impl Hooks {
    /// Hooks from the config's `[hooks]` section, run in `cwd` (the workspace).
    pub fn new(section: &HooksSection, cwd: PathBuf) -> Result<Hooks, MatcherError> {
        let mut by_event: HashMap<HookEvent, Vec<Hook>> = HashMap::new();
        for (event, specs) in section.lists() {
            for s in specs {
                by_event
                    .entry(event)
                    .or_default()
                    .push(Hook::compile(event.as_str(), s)?);
            }
        }
        Ok(Hooks {
            by_event,
            cwd,
            judge: Judge::default(),
        })
    }

    /// Who answers the prompt hooks from now on.
    pub fn set_judge(&mut self, judge: Arc<dyn prompt::PromptJudge>) {
        self.judge = Judge(Some(judge));
    }

    /// The same hooks without those written in `dialect` (Claude Code's, to read its
    /// settings files again after `/hooks` accepted a change).
    pub fn without(&self, dialect: Dialect) -> Hooks {
        let mut out = self.clone();
        for list in out.by_event.values_mut() {
            list.retain(|h| h.dialect != dialect);
        }
        out.by_event.retain(|_, l| !l.is_empty());
        out
    }

    /// Adds one hook after those already there (Claude Code's settings.json entries).
    pub fn add(&mut self, event: HookEvent, hook: Hook) {
        self.by_event.entry(event).or_default().push(hook);
    }

    /// Every hook, with its event, in run order (for `/hooks`).
    pub fn all(&self) -> Vec<(HookEvent, &Hook)> {
        HookEvent::ALL
            .iter()
            .flat_map(|e| self.list(*e).iter().map(move |h| (*e, h)))
            .collect()
    }

    fn list(&self, event: HookEvent) -> &[Hook] {
        self.by_event.get(&event).map_or(&[], Vec::as_slice)
    }

    /// Whether any hook would run for this event and subject (so callers skip building
    /// the payload when none would).
    pub fn wants(&self, event: HookEvent, subject: Option<&str>) -> bool {
        self.list(event).iter().any(|h| h.matches(event, subject))
    }

    /// Runs the matching hooks of `event` all at once (as Claude Code does), each with the
    /// JSON object `fields` + `session_id`, `event` and `cwd` on stdin (a Claude Code hook
    /// gets the same facts in Claude Code's shape, see [`claude_payload`]), and merges their
    /// answers in config order ([`HookOutcome`]). Each hook is passed to `report` as it
    /// starts and as it ends.
    pub async fn run(
        &self,
        event: HookEvent,
        subject: Option<&str>,
        session_id: &str,
        mut fields: Map<String, Value>,
        cancel: &CancellationToken,
        mut report: impl FnMut(HookStep<'_>),
    ) -> HookOutcome {
        use futures::StreamExt;
        let mut outcome = HookOutcome::default();
        let hooks: Vec<&Hook> = self
            .list(event)
            .iter()
            .filter(|h| h.matches(event, subject))
            .collect();
        if hooks.is_empty() {
            return outcome;
        }
        fields.insert("session_id".into(), session_id.into());
        fields.insert("cwd".into(), self.cwd.display().to_string().into());
        let claude = hooks
            .iter()
            .any(|h| h.dialect == Dialect::Claude)
            .then(|| serde_json::to_vec(&claude_payload(event, &fields)).unwrap_or_default());
        fields.insert("event".into(), event.as_str().into());
        let own = serde_json::to_vec(&Value::Object(fields)).unwrap_or_default();
        let mut running = futures::stream::FuturesUnordered::new();
        for (index, hook) in hooks.iter().enumerate() {
            report(HookStep::Start {
                index,
                command: &hook.command,
            });
            let stdin = match (&claude, hook.dialect) {
                (Some(c), Dialect::Claude) => c.clone(),
                _ => own.clone(),
            };
            let cwd = &self.cwd;
            let judge = self.judge.0.as_ref();
            running.push(async move {
                let ran = match &hook.kind {
                    HookKind::Command => {
                        let p =
                            runner::run_hook(&hook.command, cwd, stdin, hook.timeout, cancel).await;
                        let verdict =
                            decision::interpret(&p, plain_stdout_is_context(event, hook.dialect));
                        (verdict, p.exit, p.duration, None)
                    }
                    HookKind::Prompt { model } => {
                        let input = String::from_utf8_lossy(&stdin);
                        let asked = prompt::fill(&hook.command, &input);
                        let j =
                            prompt::run(judge, asked, model.as_deref(), hook.timeout, cancel).await;
                        (j.verdict, j.exit, j.duration, j.spent)
                    }
                };
                (index, ran)
            });
        }
        let mut verdicts: Vec<Option<Verdict>> = vec![None; hooks.len()];
        while let Some((index, (verdict, exit, duration, spent))) = running.next().await {
            let hook = hooks[index];
            report(HookStep::End {
                index,
                report: HookReport {
                    event,
                    command: hook.command.clone(),
                    exit,
                    duration_ms: duration.as_millis() as u64,
                    decision: verdict.decision,
                    reason: verdict.reason.clone(),
                    spent,
                },
            });
            verdicts[index] = Some(verdict);
        }
        for (hook, verdict) in hooks.iter().zip(verdicts.into_iter().flatten()) {
            if let Some(c) = verdict.context {
                outcome.context.push(c);
            }
            if let Some(m) = verdict.system_message {
                outcome.messages.push(m);
            }
            if outcome.updated_input.is_none()
                && event == HookEvent::PreToolUse
                && verdict.decision != HookDecision::Deny
                && let (Some(input), Some(tool)) = (verdict.updated_input, subject)
            {
                outcome.updated_input = Some(match hook.dialect {
                    Dialect::Claude => claude_tools::input_to_tooloop(tool, &input),
                    Dialect::Tooloop => input,
                });
            }
            if verdict.decision > outcome.decision() {
                outcome.decision = Some((verdict.decision, verdict.reason));
            }
        }
        outcome
    }
}

/// Plain stdout (not a JSON answer) becomes context for the model: Claude Code does so for
/// SessionStart and UserPromptSubmit; tooloop's own hooks for session_start.
fn plain_stdout_is_context(event: HookEvent, dialect: Dialect) -> bool {
    match event {
        HookEvent::SessionStart => true,
        HookEvent::UserPromptSubmit => dialect == Dialect::Claude,
        _ => false,
    }
}

/// What a hook written for Claude Code reads on stdin: `hook_event_name`, its tool names
/// and input fields, `tool_response`, `transcript_path`.
fn claude_payload(event: HookEvent, fields: &Map<String, Value>) -> Value {
    use crate::hooks::claude_tools as tools;
    let mut out = fields.clone();
    out.insert("hook_event_name".into(), event.claude_name().into());
    out.entry("transcript_path").or_insert_with(|| "".into());
    if let Some(tool) = fields.get("tool_name").and_then(Value::as_str) {
        out.insert("tool_name".into(), tools::to_claude(tool).into());
        if let Some(input) = fields.get("tool_input") {
            out.insert("tool_input".into(), tools::input_to_claude(tool, input));
        }
    }
    if let Some(output) = out.remove("tool_output") {
        out.insert("tool_response".into(), output);
    }
    Value::Object(out)
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
                ("bash", "touch also-ran"),
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
                    if let HookStep::End { index, report } = step {
                        reports.push((index, report))
                    }
                },
            )
            .await;
        assert_eq!(out.decision(), HookDecision::Deny);
        assert_eq!(out.reason(), Some("not allowed"));
        assert_eq!(out.context_text().as_deref(), Some("first"));
        // They run at once (as in Claude Code): a deny does not stop the others.
        assert_eq!(reports.len(), 3);
        let second = reports.iter().find(|(i, _)| *i == 1).unwrap();
        assert_eq!(second.1.exit, Some(2));
        assert!(dir.path().join("also-ran").exists());
        let seen: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("seen.json")).unwrap()).unwrap();
        assert_eq!(seen["event"], "pre_tool_use");
        assert_eq!(seen["session_id"], "s1");
        assert_eq!(seen["tool_name"], "bash");
        assert_eq!(seen["tool_input"]["command"], "ls");
        assert_eq!(seen["cwd"], dir.path().display().to_string());
    }
}
