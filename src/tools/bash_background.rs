//! `bash` with `run_in_background: true`: the command starts as a job of the session's
//! registry (crate::background) and the call returns at once with the job's id.

use super::{ToolContext, ToolOutput};
use crate::sandbox::Prepared;

/// Starts `command` as a background job, in the same sandbox a foreground call gets.
pub fn start(command: &str, ctx: &ToolContext) -> ToolOutput {
    let Some(jobs) = &ctx.jobs else {
        return ToolOutput::error("Error: background jobs are not available here");
    };
    let prepared = match &ctx.sandbox {
        None => None,
        Some(sandbox) => match Prepared::new(&sandbox.policy) {
            Ok(p) => Some(p),
            // Never fall back to running unsandboxed behind the user's back.
            Err(e) => {
                return ToolOutput::error(format!(
                    "Error: could not set up the sandbox ({}): {e}",
                    sandbox.policy.label()
                ));
            }
        },
    };
    match jobs.start(command, ctx.workspace.root(), prepared) {
        Ok(job) => ToolOutput::ok(crate::message::markers::tool_results::started_job(
            &job.shell_id,
            job.pid.unwrap_or_default(),
        )),
        Err(e) => ToolOutput::error(format!("Error: {e}")),
    }
}
