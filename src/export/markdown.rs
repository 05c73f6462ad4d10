//! A conversation as Markdown (the TUI's `/export`): each prompt and answer under a heading,
//! each tool call with its input and result in fenced blocks. Text from the model and the
//! tools is fenced with more backticks than it contains, so it can never close a fence early.

use std::fmt::Write;

use crate::message::{ContentBlock, Message, Role};

/// The whole history as one Markdown document.
pub fn to_markdown(messages: &[Message], title: &str) -> String {
    let mut out = format!("# {title}\n");
    for m in messages {
        let mut heading_done = false;
        for block in &m.content {
            // A user message that only carries tool results belongs to the assistant's turn.
            let is_result = matches!(block, ContentBlock::ToolResult { .. });
            if !heading_done && !is_result {
                out.push_str(match m.role {
                    Role::User => "\n## You\n",
                    Role::Assistant => "\n## Assistant\n",
                });
                heading_done = true;
            }
            block_markdown(block, &mut out);
        }
    }
    out
}

fn block_markdown(block: &ContentBlock, out: &mut String) {
    match block {
        ContentBlock::Text { text } => {
            let _ = write!(out, "\n{}\n", text.trim_end());
        }
        ContentBlock::Thinking { thinking, .. } => {
            let _ = write!(
                out,
                "\n<details><summary>thinking</summary>\n\n{}\n",
                fenced(thinking, "")
            );
            out.push_str("\n</details>\n");
        }
        ContentBlock::RedactedThinking { .. } => out.push_str("\n*(redacted thinking)*\n"),
        ContentBlock::ToolUse { name, input, .. } => {
            let json = serde_json::to_string_pretty(input).unwrap_or_default();
            let _ = write!(
                out,
                "\n**Tool call:** `{name}`\n\n{}\n",
                fenced(&json, "json")
            );
        }
        ContentBlock::ToolResult {
            content, is_error, ..
        } => {
            let label = if *is_error {
                "Result (error)"
            } else {
                "Result"
            };
            let _ = write!(out, "\n**{label}:**\n\n{}\n", fenced(content, ""));
        }
    }
}

/// `text` in a fence longer than any run of backticks inside it.
fn fenced(text: &str, lang: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}", text.trim_end_matches('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompts_answers_and_tools_in_order() {
        let history = vec![
            Message::user_text("read notes.txt"),
            Message::assistant(vec![
                ContentBlock::text("Reading it."),
                ContentBlock::ToolUse {
                    id: "t1".into(),
                    name: "read_file".into(),
                    input: json!({"path": "notes.txt"}),
                },
            ]),
            Message::user(vec![ContentBlock::tool_result(
                "t1",
                "has ``` inside",
                false,
            )]),
            Message::assistant(vec![ContentBlock::text("它写着：你好")]),
        ];
        let md = to_markdown(&history, "tooloop session abc");
        assert!(md.starts_with("# tooloop session abc\n\n## You\n\nread notes.txt\n"));
        assert!(md.contains(
            "**Tool call:** `read_file`\n\n```json\n{\n  \"path\": \"notes.txt\"\n}\n```"
        ));
        assert!(
            md.contains("**Result:**\n\n````\nhas ``` inside\n````"),
            "{md}"
        );
        assert!(md.ends_with("## Assistant\n\n它写着：你好\n"), "{md}");
        assert_eq!(
            md.matches("## You").count(),
            1,
            "a tool result is no prompt:\n{md}"
        );
    }
}
