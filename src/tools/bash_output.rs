//! bash_output: what a background job wrote since the model last looked, and its state.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::args::{optional_str, required_str};
use super::input::{Check, Text, check};
use super::output::HeadTail;
use super::{Effect, Tool, ToolContext, ToolOutput};

/// Room kept under max_output_bytes for the notes and the state line.
const TRAILER_ROOM: usize = 400;

pub struct BashOutput;

/// The input as `input_schema` states it: the registry checks a call by deserializing into
/// it (`tools/input.rs`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the field types are the check
struct Input {
    shell_id: Text,
    #[serde(default)]
    filter: Text,
}

#[async_trait]
impl Tool for BashOutput {
    fn name(&self) -> &str {
        "bash_output"
    }
    fn description(&self) -> &str {
        "Read a background job started with bash run_in_background: returns only the output \
         written since the last bash_output of that job (stdout and stderr interleaved, in \
         order), then its state: running, exited with code N, or killed. `filter` (a regex) \
         keeps only the matching lines of the new output. Never waits: call it again later \
         for more."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "shell_id": {"type": "string", "description": "The job's id, e.g. b1"},
                "filter": {"type": "string", "description": "Regex: only lines matching it are returned (the others still count as read)"}
            },
            "required": ["shell_id"],
            "additionalProperties": false
        })
    }
    fn input_check(&self) -> Option<Check> {
        Some(check::<Input>())
    }
    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }
    fn summary(&self, input: &Value) -> String {
        let id = optional_str(input, "shell_id").unwrap_or("?");
        match optional_str(input, "filter") {
            Some(f) => format!("{id} /{}/", super::args::one_line(f, 40)),
            None => id.to_string(),
        }
    }
    async fn run(&self, input: Value, ctx: ToolContext) -> ToolOutput {
        let id = match required_str(&input, "shell_id") {
            Ok(id) => id,
            Err(e) => return e,
        };
        let filter = match optional_str(&input, "filter").map(regex::Regex::new) {
            None => None,
            Some(Ok(re)) => Some(re),
            Some(Err(e)) => {
                return ToolOutput::error(format!("Error: `filter` is not a valid regex: {e}"));
            }
        };
        let Some(jobs) = &ctx.jobs else {
            return ToolOutput::error("Error: background jobs are not available here");
        };
        let (read, info) = match jobs.read(id) {
            Ok(r) => r,
            Err(e) => return ToolOutput::error(format!("Error: {e}")),
        };
        let text = String::from_utf8_lossy(&read.bytes);
        let mut kept = HeadTail::new(ctx.max_output_bytes.saturating_sub(TRAILER_ROOM).max(200));
        let mut notes = Vec::new();
        if read.skipped > 0 {
            notes.push(format!(
                "[{} bytes of older output were dropped: the job's output file keeps the last 8 MiB]",
                read.skipped
            ));
        }
        match &filter {
            None => kept.push(&text),
            Some(re) => {
                let (mut all, mut matched) = (0, 0);
                for line in text.lines() {
                    all += 1;
                    if re.is_match(line) {
                        matched += 1;
                        kept.push(line);
                        kept.push("\n");
                    }
                }
                notes.push(format!("[filter: {matched} of {all} new lines matched]"));
            }
        }
        let mut out = if kept.is_empty() {
            "(no new output)".to_string()
        } else {
            kept.finish()
        };
        if !out.ends_with('\n') {
            out.push('\n');
        }
        for note in notes {
            out.push_str(&note);
            out.push('\n');
        }
        out.push_str(&format!("[{}: {}]", info.shell_id, info.describe_state()));
        ToolOutput::ok(out)
    }
}
