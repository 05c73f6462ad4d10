//! read_file: a text file with line numbers, like `cat -n`, a window at a time.

use std::fmt::Write as _;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::args::{one_line, optional_str, optional_u64, path_field, required_str};
use super::fact::Fact;
use super::input::{Check, Positive, Text, check};
use super::text::{MAX_TEXT_FILE_BYTES, as_text, cut_line};
use super::{Effect, Tool, ToolContext, ToolOutput};
use crate::message::ImageSource;
use crate::message::image::{ImageError, human_size};

pub const DEFAULT_LIMIT: usize = 2000;
pub const MAX_LINE_CHARS: usize = 2000;

pub struct ReadFile;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    path: Text,
    #[serde(default)]
    offset: Positive,
    #[serde(default)]
    limit: Positive,
}

#[async_trait]
impl Tool for ReadFile {
    fn name(&self) -> &str {
        "read_file"
    }
    fn description(&self) -> &str {
        "Read a UTF-8 text file in the workspace. Lines come numbered like `cat -n` \
         (number, tab, text). Reads up to 2000 lines from `offset` (1-based, default 1); \
         lines longer than 2000 characters are cut. When more lines remain, the output ends \
         with the offset to continue from. PNG, JPEG, GIF and WebP images (at most 5 MB) \
         come back as images you can see. Other binary files and files over 10 MiB are \
         refused; use list_dir for directories."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace root"},
                "offset": {"type": "integer", "minimum": 1, "description": "First line to read (1-based)"},
                "limit": {"type": "integer", "minimum": 1, "description": "Most lines to read (default 2000)"}
            },
            "required": ["path"],
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
        path_field(input, "path")
    }
    fn fact(&self, input: &Value, _output: &str, is_error: bool) -> Option<Fact> {
        let path = optional_str(input, "path").filter(|_| !is_error)?;
        Some(Fact::Read(path.to_string()))
    }
    fn summary(&self, input: &Value) -> String {
        let path = input.get("path").and_then(Value::as_str).unwrap_or("?");
        match optional_u64(input, "offset") {
            Some(o) => format!("{} (from line {o})", one_line(path, 60)),
            None => one_line(path, 60),
        }
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        match read(&input, &ctx).await {
            Ok(output) => output,
            Err(message) => ToolOutput::error(message),
        }
    }
}

/// A PNG, JPEG, GIF or WebP file goes to the model as an image (the media type from its
/// bytes), at most 5 MB; None when the bytes are not such an image. A refused image is an
/// error output already (`ToolOutput::error`).
fn image(bytes: &[u8], shown: &str) -> Option<ToolOutput> {
    crate::message::image::sniff(bytes)?;
    Some(match ImageSource::from_bytes(bytes) {
        Ok(source) => ToolOutput::image(
            format!(
                "Image: {shown} ({}, {})",
                source.media_type,
                human_size(bytes.len())
            ),
            source,
        ),
        Err(e) => ToolOutput::error(format!("Error: {shown}: {e}")),
    })
}

async fn read(input: &Value, ctx: &ToolContext) -> Result<ToolOutput, String> {
    let path = required_str(input, "path").map_err(|e| e.content)?;
    let offset = optional_u64(input, "offset").unwrap_or(1).max(1) as usize;
    let limit = optional_u64(input, "limit")
        .map(|l| l.max(1) as usize)
        .unwrap_or(DEFAULT_LIMIT);
    let resolved = ctx.workspace.resolve(path).map_err(|e| e.to_string())?;
    let shown = ctx.workspace.display(&resolved);
    let meta = tokio::fs::metadata(&resolved)
        .await
        .map_err(|e| format!("Error: cannot read {shown}: {e}"))?;
    if meta.is_dir() {
        return Err(format!(
            "Error: {shown} is a directory; use list_dir to see what it contains"
        ));
    }
    if !meta.is_file() {
        return Err(format!("Error: {shown} is not a regular file"));
    }
    if meta.len() > MAX_TEXT_FILE_BYTES {
        if let Some(head) = head(&resolved).await
            && crate::message::image::sniff(&head).is_some()
        {
            return Err(format!(
                "Error: {shown}: {}",
                ImageError::TooLarge {
                    size: meta.len() as usize
                }
            ));
        }
        return Err(format!(
            "Error: {shown} is {} bytes, over the 10 MiB limit of read_file; use grep to find \
             the part you need",
            meta.len()
        ));
    }
    let bytes = ctx
        .files
        .read(&resolved)
        .await
        .map_err(|e| format!("Error: cannot read {shown}: {e}"))?;
    if let Some(image) = image(&bytes, &shown) {
        return Ok(image);
    }
    let text = as_text(&bytes, &shown).map_err(|e| e.to_string())?;
    Ok(ToolOutput::ok(number_lines(
        text,
        offset,
        limit,
        ctx.max_output_bytes,
        &shown,
    )))
}

/// The first bytes of a file, to tell an image by.
async fn head(path: &std::path::Path) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut file = tokio::fs::File::open(path).await.ok()?;
    let mut buf = vec![0u8; 16];
    let n = file.read(&mut buf).await.ok()?;
    buf.truncate(n);
    Some(buf)
}

/// `cat -n` numbering of lines `offset..offset+limit`, stopping early (with a note) before
/// the output would pass `max_bytes`, so the executor never has to cut mid-line.
pub fn number_lines(
    text: &str,
    offset: usize,
    limit: usize,
    max_bytes: usize,
    shown: &str,
) -> String {
    let total = text.lines().count();
    if total == 0 {
        return format!("({shown} is empty)");
    }
    if offset > total {
        return format!("({shown} has {total} lines; offset {offset} is past the end)");
    }
    // Room for the closing note, so the whole result stays under the limit.
    let budget = max_bytes.saturating_sub(120);
    let mut out = String::new();
    let mut next = offset;
    for (i, line) in text.lines().enumerate().skip(offset - 1).take(limit) {
        let n = i + 1;
        let numbered = format!("{:>6}\t{}\n", n, cut_line(line, MAX_LINE_CHARS));
        if out.len() + numbered.len() > budget && n > offset {
            break;
        }
        out.push_str(&numbered);
        next = n + 1;
    }
    if next <= total {
        let _ = write!(
            out,
            "… {} more lines; use offset={next} to read on",
            total - next + 1
        );
    } else {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_like_cat_n_and_notes_the_rest() {
        let text = "a\nb\r\nc\n";
        assert_eq!(
            number_lines(text, 1, 10, 10_000, "f"),
            "     1\ta\n     2\tb\n     3\tc"
        );
        assert_eq!(
            number_lines(text, 2, 1, 10_000, "f"),
            "     2\tb\n… 1 more lines; use offset=3 to read on"
        );
        assert!(number_lines("", 1, 10, 10_000, "f").contains("empty"));
        assert!(number_lines(text, 9, 10, 10_000, "f").contains("past the end"));
    }

    #[test]
    fn stops_before_the_byte_budget() {
        let text = "x".repeat(50) + "\n";
        let out = number_lines(&text.repeat(100), 1, 2000, 1000, "f");
        assert!(out.len() <= 1000, "{}", out.len());
        assert!(out.ends_with("to read on"), "{out}");
    }
}
