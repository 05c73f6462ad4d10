//! todo_write: the model's own checklist (issue 27). It replaces the session's whole list,
//! never asks (it changes nothing outside tooloop) and refuses a list with more than one
//! item in progress.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::input::{Check, Text, check};
use super::{Effect, Tool, ToolContext, ToolOutput};
use crate::todo::{TodoItem, TodoList, TodoStatus};

pub const NAME: &str = "todo_write";

/// Writes into the session's list (the engine hands it the one the agent records).
pub struct TodoWrite {
    list: Arc<TodoList>,
}

impl TodoWrite {
    pub fn new(list: Arc<TodoList>) -> Self {
        TodoWrite { list }
    }
}

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    todos: Vec<Todo>,
}

/// One item of `todos`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object with content and status")]
#[allow(dead_code)] // the field types are the check
struct Todo {
    content: Text,
    status: TodoStatus,
}

#[async_trait]
impl Tool for TodoWrite {
    fn name(&self) -> &str {
        NAME
    }
    fn description(&self) -> &str {
        "Keep a short checklist of the steps of a multi-step task, visible to the user. Send \
         the whole list each time (it replaces the previous one). Mark a step in_progress \
         before starting it and completed as soon as it is done; at most one item may be \
         in_progress. Skip it for a task of one or two trivial steps."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "description": "The whole list, in order",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "description": "What to do, imperative"},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["content", "status"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    fn effect(&self) -> Effect {
        // It writes tooloop's own state only: it never asks and runs in plan mode.
        Effect::ReadOnly
    }
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        // Two lists in one reply must land in the order the model wrote them.
        false
    }
    fn summary(&self, input: &Value) -> String {
        let items = parse(input).unwrap_or_default();
        let done = items
            .iter()
            .filter(|t| t.status == TodoStatus::Completed)
            .count();
        let current = items
            .iter()
            .find(|t| t.status == TodoStatus::InProgress)
            .map(|t| format!(": {}", super::args::one_line(&t.content, 50)))
            .unwrap_or_default();
        format!("{done}/{} done{current}", items.len())
    }
    async fn run(&self, input: Value, _ctx: ToolContext) -> ToolOutput {
        let items = match parse(&input) {
            Ok(items) => items,
            Err(e) => return ToolOutput::error(format!("Error: `todos` is not a todo list: {e}")),
        };
        let open = items
            .iter()
            .filter(|t| t.status != TodoStatus::Completed)
            .count();
        let total = items.len();
        match self.list.replace(items) {
            Ok(()) => ToolOutput::ok(format!(
                "Todo list updated ({total} item{}, {open} open). Keep it current as you work.",
                if total == 1 { "" } else { "s" }
            )),
            Err(e) => ToolOutput::error(format!("Error: the todo list was not changed: {e}")),
        }
    }
}

fn parse(input: &Value) -> Result<Vec<TodoItem>, serde_json::Error> {
    serde_json::from_value(input.get("todos").cloned().unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Workspace;

    fn ctx() -> ToolContext {
        let ws = Workspace::new(&std::env::temp_dir(), false).expect("workspace");
        ToolContext::for_workspace(Arc::new(ws))
    }

    #[tokio::test]
    async fn replaces_the_list_and_refuses_two_in_progress() {
        let list = TodoList::new();
        let tool = TodoWrite::new(list.clone());
        let ok = json!({"todos": [
            {"content": "读代码", "status": "completed"},
            {"content": "写测试", "status": "in_progress"},
            {"content": "ship", "status": "pending"}
        ]});
        let out = tool.run(ok.clone(), ctx()).await;
        assert!(!out.is_error, "{}", out.content);
        assert_eq!(
            out.content,
            "Todo list updated (3 items, 2 open). Keep it current as you work."
        );
        assert_eq!(list.current().len(), 3);
        assert_eq!(tool.summary(&ok), "1/3 done: 写测试");
        let bad = json!({"todos": [
            {"content": "a", "status": "in_progress"},
            {"content": "b", "status": "in_progress"}
        ]});
        let out = tool.run(bad, ctx()).await;
        assert!(out.is_error);
        assert!(
            out.content.contains("at most one item may be in_progress"),
            "{}",
            out.content
        );
        assert_eq!(list.current().len(), 3, "a refused list changes nothing");
        let out = tool.run(json!({"todos": "x"}), ctx()).await;
        assert!(out.is_error);
        assert_eq!(tool.summary(&json!({})), "0/0 done");
    }
}
