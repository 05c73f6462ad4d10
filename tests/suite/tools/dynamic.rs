//! A tool known only at run time, shaped like an MCP server's (a runtime name, description,
//! JSON schema and readOnlyHint), answers every question the rest of tooloop asks a tool:
//! registration with schema validation, summary, paths (the workspace check), safety, and a
//! full run through the real executor with the events a front end draws from.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tooloop::agent::exec_env::ExecEnv;
use tooloop::agent::executor::StreamingToolExecutor;
use tooloop::permission::PermissionPolicy;
use tooloop::protocol::approval_mode::ApprovalMode;
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{AgentEvent, ToolOutcome};
use tooloop::tools::{
    Effect, RegistryError, Tool, ToolContext, ToolOutput, ToolRegistry, Workspace,
};

/// What an MCP client learns from `tools/list`.
struct McpTool {
    name: String,
    description: String,
    schema: Value,
    read_only_hint: bool,
}

impl McpTool {
    fn new(server: &str, tool: &str, schema: Value, read_only_hint: bool) -> Self {
        McpTool {
            name: format!("mcp__{server}__{tool}"),
            description: format!("{tool} from the {server} server"),
            schema,
            read_only_hint,
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn effect(&self) -> Effect {
        if self.read_only_hint {
            Effect::ReadOnly
        } else {
            Effect::Edit
        }
    }
    /// Every string property the schema calls a path (`"format": "path"`).
    fn paths(&self, input: &Value) -> Vec<String> {
        let Some(props) = self.schema.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        props
            .iter()
            .filter(|(_, p)| p.get("format").and_then(Value::as_str) == Some("path"))
            .filter_map(|(k, _)| input.get(k).and_then(Value::as_str).map(str::to_string))
            .collect()
    }
    async fn run(&self, input: Value, _ctx: ToolContext) -> ToolOutput {
        ToolOutput::ok(format!("{} ran with {input}", self.name))
    }
}

fn copy_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "from": {"type": "string", "format": "path"},
            "to": {"type": "string", "format": "path"}
        },
        "required": ["from", "to"],
        "additionalProperties": false
    })
}

fn registry_with(tool: McpTool) -> ToolRegistry {
    let mut r = ToolRegistry::builtin();
    r.try_register(Arc::new(tool)).expect("registers");
    r
}

#[test]
fn a_runtime_tool_answers_every_trait_question() {
    let search = McpTool::new(
        "docs",
        "search",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
        true,
    );
    let r = registry_with(search);
    let name = "mcp__docs__search";
    assert!(r.names().any(|n| n == name));
    let reg = r.get(name).expect("registered under its runtime name");
    assert!(reg.validate(&json!({"query": "tokio"})).is_ok());
    let err = reg.validate(&json!({"query": 3})).expect_err("wrong type");
    assert!(err.to_string().contains("query"), "{err}");
    assert_eq!(
        r.summary(name, &json!({"query": "tokio select"})),
        "tokio select"
    );
    assert!(r.preview(name, &json!({"query": "x"})).is_none());
    assert!(
        reg.tool.is_concurrency_safe(&json!({})),
        "readOnlyHint makes it safe"
    );
    assert!(!reg.tool.cancels_siblings_on_error());
    assert!(reg.tool.paths(&json!({"query": "x"})).is_empty());
    assert!(
        r.specs()
            .iter()
            .any(|s| s.name == name && s.description == "search from the docs server")
    );

    let copy = McpTool::new("fs", "copy", copy_schema(), false);
    assert_eq!(
        copy.paths(&json!({"from": "a.txt", "to": "../b.txt"})),
        vec!["a.txt".to_string(), "../b.txt".to_string()]
    );
    assert!(!copy.is_concurrency_safe(&json!({})));
}

