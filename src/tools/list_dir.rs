//! list_dir: the entries of one directory, sorted, directories marked with `/`.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::args::{one_line, optional_str};
use super::input::{Check, Text, check};
use super::{Effect, Tool, ToolContext, ToolOutput};

pub const MAX_ENTRIES: usize = 1000;

pub struct ListDir;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    #[serde(default)]
    path: Text,
}

#[async_trait]
impl Tool for ListDir {
    fn name(&self) -> &str {
        "list_dir"
    }
    fn description(&self) -> &str {
        "List one directory of the workspace (default: the workspace root), one entry per \
         line, sorted by name. Directories end with `/`; symlinks show as `name -> target`. \
         Not recursive: use glob to find files by pattern."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory, relative to the workspace root (default: the root)"}
            },
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    fn paths(&self, input: &Value) -> Vec<String> {
        vec![optional_str(input, "path").unwrap_or(".").to_string()]
    }
    fn summary(&self, input: &Value) -> String {
        one_line(optional_str(input, "path").unwrap_or("."), 60)
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let path = optional_str(&input, "path").unwrap_or("");
        let resolved = match ctx.workspace.resolve(path) {
            Ok(p) => p,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let shown = ctx.workspace.display(&resolved);
        match tokio::task::spawn_blocking(move || list(&resolved, &shown)).await {
            Ok(Ok(text)) => ToolOutput::ok(text),
            Ok(Err(e)) => ToolOutput::error(e),
            Err(e) => ToolOutput::error(format!("Error: list_dir failed: {e}")),
        }
    }
}

fn list(dir: &std::path::Path, shown: &str) -> Result<String, String> {
    let meta = std::fs::metadata(dir).map_err(|e| format!("Error: cannot list {shown}: {e}"))?;
    if !meta.is_dir() {
        return Err(format!(
            "Error: {shown} is not a directory; use read_file to read a file"
        ));
    }
    let reader = std::fs::read_dir(dir).map_err(|e| format!("Error: cannot list {shown}: {e}"))?;
    let mut entries: Vec<(String, String)> = Vec::new();
    for entry in reader {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        // DirEntry::file_type does not follow symlinks, so links are seen as links.
        let line = match entry.file_type() {
            Ok(t) if t.is_dir() => format!("{name}/"),
            Ok(t) if t.is_symlink() => {
                let target = std::fs::read_link(entry.path())
                    .map(|t| t.display().to_string())
                    .unwrap_or_else(|_| "?".to_string());
                let slash = if entry.path().is_dir() { "/" } else { "" };
                format!("{name}{slash} -> {target}")
            }
            _ => name.clone(),
        };
        entries.push((name, line));
    }
    if entries.is_empty() {
        return Ok(format!("({shown} is empty)"));
    }
    entries.sort();
    let total = entries.len();
    let mut out: Vec<String> = entries
        .into_iter()
        .take(MAX_ENTRIES)
        .map(|(_, line)| line)
        .collect();
    if total > MAX_ENTRIES {
        out.push(format!(
            "… {} more entries not shown ({total} in all); use glob to narrow down",
            total - MAX_ENTRIES
        ));
    }
    Ok(out.join("\n"))
}
