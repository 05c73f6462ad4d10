//! edit_file: exact string replacement in one file, answered with a unified diff.

use std::path::Path;

use async_trait::async_trait;
use serde_json::{Value, json};
use similar::TextDiff;

use super::args::{flag, one_line, optional_str, path_field, required_str};
use super::fact::Fact;
use super::file_access::FileAccess;
use super::input::{Check, Flag, Text, check};
use super::replacement::Replacement;
use super::text::{MAX_TEXT_FILE_BYTES, as_text};
use super::{Effect, Tool, ToolContext, ToolOutput};
use crate::protocol::approval::Preview;

/// Diffs longer than this many lines are cut (the edit itself is not).
const MAX_DIFF_LINES: usize = 200;

pub struct EditFile;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    path: Text,
    old_string: Text,
    new_string: Text,
    #[serde(default)]
    replace_all: Flag,
}

#[async_trait]
impl Tool for EditFile {
    fn name(&self) -> &str {
        "edit_file"
    }
    fn description(&self) -> &str {
        "Replace an exact string in a UTF-8 text file. `old_string` must occur exactly once \
         (include enough surrounding lines to make it unique) unless `replace_all` is true. \
         Whitespace and indentation must match the file exactly. Files with CRLF line \
         endings keep them; write old_string and new_string with plain \\n. Returns a unified \
         diff of the change. Use write_file to create new files."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace root"},
                "old_string": {"type": "string", "description": "The exact text to replace"},
                "new_string": {"type": "string", "description": "The text to put in its place"},
                "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)"}
            },
            "required": ["path", "old_string", "new_string"],
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
    fn fact(&self, input: &Value, _output: &str, is_error: bool) -> Option<Fact> {
        (!is_error).then(|| Fact::Changed {
            paths: self.paths(input),
            created: false,
        })
    }
    fn preview(&self, input: &Value) -> Option<Preview> {
        let old = optional_str(input, "old_string").unwrap_or("");
        let new = optional_str(input, "new_string").unwrap_or("");
        Some(Preview::Diff {
            path: optional_str(input, "path").unwrap_or("").to_string(),
            unified_diff: string_diff(old, new),
            note: flag(input, "replace_all").then(|| "(every occurrence)".to_string()),
        })
    }
    fn preview_in(&self, input: &Value, workspace: &super::Workspace) -> Option<Preview> {
        let path = optional_str(input, "path").unwrap_or("");
        let old = optional_str(input, "old_string").unwrap_or("");
        let new = optional_str(input, "new_string").unwrap_or("");
        match super::file_preview::edit(workspace, path, old, new, flag(input, "replace_all")) {
            Some(unified_diff) => Some(Preview::Diff {
                path: path.to_string(),
                unified_diff,
                note: flag(input, "replace_all").then(|| "(every occurrence)".to_string()),
            }),
            None => self.preview(input),
        }
    }
    fn summary(&self, input: &Value) -> String {
        let path = one_line(optional_str(input, "path").unwrap_or("?"), 60);
        if flag(input, "replace_all") {
            format!("{path} (replace all)")
        } else {
            path
        }
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let fields = (
            required_str(&input, "path"),
            required_str(&input, "old_string"),
            required_str(&input, "new_string"),
        );
        let (path, old, new) = match fields {
            (Ok(p), Ok(o), Ok(n)) => (p, o.to_string(), n.to_string()),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e,
        };
        let replace_all = flag(&input, "replace_all");
        let resolved = match ctx.workspace.resolve(path) {
            Ok(p) => p,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let shown = ctx.workspace.display(&resolved);
        match edit(&*ctx.files, &resolved, &shown, &old, &new, replace_all).await {
            Ok(text) => ToolOutput::ok(text),
            Err(e) => ToolOutput::error(e),
        }
    }
}

/// Reads through `files` (an editor's buffer may be newer than the disk), replaces, and
/// writes back through it.
async fn edit(
    files: &dyn FileAccess,
    path: &Path,
    shown: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<String, String> {
    if old.is_empty() {
        return Err(
            "Error: old_string is empty; give the exact text to replace (use write_file to \
             create a file or replace it whole)"
                .to_string(),
        );
    }
    if old == new {
        return Err("Error: old_string and new_string are identical; nothing to change".into());
    }
    let meta = tokio::fs::metadata(path)
        .await
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                format!("Error: {shown} does not exist; use write_file to create it")
            }
            _ => format!("Error: cannot read {shown}: {e}"),
        })?;
    if !meta.is_file() {
        return Err(format!("Error: {shown} is not a regular file"));
    }
    if meta.len() > MAX_TEXT_FILE_BYTES {
        return Err(format!(
            "Error: {shown} is {} bytes, over the 10 MiB limit of edit_file",
            meta.len()
        ));
    }
    let bytes = files
        .read(path)
        .await
        .map_err(|e| format!("Error: cannot read {shown}: {e}"))?;
    let text = as_text(&bytes, shown).map_err(|e| e.to_string())?;
    let plan = Replacement::plan(text, old, new);
    let count = plan.content.matches(plan.old.as_str()).count();
    if count == 0 {
        return Err(format!(
            "Error: old_string was not found in {shown}. It must match the file exactly, \
             including whitespace and indentation; read the file again to see its current \
             content."
        ));
    }
    if count > 1 && !replace_all {
        return Err(format!(
            "Error: old_string occurs {count} times in {shown}; include more surrounding \
             lines to make it unique, or set replace_all to replace all {count}"
        ));
    }
    let replaced = if replace_all {
        plan.content.replace(plan.old.as_str(), &plan.new)
    } else {
        plan.content.replacen(plan.old.as_str(), &plan.new, 1)
    };
    let on_disk = if plan.crlf {
        replaced.replace('\n', "\r\n")
    } else {
        replaced.clone()
    };
    files
        .write(path, &on_disk)
        .await
        .map_err(|e| format!("Error: cannot write {shown}: {e}"))?;
    // Diffing a large file takes a while: off the runtime's threads, as the whole edit was.
    let (before, header) = (plan.content, shown.to_string());
    let diff = tokio::task::spawn_blocking(move || {
        TextDiff::from_lines(before.as_str(), replaced.as_str())
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{header}"), &format!("b/{header}"))
            .to_string()
    })
    .await
    .map_err(|e| format!("Error: edit_file failed: {e}"))?;
    let what = if count == 1 {
        "1 occurrence".to_string()
    } else {
        format!("{count} occurrences")
    };
    let endings = if plan.crlf {
        " (CRLF line endings kept)"
    } else {
        ""
    };
    Ok(format!(
        "Edited {shown}: replaced {what}{endings}\n{}",
        cut_diff(&diff)
    ))
}

fn cut_diff(diff: &str) -> String {
    let total = diff.lines().count();
    if total <= MAX_DIFF_LINES {
        return diff.trim_end().to_string();
    }
    let head: Vec<&str> = diff.lines().take(MAX_DIFF_LINES).collect();
    format!(
        "{}\n… diff cut: {} more lines (the edit was applied in full)",
        head.join("\n"),
        total - MAX_DIFF_LINES
    )
}

/// A unified diff of `old` → `new` with every line as context, for the approval preview
/// (the file itself is not read: the preview shows what the call asks for).
pub fn string_diff(old: &str, new: &str) -> String {
    let radius = old.lines().count().max(new.lines().count());
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(radius)
        .missing_newline_hint(false)
        .to_string()
}
