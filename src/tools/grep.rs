//! grep: a regex over the workspace's files (the `regex` crate, no shell), honouring
//! .gitignore and skipping binary files.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use regex::{Regex, RegexBuilder};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::args::{flag, one_line, optional_str, required_str};
use super::input::{Check, Flag, Text, check};
use super::text::{MAX_TEXT_FILE_BYTES, cut_line, looks_binary};
use super::walk::{relative, walk};
use super::{Effect, Tool, ToolContext, ToolOutput, Workspace};

pub const MAX_MATCHES: usize = 200;
const MAX_MATCH_LINE_CHARS: usize = 500;

pub struct Grep;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    pattern: Text,
    #[serde(default)]
    path: Text,
    #[serde(default)]
    glob: Text,
    #[serde(default)]
    case_insensitive: Flag,
}

#[async_trait]
impl Tool for Grep {
    fn name(&self) -> &str {
        "grep"
    }
    fn description(&self) -> &str {
        "Search file contents with a regular expression (Rust regex syntax). Searches `path` \
         (a file or directory, default: the workspace root), skipping binary files and files \
         ignored by .gitignore. `glob` filters files: a pattern without `/` (e.g. *.rs) \
         matches file names, one with `/` matches paths relative to `path`. Prints \
         `path:line:text`, at most 200 matches."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression"},
                "path": {"type": "string", "description": "File or directory to search (default: the workspace root)"},
                "glob": {"type": "string", "description": "Only search files matching this glob, e.g. *.rs"},
                "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)"}
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
        let mut s = format!(
            "/{}/",
            one_line(optional_str(input, "pattern").unwrap_or("?"), 40)
        );
        if flag(input, "case_insensitive") {
            s.push('i');
        }
        if let Some(p) = optional_str(input, "path") {
            s.push_str(&format!(" in {}", one_line(p, 30)));
        }
        if let Some(g) = optional_str(input, "glob") {
            s.push_str(&format!(" ({})", one_line(g, 20)));
        }
        s
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let pattern = match required_str(&input, "pattern") {
            Ok(p) => p.to_string(),
            Err(e) => return e,
        };
        let regex = match RegexBuilder::new(&pattern)
            .case_insensitive(flag(&input, "case_insensitive"))
            .size_limit(10 * 1024 * 1024)
            .build()
        {
            Ok(r) => r,
            Err(e) => return ToolOutput::error(format!("Error: invalid regex {pattern:?}: {e}")),
        };
        let filter = match optional_str(&input, "glob")
            .map(FileFilter::new)
            .transpose()
        {
            Ok(f) => f,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let base = match ctx
            .workspace
            .resolve(optional_str(&input, "path").unwrap_or(""))
        {
            Ok(b) => b,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        if !base.exists() {
            return ToolOutput::error(format!(
                "Error: {} does not exist",
                ctx.workspace.display(&base)
            ));
        }
        let search = Search {
            workspace: ctx.workspace.clone(),
            regex,
            filter,
            cancel: ctx.cancel.clone(),
        };
        match tokio::task::spawn_blocking(move || search.run(base)).await {
            Ok(found) => ToolOutput::ok(found.report(&pattern)),
            Err(e) => ToolOutput::error(format!("Error: grep failed: {e}")),
        }
    }
}

struct FileFilter {
    matcher: GlobMatcher,
    by_name: bool,
}

/// A `glob` argument that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("Error: invalid glob {glob:?}: {source}")]
struct BadGlob {
    glob: String,
    source: globset::Error,
}

impl FileFilter {
    fn new(glob: &str) -> Result<Self, BadGlob> {
        let matcher = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|source| BadGlob {
                glob: glob.to_string(),
                source,
            })?
            .compile_matcher();
        Ok(FileFilter {
            matcher,
            by_name: !glob.contains('/'),
        })
    }

    fn accepts(&self, path: &Path, base: &Path) -> bool {
        if self.by_name {
            path.file_name()
                .is_some_and(|n| self.matcher.is_match(Path::new(n)))
        } else {
            self.matcher.is_match(relative(path, base))
        }
    }
}

struct Search {
    workspace: std::sync::Arc<Workspace>,
    regex: Regex,
    filter: Option<FileFilter>,
    cancel: CancellationToken,
}

#[derive(Default)]
struct Found {
    lines: Vec<String>,
    matches: usize,
    files: usize,
    skipped_binary: usize,
}

impl Search {
    fn run(&self, base: PathBuf) -> Found {
        let mut found = Found::default();
        if base.is_file() {
            // An explicit file is searched even if .gitignore lists it.
            self.file(&base, &mut found);
            return found;
        }
        for entry in walk(&base) {
            if self.cancel.is_cancelled() {
                break;
            }
            let Ok(entry) = entry else { continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            if self
                .filter
                .as_ref()
                .is_some_and(|f| !f.accepts(entry.path(), &base))
            {
                continue;
            }
            self.file(entry.path(), &mut found);
        }
        found
    }

    fn file(&self, path: &Path, found: &mut Found) {
        let too_big = path
            .metadata()
            .map(|m| m.len() > MAX_TEXT_FILE_BYTES)
            .unwrap_or(true);
        if too_big {
            return;
        }
        let Ok(bytes) = std::fs::read(path) else {
            return;
        };
        if looks_binary(&bytes) {
            found.skipped_binary += 1;
            return;
        }
        let text = String::from_utf8_lossy(&bytes);
        let shown = self.workspace.display(path);
        let mut hit = false;
        for (i, line) in text.lines().enumerate() {
            if !self.regex.is_match(line) {
                continue;
            }
            hit = true;
            found.matches += 1;
            if found.lines.len() < MAX_MATCHES {
                let line = cut_line(line, MAX_MATCH_LINE_CHARS);
                found.lines.push(format!("{shown}:{}:{line}", i + 1));
            }
        }
        if hit {
            found.files += 1;
        }
    }
}

impl Found {
    fn report(&self, pattern: &str) -> String {
        if self.matches == 0 {
            let binary = match self.skipped_binary {
                0 => String::new(),
                n => format!(" ({n} binary files skipped)"),
            };
            return format!("No matches for {pattern:?}{binary}");
        }
        let mut out = self.lines.join("\n");
        if self.matches > self.lines.len() {
            out.push_str(&format!(
                "\n… {} more matches not shown ({} matches in {} files); narrow the search with \
                 path or glob",
                self.matches - self.lines.len(),
                self.matches,
                self.files
            ));
        }
        out
    }
}
