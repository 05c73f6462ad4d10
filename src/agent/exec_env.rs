//! What the executor runs tools with (ExecEnv: registry, policy, workspace, limits, sandbox,
//! hooks, checkpoints) and when it starts them (ToolExec). Its own file so the executor and
//! the parts of one call (tool_call, checkpoints, sandbox_call) all read it from below.

use std::sync::Arc;
use std::time::Duration;

use crate::permission::PermissionPolicy;
use crate::protocol::events::EventSink;
use crate::tools::{ToolRegistry, Workspace};

/// When queued calls start (DESIGN.md §5); `--tool-exec` and `tool_exec` in the config file.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ToolExec {
    /// Start each tool the moment its tool_use block is complete.
    #[default]
    Streaming,
    /// Start after the stream ends; safe tools together.
    Parallel,
    /// One by one after the stream ends.
    Serial,
}

/// Everything the executor needs besides the calls themselves.
#[derive(Clone)]
pub struct ExecEnv {
    pub registry: Arc<ToolRegistry>,
    pub policy: Arc<PermissionPolicy>,
    pub workspace: Arc<Workspace>,
    pub http: reqwest::Client,
    pub events: EventSink,
    pub strategy: ToolExec,
    pub sibling_abort: bool,
    pub max_output_bytes: usize,
    /// The limit for a tool that sets none itself (`[tools] timeout_secs`).
    pub default_timeout: Duration,
    /// Upper bound on any tool's own timeout.
    pub max_timeout: Duration,
    /// Where edits are checkpointed for rewinds (None: sessions are off).
    pub checkpoints: Option<Arc<crate::checkpoint::Checkpoints>>,
    /// The shell's sandbox; None runs bash unsandboxed.
    pub sandbox: Option<Arc<crate::sandbox::SandboxPolicy>>,
    /// The user's hooks (pre_tool_use and post_tool_use run around each call).
    pub hooks: Arc<super::hook_calls::HookEnv>,
    /// The session's background jobs: shared by every turn, ended with the session.
    pub jobs: Arc<crate::background::Jobs>,
    /// Where the file tools read and write (the disk; an editor's buffers over ACP).
    pub files: Arc<dyn crate::tools::file_access::FileAccess>,
}

/// Background jobs' changes as `AgentEvent::Background` on `events`.
pub fn job_events(events: &EventSink) -> crate::background::OnChange {
    let events = events.clone();
    Arc::new(move |e| events.send(crate::protocol::AgentEvent::Background(e)))
}

/// No tool runs longer, whatever it asks for: above bash's own 10-minute maximum, so bash
/// reports its own timeout.
pub const MAX_TOOL_TIMEOUT: Duration = Duration::from_secs(660);

impl ExecEnv {
    /// The executor's setup: streaming, sibling abort on, the default output and time limits.
    /// The policy has no default, so no caller can get a permissive one by forgetting a line.
    pub fn new(
        registry: ToolRegistry,
        policy: PermissionPolicy,
        workspace: Workspace,
        events: EventSink,
    ) -> Self {
        ExecEnv {
            registry: Arc::new(registry),
            policy: Arc::new(policy),
            workspace: Arc::new(workspace),
            http: crate::http::http_client(),
            strategy: ToolExec::Streaming,
            sibling_abort: true,
            max_output_bytes: crate::tools::DEFAULT_MAX_OUTPUT_BYTES,
            default_timeout: crate::tools::DEFAULT_TOOL_TIMEOUT,
            max_timeout: MAX_TOOL_TIMEOUT,
            checkpoints: None,
            sandbox: None,
            hooks: Arc::default(),
            jobs: Arc::new(crate::background::Jobs::in_state_dir(
                crate::background::DEFAULT_MAX_JOBS,
                job_events(&events),
            )),
            files: crate::tools::file_access::local(),
            events,
        }
    }

    /// Tests and benchmarks: [`ExecEnv::new`] with the safe default, an interactive `ask`
    /// policy. A test that wants tools to run unasked says so with [`ExecEnv::with_approval`].
    #[cfg(any(test, feature = "test-support"))]
    pub fn with_defaults(registry: ToolRegistry, workspace: Workspace, events: EventSink) -> Self {
        let policy =
            PermissionPolicy::new(crate::protocol::approval_mode::ApprovalMode::Ask, &[], true);
        ExecEnv::new(registry, policy, workspace, events)
    }

    /// Tests and benchmarks: the same setup under another approval mode (interactive).
    #[cfg(any(test, feature = "test-support"))]
    pub fn with_approval(mut self, mode: crate::protocol::approval_mode::ApprovalMode) -> Self {
        self.policy = Arc::new(PermissionPolicy::new(mode, &[], true));
        self
    }
}
