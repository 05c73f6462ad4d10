//! glob: files whose path matches a glob pattern, honouring .gitignore.

use std::path::PathBuf;

use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::args::{one_line, optional_str, required_str};
use super::input::{Check, Text, check};
use super::walk::{relative, walk};
use super::{Effect, Tool, ToolContext, ToolOutput, Workspace};

pub const MAX_PATHS: usize = 1000;

pub struct Glob;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    pattern: Text,
    #[serde(default)]
    path: Text,
}

#[async_trait]
impl Tool for Glob {
    fn name(&self) -> &str {
        "glob"
    }
    fn description(&self) -> &str {
        "Find files by glob pattern, e.g. `**/*.rs` or `src/**/mod.rs`. The pattern is matched \
         against paths relative to `path` (default: the workspace root); `*` does not cross \
         `/`, `**` does. Files ignored by .gitignore are skipped. Prints matching file paths \
         relative to the workspace root, one per line, sorted."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern, e.g. **/*.rs"},
                "path": {"type": "string", "description": "Directory to search from (default: the workspace root)"}
            },
            "required": ["pattern"],
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
        vec![optional_str(input, "path").unwrap_or("").to_string()]
    }
    fn summary(&self, input: &Value) -> String {
        let pattern = one_line(optional_str(input, "pattern").unwrap_or("?"), 50);
        match optional_str(input, "path") {
            Some(p) => format!("{pattern} in {}", one_line(p, 40)),
            None => pattern,
        }
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let pattern = match required_str(&input, "pattern") {
            Ok(p) => p.to_string(),
            Err(e) => return e,
        };
        if pattern.starts_with('/') {
            return ToolOutput::error(
                "Error: the pattern must be relative (e.g. **/*.rs); put the directory in `path`",
            );
        }
        let matcher = match GlobBuilder::new(&pattern).literal_separator(true).build() {
            Ok(g) => g.compile_matcher(),
            Err(e) => return ToolOutput::error(format!("Error: invalid glob pattern: {e}")),
        };
        let base = match ctx
            .workspace
            .resolve(optional_str(&input, "path").unwrap_or(""))
        {
            Ok(b) => b,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        if !base.is_dir() {
            return ToolOutput::error(format!(
                "Error: {} is not a directory",
                ctx.workspace.display(&base)
            ));
        }
        let workspace = ctx.workspace.clone();
        let cancel = ctx.cancel.clone();
        let found =
            tokio::task::spawn_blocking(move || search(&workspace, base, &matcher, &cancel)).await;
        match found {
            Ok(found) => ToolOutput::ok(report(&pattern, found)),
            Err(e) => ToolOutput::error(format!("Error: glob failed: {e}")),
        }
    }
}

struct Found {
    paths: Vec<String>,
    total: usize,
}

fn search(
    workspace: &Workspace,
    base: PathBuf,
    matcher: &GlobMatcher,
    cancel: &CancellationToken,
) -> Found {
    let mut found = Found {
        paths: Vec::new(),
        total: 0,
    };
    for entry in walk(&base) {
        if cancel.is_cancelled() {
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if matcher.is_match(relative(entry.path(), &base)) {
            found.total += 1;
            if found.paths.len() < MAX_PATHS {
                found.paths.push(workspace.display(entry.path()));
            }
        }
    }
    found
}

fn report(pattern: &str, found: Found) -> String {
    if found.total == 0 {
        let hint = if pattern.contains('/') {
            ""
        } else {
            " (`*` does not cross directories: try **/"
        };
        return if hint.is_empty() {
            format!("No files match {pattern}")
        } else {
            format!("No files match {pattern}{hint}{pattern})")
        };
    }
    let mut out = found.paths.join("\n");
    if found.total > found.paths.len() {
        out.push_str(&format!(
            "\n… {} more matches not shown ({} in all); use a narrower pattern or path",
            found.total - found.paths.len(),
            found.total
        ));
    }
    out
}
