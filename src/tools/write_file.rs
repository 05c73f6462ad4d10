//! write_file: create or replace a file in the workspace, atomically.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::args::{one_line, optional_str, path_field, required_str};
use super::fact::Fact;
use super::input::{Check, Text, check};
use super::{Effect, Tool, ToolContext, ToolOutput};
use crate::message::markers::tool_results;
use crate::protocol::approval::Preview;

pub struct WriteFile;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    path: Text,
    content: Text,
}

#[async_trait]
impl Tool for WriteFile {
    fn name(&self) -> &str {
        "write_file"
    }
    fn description(&self) -> &str {
        "Write `content` to a file in the workspace, creating parent directories as needed. \
         An existing file is replaced whole (atomically), so read it first and prefer \
         edit_file for small changes. Reports the bytes written and whether the file was \
         created or overwritten."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace root"},
                "content": {"type": "string", "description": "The complete new content of the file"}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    fn effect(&self) -> Effect {
        Effect::Edit
    }
    fn paths(&self, input: &Value) -> Vec<String> {
        path_field(input, "path")
    }
    fn fact(&self, input: &Value, output: &str, is_error: bool) -> Option<Fact> {
        (!is_error).then(|| Fact::Changed {
            paths: self.paths(input),
            created: tool_results::is_created(output),
        })
    }
    fn preview(&self, input: &Value) -> Option<Preview> {
        Some(Preview::NewFile {
            path: optional_str(input, "path").unwrap_or("").to_string(),
            content: optional_str(input, "content").unwrap_or("").to_string(),
        })
    }
    fn preview_in(&self, input: &Value, workspace: &super::Workspace) -> Option<Preview> {
        let path = optional_str(input, "path").unwrap_or("");
        let content = optional_str(input, "content").unwrap_or("");
        super::file_preview::overwrite(workspace, path, content).or_else(|| self.preview(input))
    }
    fn summary(&self, input: &Value) -> String {
        let path = one_line(optional_str(input, "path").unwrap_or("?"), 60);
        match optional_str(input, "content") {
            Some(c) => format!("{path} ({} bytes)", c.len()),
            None => path,
        }
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let (path, content) = match (
            required_str(&input, "path"),
            required_str(&input, "content"),
        ) {
            (Ok(p), Ok(c)) => (p, c.to_string()),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        let resolved = match ctx.workspace.resolve(path) {
            Ok(p) => p,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let shown = ctx.workspace.display(&resolved);
        let before = match tokio::fs::metadata(&resolved).await {
            Ok(m) if m.is_dir() => {
                return ToolOutput::error(format!("Error: {shown} is a directory, not a file"));
            }
            Ok(m) => Some(m.len()),
            Err(_) => None,
        };
        if let Some(parent) = resolved.parent()
            && let Err(e) = tokio::fs::create_dir_all(parent).await
        {
            return ToolOutput::error(format!(
                "Error: cannot create the directories for {shown}: {e}"
            ));
        }
        if let Err(e) = ctx.files.write(&resolved, &content).await {
            return ToolOutput::error(format!("Error: cannot write {shown}: {e}"));
        }
        ToolOutput::ok(match before {
            None => tool_results::created(&shown, content.len()),
            Some(old) => format!(
                "Overwrote {shown} ({} bytes; it had {old} bytes)",
                content.len()
            ),
        })
    }
}