#[test]
fn a_bad_runtime_schema_or_name_is_an_error_not_a_panic() {
    let mut r = ToolRegistry::builtin();
    let bad = McpTool::new("x", "bad", json!({"type": 12}), true);
    assert!(matches!(
        r.try_register(Arc::new(bad)),
        Err(RegistryError::InvalidSchema { .. })
    ));
    let mut twin = McpTool::new("x", "y", json!({"type": "object"}), true);
    twin.name = "bash".into();
    assert_eq!(
        r.try_register(Arc::new(twin)),
        Err(RegistryError::Duplicate("bash".into()))
    );
}

/// Runs one call through the real executor and returns its events.
async fn run_one(
    registry: ToolRegistry,
    mode: ApprovalMode,
    name: &str,
    input: Value,
) -> Vec<AgentEvent> {
    let dir = tempfile::tempdir().expect("tempdir");
    let (sink, mut rx) = EventSink::channel();
    let ws = Workspace::new(dir.path(), false).expect("workspace");
    let mut env = ExecEnv::with_defaults(registry, ws, sink);
    // Headless: a question nobody can answer is a denial, so the verdict shows directly.
    env.policy = Arc::new(PermissionPolicy::new(mode, &[], false));
    let exec = StreamingToolExecutor::new(env, CancellationToken::new());
    let mut events = vec![exec.tool_use_event("c1", name, &input)];
    exec.add("c1", name, &input);
    let runs = exec.finish().await;
    assert_eq!(runs.len(), 1);
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    events
}

fn outcome(events: &[AgentEvent]) -> (ToolOutcome, String) {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolEnd {
                outcome, output, ..
            } => Some((*outcome, output.clone())),
            _ => None,
        })
        .expect("a tool_end")
}

#[tokio::test]
async fn the_executor_runs_it_and_the_workspace_check_needs_every_path_inside() {
    let copy = || McpTool::new("fs", "copy", copy_schema(), false);
    let name = "mcp__fs__copy";

    // auto-edit allows edits inside the workspace: both paths inside → it runs.
    let inside = json!({"from": "a.txt", "to": "b.txt"});
    let events = run_one(registry_with(copy()), ApprovalMode::AutoEdit, name, inside).await;
    match &events[0] {
        AgentEvent::ToolUse {
            summary,
            safe,
            preview,
            ..
        } => {
            assert_eq!(summary, "a.txt");
            assert!(!safe);
            assert!(preview.is_none());
        }
        other => panic!("expected tool_use first, got {other:?}"),
    }
    let (o, out) = outcome(&events);
    assert_eq!(o, ToolOutcome::Ok, "{out}");
    assert!(out.starts_with("mcp__fs__copy ran with"), "{out}");
    // Headless stream-json keeps its fields and adds summary and outcome.
    let lines: Vec<serde_json::Value> = events
        .iter()
        .filter_map(tooloop::headless::stream_json)
        .collect();
    let tool_use = lines
        .iter()
        .find(|l| l["type"] == "tool_use")
        .expect("tool_use");
    assert_eq!(
        (&tool_use["name"], &tool_use["safe"], &tool_use["summary"]),
        (&json!(name), &json!(false), &json!("a.txt"))
    );
    let end = lines
        .iter()
        .find(|l| l["type"] == "tool_end")
        .expect("tool_end");
    assert_eq!(
        (&end["is_error"], &end["outcome"]),
        (&json!(false), &json!("ok"))
    );

    // One path outside (under a field that is not called `path`) → it must ask, and
    // headless cannot: denied.
    let outside = json!({"from": "a.txt", "to": "../../etc/b.txt"});
    let events = run_one(registry_with(copy()), ApprovalMode::AutoEdit, name, outside).await;
    let (o, out) = outcome(&events);
    assert_eq!(o, ToolOutcome::Error);
    assert!(out.contains("needs the user's approval"), "{out}");

    // Input that fails its runtime schema never runs.
    let events = run_one(
        registry_with(copy()),
        ApprovalMode::Yolo,
        name,
        json!({"from": 1}),
    )
    .await;
    let (o, out) = outcome(&events);
    assert_eq!(o, ToolOutcome::Error);
    assert!(out.contains("invalid input for mcp__fs__copy"), "{out}");
}
