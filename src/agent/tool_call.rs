//! One tool call as the executor runs it: consent first, then the tool under its timeout and
//! cancellation token, then the output cut to the limit.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::exec_env::ExecEnv;
use super::hook_calls::{PermissionAnswer, PreTool, post_tool_use, pre_tool_use};
use crate::hooks::HookEvent;
use crate::message::markers::INTERRUPTED;
use crate::permission::decide::Call as PermissionCall;
use crate::permission::{Consent, Verdict};
use crate::protocol::approval::AskWhy;
use crate::protocol::approval::RuleRef;
use crate::protocol::{AgentEvent, ToolOutcome};
use crate::tools::exit_plan_mode::EXIT_PLAN_MODE;
use crate::tools::{Effect, Tool, ToolContext, ToolOutput};

/// How long a cancelled tool may take to clean up (kill its process group) before the
/// executor stops waiting for it.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

pub(super) struct Call {
    pub tool: Arc<dyn Tool>,
    pub id: String,
    pub name: String,
    pub input: Value,
    /// This call's token (a child of the sibling token, itself a child of the turn's).
    pub token: CancellationToken,
    pub turn: CancellationToken,
    pub sibling_reason: Arc<Mutex<Option<String>>>,
}

impl Call {
    /// Runs the call; the Instant is when it started (None if it never did). The outcome
    /// says cancelled only when a token stopped it (Ctrl+C or a failing sibling), never for
    /// its own error or a timeout. The bool: consent was refused (the user, a mode or a rule),
    /// which transcripts keep as "denied".
    pub async fn run(self, env: &ExecEnv) -> (ToolOutput, Option<Instant>, ToolOutcome, bool) {
        let Call {
            tool,
            id,
            name,
            input,
            token,
            turn,
            sibling_reason,
        } = self;
        let effect = tool.effect();
        // The user's pre_tool_use hooks come before consent: a blocked call is never asked.
        let (hooked, updated) = pre_tool_use(&env.hooks, &env.events, &name, &input, &token).await;
        // A hook's `updatedInput` is checked as the model's input was: a bad one is the
        // call's error, never run. Consent is asked about the input that will run.
        let input = match updated.map(|u| (env.registry.get(&name).map(|r| r.validate(&u)), u)) {
            None => input,
            Some((Some(Err(e)), _)) if !matches!(hooked, PreTool::Refused(_)) => {
                let text = format!(
                    "{name} was not run: a pre_tool_use hook's updatedInput is not valid for it: {e}"
                );
                return (ToolOutput::error(text), None, ToolOutcome::Error, false);
            }
            Some((_, u)) => u,
        };
        let pre_allowed = match hooked {
            PreTool::Refused(output) => return (output, None, ToolOutcome::Error, false),
            PreTool::Allowed => true,
            PreTool::Ask => false,
        };
        if let Err((output, outcome)) = ask_consent(
            env,
            tool.as_ref(),
            &id,
            &name,
            effect,
            &input,
            &token,
            pre_allowed,
        )
        .await
        {
            // Refused is an error; an interrupted question is cancelled.
            let refused = outcome == ToolOutcome::Error;
            return (output, None, outcome, refused);
        }
        let post_input = (env.hooks.wants(HookEvent::PostToolUse, Some(&name))
            || env.hooks.wants(HookEvent::PostToolUseFailure, Some(&name)))
        .then(|| input.clone());
        let edited = if effect == Effect::Edit {
            edited_paths(env, tool.as_ref(), &input)
        } else {
            Vec::new()
        };
        super::checkpoints::before(env, &edited).await;
        // The clock starts after consent, so timers show execution time.
        let started_at = Instant::now();
        env.events.send(AgentEvent::ToolStart {
            id: id.clone(),
            name: name.clone(),
        });
        let progress_events = env.events.clone();
        let progress_id = id.clone();
        let sandbox = super::sandbox_call::for_call(env, &id, &name, &input, &token);
        let ctx = ToolContext {
            workspace: env.workspace.clone(),
            cancel: token.clone(),
            progress: Arc::new(move |chunk| {
                progress_events.send(AgentEvent::ToolProgress {
                    id: progress_id.clone(),
                    chunk,
                })
            }),
            max_output_bytes: env.max_output_bytes,
            http: env.http.clone(),
            sandbox,
            call_id: id.clone(),
            jobs: Some(env.jobs.clone()),
            files: env.files.clone(),
        };
        let limit = if tool.bounds_itself() {
            // About a year: never in practice, and still a valid deadline for the timer.
            Duration::from_secs(365 * 24 * 3600)
        } else {
            tool.timeout(&input)
                .unwrap_or(env.default_timeout)
                .min(env.max_timeout)
        };
        let mut fut = tool.run(input, ctx);
        // Cancellation is checked first: a tool that returns because it saw the token
        // must still be reported as interrupted, not as its own "stopped" output.
        let (output, outcome) = tokio::select! {
            biased;
            _ = token.cancelled() => {
                let partial = tokio::time::timeout(CANCEL_GRACE, &mut fut).await.ok();
                let reason = if turn.is_cancelled() {
                    INTERRUPTED.to_string()
                } else {
                    sibling_reason
                        .lock()
                        .ok()
                        .and_then(|r| r.clone())
                        .unwrap_or_else(|| "cancelled".to_string())
                };
                let output = match partial {
                    Some(out) if !out.content.is_empty() => ToolOutput::error(format!(
                        "{reason}\n[output before it was stopped]\n{}",
                        out.content
                    )),
                    _ => ToolOutput::error(reason),
                };
                (output, ToolOutcome::Cancelled)
            }
            out = &mut fut => {
                let outcome = if out.is_error { ToolOutcome::Error } else { ToolOutcome::Ok };
                (out, outcome)
            }
            _ = tokio::time::sleep(limit) => {
                token.cancel();
                let _ = tokio::time::timeout(CANCEL_GRACE, &mut fut).await;
                let output = ToolOutput::error(format!(
                    "Error: {name} timed out after {} and was stopped",
                    human_duration(limit)
                ));
                (output, ToolOutcome::Error)
            }
        };
        super::checkpoints::after(env, &edited).await;
        let output = cut_output(output, env.max_output_bytes);
        // A call the user stopped is not reported to post_tool_use (the turn is over).
        let post_input = post_input.filter(|_| outcome != ToolOutcome::Cancelled);
        // After the cut, so what a hook adds always reaches the model.
        let output = post_tool_use(&env.hooks, &env.events, &name, post_input, output, &turn).await;
        let outcome = if output.is_error && outcome == ToolOutcome::Ok {
            ToolOutcome::Error
        } else {
            outcome
        };
        (output, Some(started_at), outcome, false)
    }
}

