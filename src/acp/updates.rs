//! The one event vocabulary ([`AgentEvent`]) as ACP `session/update`s: text and thinking
//! as chunks, each tool call as `tool_call` then `tool_call_update`s, the todo list as a
//! `plan`, the approval mode as `current_mode_update`, the context meter as `usage_update`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_client_protocol_schema::v1 as acp;
use serde_json::{Value, json};

use crate::protocol::{AgentEvent, Terminal, ToolOutcome, TurnSummary};
use crate::todo::{TodoItem, TodoStatus};

/// What the mapping remembers between events of one session.
pub struct Mapper {
    workspace: PathBuf,
    /// Open tool calls by their ACP id: the tool's name and, for a file it changes, the
    /// path and the text before (for the `diff` content).
    calls: HashMap<String, Call>,
    /// The model's last `stop_reason` this turn ("refusal" makes the turn a refusal).
    pub last_stop: Option<String>,
    /// The editor's files: a write through them has its own before and after (the disk
    /// may hold neither).
    files: Option<std::sync::Arc<super::files::ClientFiles>>,
}

struct Call {
    name: String,
    path: Option<PathBuf>,
    old_text: Option<String>,
}

impl Mapper {
    pub fn new(workspace: &Path) -> Self {
        Mapper {
            workspace: workspace.to_path_buf(),
            calls: HashMap::new(),
            last_stop: None,
            files: None,
        }
    }

    pub fn with_files(mut self, files: Option<std::sync::Arc<super::files::ClientFiles>>) -> Self {
        self.files = files;
        self
    }

    /// The updates `event` becomes (none for events the editor has no place for).
    pub fn map(&mut self, event: &AgentEvent) -> Vec<acp::SessionUpdate> {
        use acp::SessionUpdate as U;
        match event {
            AgentEvent::PromptStart { .. } => {
                self.last_stop = None;
                vec![]
            }
            AgentEvent::TextDelta { text } => vec![U::AgentMessageChunk(chunk(text))],
            AgentEvent::ThinkingDelta { text } => vec![U::AgentThoughtChunk(chunk(text))],
            AgentEvent::StreamEnd { stop_reason, .. } => {
                self.last_stop = stop_reason.clone();
                vec![]
            }
            AgentEvent::ToolUse {
                id,
                name,
                input,
                summary,
                ..
            } => vec![U::ToolCall(self.tool_call(id, name, input, summary, None))],
            AgentEvent::ToolStart { id, .. } => vec![self.started(id, None)],
            AgentEvent::ToolEnd {
                id,
                outcome,
                output,
                ..
            } => vec![self.ended(id, *outcome, output, None)],
            AgentEvent::Todos { todos } => vec![U::Plan(plan(todos))],
            AgentEvent::ApprovalChanged { mode } => vec![U::CurrentModeUpdate(
                acp::CurrentModeUpdate::new(mode.as_str()),
            )],
            AgentEvent::Context(status) => {
                let mut usage = acp::UsageUpdate::new(status.context_tokens, status.window);
                if let Some(cost) = status.cost_usd {
                    usage = usage.cost(acp::Cost::new(cost, "USD"));
                }
                vec![U::UsageUpdate(usage)]
            }
            AgentEvent::Subagent {
                agent_id,
                parent_tool_use_id,
                event,
            } => self.child(agent_id, parent_tool_use_id, event),
            // The `task` call's title follows its subagent.
            AgentEvent::AgentStart(info) => vec![U::ToolCallUpdate(acp::ToolCallUpdate::new(
                info.parent_tool_use_id.clone(),
                acp::ToolCallUpdateFields::new().title(format!(
                    "task: {} ({} {}, running)",
                    info.description, info.agent_id, info.agent
                )),
            ))],
            AgentEvent::AgentEnd(report) => vec![U::ToolCallUpdate(acp::ToolCallUpdate::new(
                report.parent_tool_use_id.clone(),
                acp::ToolCallUpdateFields::new().title(format!(
                    "task: {} {} {}, {} tools, {} turns",
                    report.agent_id,
                    report.agent,
                    report.reason.as_str(),
                    report.tools,
                    report.turns
                )),
            ))],
            _ => vec![],
        }
    }

