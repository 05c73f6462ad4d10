//! A conversation as Markdown: each message under a heading, its text as written (the model
//! writes Markdown already), each tool call as a `<details>` block holding the input and
//! the result in fences long enough that no content can close them.

use std::fmt::Write;

use super::{Conversation, input_summary, only_results, results_by_id, role_label};
use crate::message::{ContentBlock, Message};
use crate::session::load::ChildHistory;

/// The Markdown of `conv`.
pub fn markdown(conv: &Conversation<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", one_line(&conv.title));
    for line in &conv.about {
        let _ = writeln!(out, "- {}", one_line(line));
    }
    if !conv.about.is_empty() {
        out.push('\n');
    }
    if !conv.earlier.is_empty() {
        messages(&mut out, conv.earlier, conv.agents);
        out.push_str("---\n\n*Compacted: the messages above were summarized; the model saw the summary below from here on.*\n\n");
    }
    messages(&mut out, conv.messages, conv.agents);
    out
}

fn messages(out: &mut String, list: &[Message], agents: &[ChildHistory]) {
    let results = results_by_id(list);
    for m in list {
        if only_results(m) {
            continue;
        }
        let _ = writeln!(out, "## {}\n", role_label(m.role));
        for block in &m.content {
            match block {
                ContentBlock::Text { text, citations } => {
                    out.push_str(text);
                    // Cited sources as links right after the text they support.
                    for s in citations.iter().filter_map(crate::message::server::source) {
                        if s.url.starts_with("http://") || s.url.starts_with("https://") {
                            let title = s.title.replace(['[', ']'], "");
                            let url = s.url.replace(['<', '>', ' '], "");
                            let _ = write!(out, " ([{}](<{url}>))", html_text(&title));
                        }
                    }
                    out.push_str("\n\n");
                }
                ContentBlock::Thinking { thinking, .. } => {
                    out.push_str("<details><summary>thinking</summary>\n\n");
                    fenced(out, "text", thinking);
                    out.push_str("</details>\n\n");
                }
                ContentBlock::RedactedThinking { .. } => {
                    out.push_str("*(redacted thinking)*\n\n");
                }
                ContentBlock::Image { source } => {
                    let _ = writeln!(
                        out,
                        "*(image, {}, {})*\n",
                        source.media_type,
                        crate::message::image::human_size(source.byte_len())
                    );
                }
                ContentBlock::Other(v) => {
                    let _ = writeln!(
                        out,
                        "🌐 {}\n",
                        html_text(&crate::message::server::summary(v))
                    );
                }
                ContentBlock::ToolUse { id, name, input } => {
                    let summary = input_summary(input);
                    let _ = writeln!(
                        out,
                        "<details><summary>🔧 {} {}</summary>\n",
                        html_text(name),
                        html_text(&summary)
                    );
                    let pretty =
                        serde_json::to_string_pretty(input).unwrap_or_else(|_| input.to_string());
                    fenced(out, "json", &pretty);
                    match results.get(id.as_str()) {
                        Some(r) => {
                            out.push_str(if r.is_error {
                                "Result (error):\n\n"
                            } else {
                                "Result:\n\n"
                            });
                            fenced(out, "text", r.content);
                        }
                        None => out.push_str("*(no result)*\n\n"),
                    }
                    for child in agents.iter().filter(|c| c.parent_tool_use_id == *id) {
                        let _ = writeln!(
                            out,
                            "<details><summary>{} {}: its conversation ({} messages)</summary>\n",
                            html_text(&child.agent),
                            html_text(&child.agent_id),
                            child.messages.len()
                        );
                        messages(out, &child.messages, &[]);
                        out.push_str("</details>\n\n");
                    }
                    out.push_str("</details>\n\n");
                }
                // A result whose call is not in this message list (cannot happen in a valid
                // history; shown rather than lost).
                ContentBlock::ToolResult { content, .. } => fenced(out, "text", content),
            }
        }
    }
}

/// `text` in a code fence longer than any backtick run inside it.
fn fenced(out: &mut String, lang: &str, text: &str) {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{fence}{lang}\n{text}\n{fence}\n");
}

fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Text safe inside an HTML element (`<summary>` is raw HTML in Markdown).
fn html_text(s: &str) -> String {
    super::html::escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_calls_fold_and_fences_hold() {
        let msgs = vec![
            Message::user_text("run it"),
            Message::assistant(vec![
                ContentBlock::text("Sure."),
                ContentBlock::ToolUse {
                    id: "t1".into(),
                    name: "bash".into(),
                    input: json!({"command": "echo '```'"}),
                },
            ]),
            Message::user(vec![ContentBlock::tool_result("t1", "```\nout", false)]),
            Message::assistant(vec![ContentBlock::text("Done.")]),
        ];
        let md = markdown(&Conversation {
            title: "t".into(),
            messages: &msgs,
            ..Default::default()
        });
        assert!(
            md.contains("<details><summary>🔧 bash echo &#39;```&#39;</summary>"),
            "{md}"
        );
        assert!(md.contains("````text\n```\nout\n````"), "{md}");
        assert_eq!(
            md.matches("## User").count(),
            1,
            "results fold into their call"
        );
        for t in ["run it", "Sure.", "Done."] {
            assert!(md.contains(t));
        }
    }
}
