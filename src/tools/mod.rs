//! Tools the model may call: one trait, one registry, one file per tool.

pub mod args;
mod atomic;
pub mod bash;
pub mod bash_background;
pub mod bash_output;
pub mod deferral;
pub mod edit_file;
pub mod exit_plan_mode;
pub mod fact;
pub mod file_access;
mod file_preview;
pub mod get_current_time;
pub mod glob;
pub mod grep;
pub mod html;
pub mod input;
pub mod kill_shell;
pub mod list_dir;
pub mod output;
pub mod read_file;
mod registry;
mod replacement;
pub mod schema;
pub mod text;
pub mod todo_write;
mod walk;
pub mod web_fetch;
pub mod workspace;
pub mod write_file;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::message::{ContentBlock, Message, ToolSpec};
use crate::protocol::approval::Preview;
pub use workspace::Workspace;

/// What kind of change a tool makes, for the approval policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Reads only; never asks.
    ReadOnly,
    /// Writes files (auto-edit mode allows it inside the workspace).
    Edit,
    /// Runs arbitrary commands.
    Exec,
}

/// What a tool produced. An error is still a result: the model reads it and acts on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    /// Images for the model (read_file on a picture), after the text.
    pub images: Vec<crate::message::ImageSource>,
    /// Deferred tools the result loads (`tool_search` on Anthropic): see
    /// `ContentBlock::ToolResult::references`.
    pub references: Vec<String>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
            images: Vec::new(),
            references: Vec::new(),
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: true,
            images: Vec::new(),
            references: Vec::new(),
        }
    }

    /// An image, described by `content`.
    pub fn image(content: impl Into<String>, image: crate::message::ImageSource) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
            images: vec![image],
            references: Vec::new(),
        }
    }
}

/// Sends live output of a running tool (becomes `AgentEvent::ToolProgress`).
pub type ProgressSink = Arc<dyn Fn(String) + Send + Sync>;

/// What a running tool may use.
#[derive(Clone)]
pub struct ToolContext {
    pub workspace: Arc<Workspace>,
    /// Cancelled on abort, on a sibling bash failure, or on timeout.
    pub cancel: CancellationToken,
    pub progress: ProgressSink,
    /// Most bytes of output the tool should produce; the executor cuts anything beyond.
    pub max_output_bytes: usize,
    /// Shared HTTP client (web_fetch).
    pub http: reqwest::Client,
    /// The sandbox bash runs under; None runs it unsandboxed.
    pub sandbox: Option<crate::sandbox::CallSandbox>,
    /// The tool_use id of this call (a subagent names the call that started it).
    pub call_id: String,
    /// The session's background jobs (bash `run_in_background`, bash_output, kill_shell);
    /// None where there is no session to own them.
    pub jobs: Option<Arc<crate::background::Jobs>>,
    /// Where read_file, edit_file and write_file reach file content (the disk, or an
    /// editor's buffers over ACP).
    pub files: Arc<dyn file_access::FileAccess>,
}

impl ToolContext {
    /// A context for tests and benchmarks: no progress sink, a fresh token.
    pub fn for_workspace(workspace: Arc<Workspace>) -> Self {
        ToolContext {
            workspace,
            cancel: CancellationToken::new(),
            progress: Arc::new(|_| {}),
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            http: reqwest::Client::new(),
            sandbox: None,
            call_id: String::new(),
            jobs: None,
            files: file_access::local(),
        }
    }
}

pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 30_000;
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// Everything the rest of tooloop knows about a tool, it learns from this trait: the
/// executor, the permission check and the front ends never match on tool or field names, so a
/// tool known only at run time (an MCP server's) works like a built-in one.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls it by; the registry's key. Runtime tools own theirs
    /// (`mcp__server__tool`).
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// JSON schema of the input, as the model is shown it. A tool without an
    /// [`Tool::input_check`] has its input validated against it before `run`.
    fn input_schema(&self) -> Value;
    /// The tool's own input type, as a check ([`input::check`]): the built-in tools have one,
    /// and their input is checked by deserializing into it, which costs microseconds and no
    /// compiled schema. None (a tool known only at run time, an MCP server's): the input is
    /// validated against `input_schema` by a compiled validator.
    fn input_check(&self) -> Option<input::Check> {
        None
    }
    fn effect(&self) -> Effect;
    /// Whether this call may run beside other safe calls. Read-only tools are safe.
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        self.effect() == Effect::ReadOnly
    }
    /// Whether a failure of this tool stops its siblings in the same reply (DESIGN.md §5:
    /// a failed shell command usually means the plan around it is wrong).
    fn cancels_siblings_on_error(&self) -> bool {
        false
    }
    /// Every filesystem path this call would touch, as the model wrote them. The call counts
    /// as inside the workspace only if all of them are.
    fn paths(&self, _input: &Value) -> Vec<String> {
        Vec::new()
    }
    /// The command line this call runs, for a tool that runs one (bash): permission rules
    /// `TOOL(PREFIX:*)` match it and the recursive-delete guard reads it.
    fn command(&self, _input: &Value) -> Option<String> {
        None
    }
    /// Whether the tool runs its work inside the shell sandbox (crate::sandbox) when one is
    /// on; approval follows the sandbox for such tools.
    fn runs_sandboxed(&self) -> bool {
        false
    }
    /// What the call would change, for the approval prompt (None: the front end shows the
    /// input as JSON).
    fn preview(&self, _input: &Value) -> Option<Preview> {
        None
    }
    /// The preview with the workspace at hand: a tool that changes a file shows the change
    /// against what is on disk (the approval question). Default: `preview`.
    fn preview_in(&self, input: &Value, _workspace: &Workspace) -> Option<Preview> {
        self.preview(input)
    }
    /// The executor's hard limit for this call (a tool may enforce a tighter one itself).
    /// None: the executor's default (`[tools] timeout_secs`, else [`DEFAULT_TOOL_TIMEOUT`]).
    fn timeout(&self, _input: &Value) -> Option<Duration> {
        None
    }
    /// The tool bounds its own run (a subagent has its turn limit): the executor's
    /// timeouts do not apply to it; cancellation still does.
    fn bounds_itself(&self) -> bool {
        false
    }
    /// A one-line summary of the input for the UI ("src/main.rs", "ls -la").
    fn summary(&self, input: &Value) -> String {
        default_summary(input)
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput;
    /// What a finished call of it tells about the session, from its input and its result as
    /// history holds them (the compaction's state block restates it; [`fact`]).
    fn fact(&self, _input: &Value, _output: &str, _is_error: bool) -> Option<fact::Fact> {
        None
    }
}

pub use registry::{InputCheck, Registered, RegistryError, ToolRegistry, default_summary};

#[cfg(test)]
mod input_tests;
#[cfg(test)]
mod tests;