/// The files an editing call will change, as the tool names them and resolved as it will
/// resolve them (paths the workspace refuses are left out: the tool refuses them too).
fn edited_paths(env: &ExecEnv, tool: &dyn Tool, input: &Value) -> Vec<std::path::PathBuf> {
    tool.paths(input)
        .iter()
        .filter_map(|p| env.workspace.resolve(p).ok())
        .collect()
}

/// Asks the policy ([`crate::permission::decide`]), and the user if needed (not when a
/// pre_tool_use hook already said allow). Err carries the result for a refused call.
/// Read-only calls go through it too: a deny or ask rule, plan mode and `exit_plan_mode`
/// apply to them; otherwise they are allowed without a `permission` line.
#[allow(clippy::too_many_arguments)]
async fn ask_consent(
    env: &ExecEnv,
    tool: &dyn Tool,
    id: &str,
    name: &str,
    effect: Effect,
    input: &Value,
    token: &CancellationToken,
    hook_allowed: bool,
) -> Result<(), (ToolOutput, ToolOutcome)> {
    let paths = tool.paths(input);
    let command = tool.command(input);
    // Inside only if every path the call touches is: one path outside is enough to ask.
    let inside = paths.iter().all(|p| env.workspace.is_inside(p));
    let call = PermissionCall {
        tool: name,
        effect,
        command: command.as_deref(),
        paths: &paths,
        inside_workspace: inside,
        sandboxed: false,
    };
    let mut decided = env.policy.decide(&call, env.workspace.root());
    if hook_allowed {
        decided = env.policy.hook_allowed(decided);
    }
    let refused = |message: String| (ToolOutput::error(message), ToolOutcome::Error);
    let said = |allowed: bool, rule: Option<RuleRef>| AgentEvent::Permission {
        id: id.to_string(),
        name: name.to_string(),
        allowed,
        rule,
    };
    // A read-only call nobody restricted is not a permission decision (as before rules).
    let quiet = effect == Effect::ReadOnly && decided.rule.is_none();
    match decided.verdict {
        Verdict::Allow => {
            if !quiet {
                env.events.send(said(true, decided.rule));
            }
            Ok(())
        }
        Verdict::Deny(message) => {
            env.events.send(said(false, decided.rule));
            Err(refused(message))
        }
        Verdict::Ask => {
            match super::hook_calls::permission_request(&env.hooks, &env.events, name, input, token)
                .await
            {
                PermissionAnswer::Allow => {
                    env.events.send(said(true, decided.rule));
                    return Ok(());
                }
                PermissionAnswer::Deny(message) => {
                    env.events.send(said(false, decided.rule));
                    return Err(refused(message));
                }
                PermissionAnswer::Ask => {}
            }
            super::notification::notify(
                &env.hooks,
                &env.events,
                super::notification::QUESTION,
                format!("tooloop needs your permission to use {name}"),
            );
            // A subagent's call ids may repeat another agent's: the question is filed
            // under an id unique in the session, which the front end answers.
            let question = env.events.question_id(id);
            let rx = env.policy.register(&question);
            let suggestion = match (&command, &decided.guarded, name == EXIT_PLAN_MODE) {
                (Some(c), None, false) => {
                    crate::permission::suggest::rules_for(name, c, &env.policy.rules())
                }
                _ => None,
            };
            env.events.send(AgentEvent::PermissionRequest {
                id: id.to_string(),
                tool: name.to_string(),
                input: input.clone(),
                summary: tool.summary(input),
                preview: tool.preview_in(input, &env.workspace),
                why: AskWhy {
                    rule: decided.rule.clone(),
                    guarded: decided.guarded.clone(),
                    suggestion,
                },
            });
            let mode_before = env.policy.mode();
            let consent = env.policy.wait(&question, name, rx, token).await;
            for (text, problem) in env.policy.take_notices() {
                env.events.send(if problem {
                    AgentEvent::Error { message: text }
                } else {
                    AgentEvent::Notice { text }
                });
            }
            let mode = env.policy.mode();
            if mode != mode_before {
                env.events.send(AgentEvent::ApprovalChanged { mode });
            }
            match consent {
                Consent::Granted => {
                    env.events.send(said(true, decided.rule));
                    Ok(())
                }
                Consent::Refused(message) => {
                    env.events.send(said(false, decided.rule));
                    let message = if name == EXIT_PLAN_MODE {
                        plan_feedback(&message)
                    } else {
                        message
                    };
                    Err(refused(message))
                }
                Consent::Interrupted => {
                    Err((ToolOutput::error(INTERRUPTED), ToolOutcome::Cancelled))
                }
            }
        }
    }
}