    /// A subagent's tool calls, with the parent `task` call's id in `_meta`; its ids are
    /// scoped by the agent (they may repeat the parent's).
    fn child(&mut self, agent: &str, parent: &str, event: &AgentEvent) -> Vec<acp::SessionUpdate> {
        use acp::SessionUpdate as U;
        let meta = || {
            let mut m = acp::Meta::new();
            m.insert(
                "tooloop".into(),
                json!({"parentToolCallId": parent, "agentId": agent}),
            );
            Some(m)
        };
        let scoped = |id: &str| crate::protocol::subagent::scoped_id(agent, id);
        match event {
            AgentEvent::ToolUse {
                id,
                name,
                input,
                summary,
                ..
            } => vec![U::ToolCall(self.tool_call(
                &scoped(id),
                name,
                input,
                summary,
                meta(),
            ))],
            AgentEvent::ToolStart { id, .. } => vec![self.started(&scoped(id), meta())],
            AgentEvent::ToolEnd {
                id,
                outcome,
                output,
                ..
            } => vec![self.ended(&scoped(id), *outcome, output, meta())],
            // Nested deeper: the innermost agent names the calls.
            AgentEvent::Subagent {
                agent_id,
                parent_tool_use_id,
                event,
            } => self.child(agent_id, parent_tool_use_id, event),
            _ => vec![],
        }
    }

    fn tool_call(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        summary: &str,
        meta: Option<acp::Meta>,
    ) -> acp::ToolCall {
        let path = input_path(&self.workspace, input);
        let changes_file = matches!(tool_kind(name), acp::ToolKind::Edit);
        self.calls.insert(
            id.to_string(),
            Call {
                name: name.to_string(),
                path: path.clone().filter(|_| changes_file),
                old_text: None,
            },
        );
        let mut locations = Vec::new();
        if let Some(p) = path {
            let line = ["line", "offset"]
                .iter()
                .find_map(|k| input.get(*k).and_then(Value::as_u64))
                .map(|n| n as u32);
            locations.push(acp::ToolCallLocation::new(p).line(line));
        }
        acp::ToolCall::new(id.to_string(), title(name, summary))
            .kind(tool_kind(name))
            .status(acp::ToolCallStatus::Pending)
            .raw_input(input.clone())
            .locations(locations)
            .meta(meta)
    }

    fn started(&mut self, id: &str, meta: Option<acp::Meta>) -> acp::SessionUpdate {
        // The file as it was before the tool ran, for the diff at its end.
        if let Some(call) = self.calls.get_mut(id)
            && let Some(path) = &call.path
        {
            call.old_text = std::fs::read_to_string(path).ok();
        }
        acp::SessionUpdate::ToolCallUpdate(
            acp::ToolCallUpdate::new(
                id.to_string(),
                acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::InProgress),
            )
            .meta(meta),
        )
    }

    fn ended(
        &mut self,
        id: &str,
        outcome: ToolOutcome,
        output: &str,
        meta: Option<acp::Meta>,
    ) -> acp::SessionUpdate {
        let call = self.calls.remove(id);
        let status = match outcome {
            ToolOutcome::Ok => acp::ToolCallStatus::Completed,
            ToolOutcome::Error | ToolOutcome::Cancelled | ToolOutcome::Denied => {
                acp::ToolCallStatus::Failed
            }
        };
        let mut content = vec![text_content(output)];
        if outcome == ToolOutcome::Ok
            && let Some(Call {
                path: Some(path),
                old_text,
                ..
            }) = &call
        {
            let through_editor = self.files.as_ref().and_then(|f| f.take_write(path));
            let texts = match through_editor {
                Some((old, new)) => Some((old, new)),
                None => std::fs::read_to_string(path)
                    .ok()
                    .map(|new| (old_text.clone(), new)),
            };
            if let Some((old_text, new_text)) = texts {
                content.push(acp::ToolCallContent::Diff(
                    acp::Diff::new(path.clone(), new_text).old_text(old_text),
                ));
            }
        }
        let name = call.map(|c| c.name).unwrap_or_default();
        acp::SessionUpdate::ToolCallUpdate(
            acp::ToolCallUpdate::new(
                id.to_string(),
                acp::ToolCallUpdateFields::new()
                    .status(status)
                    .content(content)
                    .raw_output(json!({
                        "tool": name,
                        "outcome": outcome.as_str(),
                        "output": output,
                    })),
            )
            .meta(meta),
        )
    }
}

