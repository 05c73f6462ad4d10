//! bash: run a shell command in the workspace, in its own process group, with its output
//! streamed live and the whole group killed on timeout or cancel.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::Child;
use tokio::time::{Instant, sleep_until};

use super::args::{flag, one_line, optional_str, optional_u64, required_str};
use super::fact::{CommandStatus, Fact};
use super::input::{Check, Flag, Positive, Text, check};
use super::output::{HeadTail, Utf8Stream};
use super::{Effect, Tool, ToolContext, ToolOutput};
use crate::message::markers::tool_results;
use crate::process::{Stopped, TERM_GRACE, group_alive, kill_group_now, shell_command, stop_group};
use crate::protocol::approval::Preview;
use crate::sandbox::Prepared;

pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// The executor's limit is the command's own plus this, so the command reports its own
/// timeout (with its output) and the executor's is only a backstop.
const TIMEOUT_MARGIN: Duration = Duration::from_secs(10);
/// After bash exits, how long we still read output that background jobs write to the pipe.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);
/// How long we read what is left in the pipe after the group was killed.
const DRAIN_AFTER_KILL: Duration = Duration::from_millis(200);
/// Room kept under max_output_bytes for the closing lines (exit code, notes).
const TRAILER_ROOM: usize = 400;

pub struct Bash;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    command: Text,
    #[serde(default)]
    timeout_ms: Positive,
    #[serde(default)]
    run_in_background: Flag,
}

#[async_trait]
impl Tool for Bash {
    fn name(&self) -> &str {
        "bash"
    }
    fn description(&self) -> &str {
        "Run a command with `bash -c` in the workspace root. Non-interactive: stdin is closed, \
         so commands that prompt will fail. stdout and stderr come back interleaved as they \
         were written, followed by the exit code; a non-zero exit is an error. Default \
         timeout 120000 ms, at most 600000 (timeout_ms). On timeout the command and every \
         process it started are killed; `&` jobs inside it do not outlive the command. \
         With run_in_background: true the command starts as a background job and the call \
         returns at once with its id (b1, b2, …): read its new output with bash_output, stop \
         it with kill_shell; you are told when it ends. Use it for servers, watchers and long \
         builds. Usually sandboxed: then commands may write only in the workspace and $TMPDIR (use \
         it, not /tmp) and have no network unless the user allowed it; a blocked write or \
         connect is reported as \"blocked by the sandbox\"."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command line, run with bash -c"},
                "timeout_ms": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds (default 120000, max 600000); not for background jobs"},
                "run_in_background": {"type": "boolean", "description": "Start it as a background job and return at once with its id"}
            },
            "required": ["command"],
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    fn effect(&self) -> Effect {
        Effect::Exec
    }
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }
    fn cancels_siblings_on_error(&self) -> bool {
        true
    }
    fn runs_sandboxed(&self) -> bool {
        true
    }
    fn command(&self, input: &Value) -> Option<String> {
        super::args::optional_str(input, "command").map(str::to_string)
    }
    fn preview(&self, input: &Value) -> Option<Preview> {
        let note = if flag(input, "run_in_background") {
            Some("in the background (runs until it exits or is killed)".to_string())
        } else {
            optional_u64(input, "timeout_ms").map(|t| format!("timeout {t} ms"))
        };
        Some(Preview::Command {
            text: optional_str(input, "command").unwrap_or("").to_string(),
            note,
        })
    }
    fn timeout(&self, input: &Value) -> Option<Duration> {
        Some(Duration::from_millis(timeout_ms(input)) + TIMEOUT_MARGIN)
    }
    fn summary(&self, input: &Value) -> String {
        one_line(optional_str(input, "command").unwrap_or("?"), 80)
    }
    fn fact(&self, input: &Value, output: &str, is_error: bool) -> Option<Fact> {
        let command = optional_str(input, "command")?.to_string();
        let status = match tool_results::started_job_id(output) {
            // A background start has not ended: it started, as this job.
            Some(id) if !is_error => CommandStatus::Other(tool_results::started_as(id)),
            _ => match tool_results::exit_code_of(output) {
                Some(code) => CommandStatus::Exit(code),
                None if !is_error => CommandStatus::Exit(0),
                None => CommandStatus::Other(tool_results::ending_line(output).to_string()),
            },
        };
        Some(Fact::Command { command, status })
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let command = match required_str(&input, "command") {
            Ok(c) if c.trim().is_empty() => {
                return ToolOutput::error("Error: the command is empty");
            }
            Ok(c) => c,
            Err(e) => return e,
        };
        if flag(&input, "run_in_background") {
            return super::bash_background::start(command, &ctx);
        }
        let timeout = timeout_ms(&input);
        let Some(sandbox) = &ctx.sandbox else {
            return run_once(command, None, timeout, &ctx).await;
        };
        let prepared = match Prepared::new(&sandbox.policy) {
            Ok(p) => p,
            // Never fall back to running unsandboxed behind the user's back.
            Err(e) => {
                return ToolOutput::error(format!(
                    "Error: could not set up the sandbox ({}): {e}",
                    sandbox.policy.label()
                ));
            }
        };
        let mut output = run_once(command, Some(&prepared), timeout, &ctx).await;
        if !output.is_error || ctx.cancel.is_cancelled() {
            return output;
        }
        let Some(note) =
            crate::sandbox::explain_denial(&sandbox.policy, prepared.tmp_dir(), &output.content)
        else {
            return output;
        };
        drop(prepared);
        // Only the user may lift the sandbox, from the approval prompt; the model can't.
        if let Some(ask) = &sandbox.ask_outside
            && ask(note.clone()).await
        {
            let mut rerun = run_once(command, None, timeout, &ctx).await;
            rerun.content = format!(
                "[{note}; the user let it run again outside the sandbox]\n{}",
                rerun.content
            );
            return rerun;
        }
        output.content.push_str(&format!(
            "\n[{note}. {} Do not work around it; if the command is needed, tell the user.]",
            sandbox.policy.describe()
        ));
        output
    }
}