/// "Keep planning": the user's feedback as the error result of `exit_plan_mode`.
fn plan_feedback(refusal: &str) -> String {
    let feedback = crate::message::markers::tool_results::declined_reason(refusal).unwrap_or("");
    if feedback.trim().is_empty() {
        "The user did not approve the plan and wants you to keep planning (still in plan mode: only read-only tools run). Ask what to change if it is unclear."
            .into()
    } else {
        format!(
            "The user did not approve the plan and wants you to keep planning (still in plan mode). Their feedback: {feedback}"
        )
    }
}

/// Cuts output beyond `limit` bytes (at a char boundary) and says how much was cut.
pub fn cut_output(mut output: ToolOutput, limit: usize) -> ToolOutput {
    let total = output.content.len();
    if total <= limit {
        return output;
    }
    let end = crate::text::floor_boundary(&output.content, limit);
    output.content.truncate(end);
    output.content.push_str(&format!(
        "\n[output cut: {} of {total} bytes not shown]",
        total - end
    ));
    output
}

pub fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::PermissionPolicy;
    use crate::protocol::approval::Decision;
    use crate::protocol::approval_mode::ApprovalMode;

    /// "Keep planning" with feedback reaches the model as the error result carrying it.
    #[tokio::test]
    async fn keep_planning_carries_the_feedback() {
        let p = PermissionPolicy::new(ApprovalMode::Plan, &[], true);
        let rx = p.register("t1");
        p.reply(
            "t1",
            Decision::Deny {
                reason: Some("先写测试 first".into()),
            },
        );
        let c = CancellationToken::new();
        let Consent::Refused(m) = p.wait("t1", EXIT_PLAN_MODE, rx, &c).await else {
            panic!("refused");
        };
        assert_eq!(
            plan_feedback(&m),
            "The user did not approve the plan and wants you to keep planning (still in plan \
             mode). Their feedback: 先写测试 first"
        );
        let rx = p.register("t2");
        p.reply("t2", Decision::Deny { reason: None });
        let Consent::Refused(m) = p.wait("t2", EXIT_PLAN_MODE, rx, &c).await else {
            panic!("refused");
        };
        assert!(plan_feedback(&m).starts_with("The user did not approve the plan"));
        // Approving switches the mode before the tool runs.
        let rx = p.register("t3");
        p.reply(
            "t3",
            Decision::ApprovePlan {
                mode: ApprovalMode::AutoEdit,
            },
        );
        assert_eq!(p.wait("t3", EXIT_PLAN_MODE, rx, &c).await, Consent::Granted);
        assert_eq!(p.mode(), ApprovalMode::AutoEdit);
    }
}
