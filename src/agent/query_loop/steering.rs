//! The loop's part in steering (issue 27): which tools a request offers in the current
//! approval mode, and the end of a headless plan-mode run once the plan is handed over.

use super::super::Agent;
use crate::protocol::approval_mode::ApprovalMode;
use crate::provider::ToolSpec;
use crate::tools::exit_plan_mode::EXIT_PLAN_MODE;

/// The tools of the next request: `exit_plan_mode` only in plan mode; deferred MCP tools
/// only once found (appended at the end, so the list never reorders).
pub(super) fn offered_tools(agent: &Agent) -> Vec<ToolSpec> {
    let plan = agent.exec.policy.mode() == ApprovalMode::Plan;
    let registry = &agent.exec.registry;
    let mut specs =
        crate::mcp::defer::offered(registry.spec_list(), registry.deferral().map(|d| &**d));
    specs.retain(|s| plan || s.name != EXIT_PLAN_MODE);
    specs
}

/// The plan `exit_plan_mode` handed over in the reply just closed, when the run must end
/// with it: headless, still in plan mode (nobody approved it). In the TUI the user answered
/// the plan before the tool ran, so the slot is only cleared.
pub(super) fn plan_ready(agent: &Agent) -> Option<String> {
    let plan = agent.plan.lock().ok().and_then(|mut p| p.take())?;
    let policy = &agent.exec.policy;
    (!policy.is_interactive() && policy.mode() == ApprovalMode::Plan).then_some(plan)
}