async fn run_once(
    command: &str,
    sandbox: Option<&Prepared>,
    timeout_ms: u64,
    ctx: &ToolContext,
) -> ToolOutput {
    match spawn(command, sandbox, ctx) {
        Ok(running) => running.wait(timeout_ms, ctx).await,
        Err(e) => ToolOutput::error(format!("Error: could not start bash: {e}")),
    }
}

/// The requested timeout, clamped to 1 ms ..= 10 min.
fn timeout_ms(input: &Value) -> u64 {
    optional_u64(input, "timeout_ms")
        .unwrap_or(DEFAULT_TIMEOUT_MS)
        .clamp(1, MAX_TIMEOUT_MS)
}

/// Kills the group if the run is dropped before it cleaned up (the executor gave up on it).
struct GroupGuard {
    pgid: i32,
    armed: bool,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            kill_group_now(self.pgid);
        }
    }
}

struct Running {
    child: Child,
    output: pipe::Receiver,
    guard: GroupGuard,
}

fn spawn(command: &str, sandbox: Option<&Prepared>, ctx: &ToolContext) -> std::io::Result<Running> {
    let (mut cmd, output) = shell_command(command, ctx.workspace.root(), sandbox)?;
    let child = cmd.spawn()?;
    // Our copies of the write end must close, or the pipe never reports EOF.
    drop(cmd);
    let pgid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .ok_or_else(|| std::io::Error::other("bash exited before its pid was known"))?;
    Ok(Running {
        child,
        output,
        guard: GroupGuard { pgid, armed: true },
    })
}

enum End {
    Exited,
    TimedOut,
    Cancelled,
}

