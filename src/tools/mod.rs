//! Tools the model may call: one trait, one registry, one file per tool.

pub mod args;
mod atomic;
pub mod bash;
pub mod edit_file;
pub mod get_current_time;
pub mod glob;
pub mod grep;
mod html;
pub mod list_dir;
pub mod output;
pub mod process;
pub mod read_file;
pub mod schema;
pub mod text;
mod walk;
pub mod web_fetch;
pub mod workspace;
pub mod write_file;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::message::ToolSpec;
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
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: true,
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
        }
    }
}

pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 30_000;
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

#[async_trait]
pub trait Tool: Send + Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// JSON schema of the input; input is validated against it before `run`.
    fn input_schema(&self) -> Value;
    fn effect(&self) -> Effect;
    /// Whether this call may run beside other safe calls. Read-only tools are safe.
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        self.effect() == Effect::ReadOnly
    }
    /// The executor's hard limit for this call (a tool may enforce a tighter one itself).
    /// None: the executor's default (`[tools] timeout_secs`, else [`DEFAULT_TOOL_TIMEOUT`]).
    fn timeout(&self, _input: &Value) -> Option<Duration> {
        None
    }
    /// A one-line summary of the input for the UI ("src/main.rs", "ls -la").
    fn summary(&self, input: &Value) -> String {
        default_summary(input)
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput;
}

/// The first string field of the input, cut to a line.
pub fn default_summary(input: &Value) -> String {
    let s = match input {
        Value::Object(map) => map
            .values()
            .find_map(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| input.to_string()),
        other => other.to_string(),
    };
    let line = s.lines().next().unwrap_or("");
    let mut out: String = line.chars().take(60).collect();
    if line.chars().count() > 60 || s.lines().count() > 1 {
        out.push('…');
    }
    out
}

/// A registered tool with its compiled schema.
pub struct Registered {
    pub tool: Arc<dyn Tool>,
    pub validator: schema::Validator,
}

/// The set of tools offered to the model.
#[derive(Default)]
pub struct ToolRegistry {
    tools: BTreeMap<&'static str, Registered>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The read-only tools (the engine's set).
    pub fn read_only() -> Self {
        let mut r = Self::new();
        r.register(Arc::new(read_file::ReadFile));
        r.register(Arc::new(list_dir::ListDir));
        r.register(Arc::new(glob::Glob));
        r.register(Arc::new(grep::Grep));
        r.register(Arc::new(web_fetch::WebFetch));
        r.register(Arc::new(get_current_time::GetCurrentTime));
        r
    }

    /// Every built-in tool.
    pub fn builtin() -> Self {
        let mut r = Self::read_only();
        r.register(Arc::new(bash::Bash));
        r.register(Arc::new(write_file::WriteFile));
        r.register(Arc::new(edit_file::EditFile));
        r
    }

    /// Adds a tool. Panics only on a built-in schema that does not compile (a programming
    /// error caught by the registry tests), never on model input.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        let validator = schema::Validator::new(&tool.input_schema())
            .unwrap_or_else(|e| panic!("tool {} has an invalid schema: {e}", tool.name()));
        self.tools
            .insert(tool.name(), Registered { tool, validator });
    }

    pub fn get(&self, name: &str) -> Option<&Registered> {
        self.tools.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.tools.keys().copied()
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .values()
            .map(|r| ToolSpec {
                name: r.tool.name().to_string(),
                description: r.tool.description().to_string(),
                input_schema: r.tool.input_schema(),
            })
            .collect()
    }
}