pub fn chunk(text: &str) -> acp::ContentChunk {
    acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(text)))
}

pub fn text_content(text: &str) -> acp::ToolCallContent {
    acp::ToolCallContent::Content(acp::Content::new(acp::ContentBlock::Text(
        acp::TextContent::new(text),
    )))
}

/// The kind an editor draws a call with, from the tool's name.
pub fn tool_kind(name: &str) -> acp::ToolKind {
    use acp::ToolKind as K;
    match name {
        "read_file" => K::Read,
        "edit_file" | "write_file" => K::Edit,
        n if n.starts_with("delete") => K::Delete,
        "grep" | "glob" | "list_dir" => K::Search,
        "bash" | "bash_output" | "kill_shell" => K::Execute,
        "web_fetch" | "web_search" => K::Fetch,
        "task" | "todo_write" => K::Think,
        "exit_plan_mode" => K::SwitchMode,
        _ => K::Other,
    }
}

/// The literal command or path: `bash: cargo test -p foo`, `read_file: src/main.rs`.
pub fn title(name: &str, summary: &str) -> String {
    let summary = summary.trim();
    if summary.is_empty() {
        name.to_string()
    } else {
        format!("{name}: {summary}")
    }
}

/// The absolute path a tool's input names, if it names one.
fn input_path(workspace: &Path, input: &Value) -> Option<PathBuf> {
    let p = input.get("path").and_then(Value::as_str)?;
    let p = Path::new(p);
    Some(if p.is_absolute() {
        p.to_path_buf()
    } else {
        workspace.join(p)
    })
}

/// The todo list as an ACP plan (tooloop's items have no priority: all medium).
pub fn plan(todos: &[TodoItem]) -> acp::Plan {
    acp::Plan::new(
        todos
            .iter()
            .map(|t| {
                let status = match t.status {
                    TodoStatus::Pending => acp::PlanEntryStatus::Pending,
                    TodoStatus::InProgress => acp::PlanEntryStatus::InProgress,
                    TodoStatus::Completed => acp::PlanEntryStatus::Completed,
                };
                acp::PlanEntry::new(&t.content, acp::PlanEntryPriority::Medium, status)
            })
            .collect(),
    )
}

/// How a turn ends over ACP: its stop reason, and a sentence for the editor when the
/// reason alone would not say why (a budget, the context limit, a hook).
pub fn stop_reason(
    summary: &TurnSummary,
    last_stop: Option<&str>,
) -> (acp::StopReason, Option<String>) {
    use acp::StopReason as S;
    let why = |what: &str| match &summary.error {
        Some(e) => Some(format!("\n\n[tooloop stopped: {what}: {e}]")),
        None => Some(format!("\n\n[tooloop stopped: {what}]")),
    };
    match summary.reason {
        Terminal::Completed | Terminal::PlanReady if last_stop == Some("refusal") => {
            (S::Refusal, None)
        }
        Terminal::Completed | Terminal::PlanReady => (S::EndTurn, None),
        Terminal::MaxTurns => (S::MaxTurnRequests, None),
        Terminal::MaxOutputTokens => (S::MaxTokens, None),
        Terminal::AbortedStreaming | Terminal::AbortedTools => (S::Cancelled, None),
        Terminal::BudgetExceeded => (S::EndTurn, why("the budget is spent")),
        Terminal::BlockingLimit | Terminal::PromptTooLong => (
            S::EndTurn,
            why("the conversation is over the context limit; /compact it or start a new session"),
        ),
        Terminal::HookStopped => (S::EndTurn, why("a hook stopped the turn")),
        Terminal::NotSent => (S::EndTurn, why("the prompt was not sent")),
        Terminal::StopHookPrevented => (
            S::EndTurn,
            why("the stop hook sent the model back too many times"),
        ),
        Terminal::ModelError => (S::EndTurn, why("the model request failed")),
    }
}

#[cfg(test)]
#[path = "updates_tests.rs"]
mod tests;