impl Running {
    async fn wait(mut self, timeout_ms: u64, ctx: &ToolContext) -> ToolOutput {
        let pgid = self.guard.pgid;
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let mut kept = HeadTail::new(ctx.max_output_bytes.saturating_sub(TRAILER_ROOM).max(200));
        let mut utf8 = Utf8Stream::default();
        let mut buf = vec![0u8; 16 * 1024];
        let mut eof = false;
        let mut status: Option<std::io::Result<ExitStatus>> = None;
        let mut drain_until: Option<Instant> = None;
        let end = loop {
            if eof && status.is_some() {
                break End::Exited;
            }
            tokio::select! {
                n = self.output.read(&mut buf), if !eof => match n {
                    Ok(0) | Err(_) => eof = true,
                    Ok(n) => emit(&utf8.push(&buf[..n]), &mut kept, ctx),
                },
                st = self.child.wait(), if status.is_none() => {
                    status = Some(st);
                    drain_until = Some(Instant::now() + DRAIN_AFTER_EXIT);
                }
                // bash is done but a background job still holds the pipe open.
                _ = sleep_until(drain_until.unwrap_or(deadline)), if drain_until.is_some() => {
                    break End::Exited;
                }
                _ = sleep_until(deadline) => break End::TimedOut,
                _ = ctx.cancel.cancelled() => break End::Cancelled,
            }
        };
        // Whatever way it ended, nothing of the group may outlive the call.
        let leftovers = matches!(end, End::Exited) && group_alive(pgid);
        let stopped = stop_group(pgid, TERM_GRACE).await;
        if stopped != Stopped::Lingering {
            self.guard.armed = false;
        }
        if !eof {
            let drain_deadline = Instant::now() + DRAIN_AFTER_KILL;
            while let Ok(Ok(n)) =
                tokio::time::timeout_at(drain_deadline, self.output.read(&mut buf)).await
            {
                if n == 0 {
                    break;
                }
                emit(&utf8.push(&buf[..n]), &mut kept, ctx);
            }
        }
        emit(&utf8.finish(), &mut kept, ctx);
        if status.is_none() {
            status = tokio::time::timeout(Duration::from_secs(1), self.child.wait())
                .await
                .ok();
        }
        report(end, kept, status, timeout_ms, leftovers, stopped)
    }
}

fn emit(chunk: &str, kept: &mut HeadTail, ctx: &ToolContext) {
    if !chunk.is_empty() {
        (ctx.progress)(chunk.to_string());
        kept.push(chunk);
    }
}

fn report(
    end: End,
    kept: HeadTail,
    status: Option<std::io::Result<ExitStatus>>,
    timeout_ms: u64,
    leftovers: bool,
    stopped: Stopped,
) -> ToolOutput {
    let mut text = if kept.is_empty() {
        "(no output)".to_string()
    } else {
        kept.finish()
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let mut is_error = true;
    match end {
        End::Exited => match status {
            Some(Ok(st)) => {
                is_error = !st.success();
                text.push_str(&describe_exit(st));
            }
            Some(Err(e)) => text.push_str(&format!("Error: waiting for bash failed: {e}")),
            None => text.push_str("Error: bash's exit status is unknown"),
        },
        End::TimedOut => text.push_str(&format!(
            "Error: timed out after {timeout_ms} ms; the command and every process it started \
             were stopped"
        )),
        End::Cancelled => text.push_str(tool_results::COMMAND_STOPPED),
    }
    if leftovers {
        text.push_str(
            "\n[background processes the command left running were stopped when it exited]",
        );
    }
    if stopped == Stopped::Lingering {
        text.push_str("\n[warning: some processes of the command survived SIGKILL]");
    }
    ToolOutput {
        content: text,
        is_error,
        images: Vec::new(),
        references: Vec::new(),
    }
}

fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => tool_results::exit_code(code),
        (None, Some(sig)) => {
            let name = nix::sys::signal::Signal::try_from(sig).ok();
            tool_results::killed_by_signal(name.as_ref().map(|s| s.as_str()), sig)
        }
        (None, None) => "exit status unknown".to_string(),
    }
}
