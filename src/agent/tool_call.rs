//! One tool call as the executor runs it: consent first, then the tool under its timeout and
//! cancellation token, then the output cut to the limit.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::exec_env::{ExecEnv, INTERRUPTED};
use super::hook_calls::{PreTool, post_tool_use, pre_tool_use};
use super::protocol::{AgentEvent, ToolOutcome};
use crate::hooks::HookEvent;
use crate::permission::{Consent, Verdict};
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
        let hooked = pre_tool_use(&env.hooks, &env.events, &name, &input, &token).await;
        let pre_allowed = match hooked {
            PreTool::Refused(output) => return (output, None, ToolOutcome::Error, false),
            PreTool::Allowed => true,
            PreTool::Ask => false,
        };
        if effect != Effect::ReadOnly
            && let Err((output, outcome)) = ask_consent(
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
        let post_input = env
            .hooks
            .wants(HookEvent::PostToolUse, Some(&name))
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

/// Asks the policy, and the user if needed (not when a pre_tool_use hook already said
/// allow). Err carries the result for a refused call.
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
    // Inside only if every path the call touches is: one path outside is enough to ask.
    let inside = tool.paths(input).iter().all(|p| env.workspace.is_inside(p));
    let refused = |message: String| (ToolOutput::error(message), ToolOutcome::Error);
    let decided = |allowed: bool| AgentEvent::Permission {
        id: id.to_string(),
        name: name.to_string(),
        allowed,
    };
    let verdict = if hook_allowed {
        env.policy.verdict_hook_allowed(name, effect, inside)
    } else {
        env.policy.verdict(name, effect, inside)
    };
    match verdict {
        Verdict::Allow => {
            env.events.send(decided(true));
            Ok(())
        }
        Verdict::Deny(message) => {
            env.events.send(decided(false));
            Err(refused(message))
        }
        Verdict::Ask => {
            // A subagent's call ids may repeat another agent's: the question is filed
            // under an id unique in the session, which the front end answers.
            let question = env.events.question_id(id);
            let rx = env.policy.register(&question);
            env.events.send(AgentEvent::PermissionRequest {
                id: id.to_string(),
                tool: name.to_string(),
                input: input.clone(),
                summary: tool.summary(input),
                preview: tool.preview(input),
            });
            match env.policy.wait(&question, name, rx, token).await {
                Consent::Granted => {
                    env.events.send(decided(true));
                    Ok(())
                }
                Consent::Refused(message) => {
                    env.events.send(decided(false));
                    Err(refused(message))
                }
                Consent::Interrupted => {
                    Err((ToolOutput::error(INTERRUPTED), ToolOutcome::Cancelled))
                }
            }
        }
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
