//! A conversation as one self-contained HTML page: inline CSS, no scripts, nothing fetched.
//! Written as well-formed XHTML-compatible markup (every element closed, every attribute
//! quoted, all text escaped) so any HTML or XML parser reads it.

use std::fmt::Write;

use super::{Conversation, input_summary, only_results, results_by_id, role_label};
use crate::message::{ContentBlock, Message, Role};
use crate::session::load::ChildHistory;

const STYLE: &str = "
body { font: 15px/1.5 system-ui, sans-serif; max-width: 980px; margin: 2em auto; padding: 0 1em; color: #1d1f21; background: #fafafa; }
h1 { font-size: 1.4em; }
.about { color: #666; margin: 0 0 1.5em 0; padding-left: 1.2em; }
.msg { border-radius: 8px; padding: .6em 1em; margin: .8em 0; background: #fff; border: 1px solid #ddd; }
.msg.user { border-left: 4px solid #3b82f6; }
.msg.assistant { border-left: 4px solid #10b981; }
.msg .role { font-weight: 600; font-size: .85em; color: #555; }
.text { white-space: pre-wrap; }
details { margin: .4em 0; background: #f4f4f5; border-radius: 6px; padding: .3em .6em; }
summary { cursor: pointer; font-family: ui-monospace, monospace; font-size: .9em; }
pre { white-space: pre-wrap; word-break: break-word; font: 13px/1.4 ui-monospace, monospace; background: #fff; padding: .5em; border-radius: 4px; border: 1px solid #e4e4e7; }
.error pre { border-color: #ef4444; }
.divider { text-align: center; color: #888; margin: 1.5em 0; }
.earlier { opacity: .6; }
svg.timeline { background: #fff; border: 1px solid #ddd; border-radius: 6px; max-width: 100%; height: auto; }
svg .label, svg .axis { font: 11px ui-monospace, monospace; fill: #444; }
svg .tick { stroke: #eee; }
svg .req { fill: #3b82f6; }
svg .tool { fill: #10b981; }
svg .fail { fill: #ef4444; }
svg .wait { fill: #a1a1aa; }
svg .queued { fill: #d4d4d8; }
svg .ask { fill: #f59e0b; }
";

/// The page for `conv`; `timeline` is an SVG from [`super::timeline_svg::svg`], if the
/// session was recorded.
pub fn html(conv: &Conversation<'_>, timeline: Option<&str>) -> String {
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>");
    let _ = write!(out, "<title>{}</title>", escape(&conv.title));
    let _ = write!(out, "<style>{STYLE}</style></head><body>");
    let _ = write!(out, "<h1>{}</h1>", escape(&conv.title));
    if !conv.about.is_empty() {
        out.push_str("<ul class=\"about\">");
        for line in &conv.about {
            let _ = write!(out, "<li>{}</li>", escape(line));
        }
        out.push_str("</ul>");
    }
    match timeline {
        Some(svg) => {
            out.push_str("<h2>Timeline</h2>");
            out.push_str(svg);
        }
        None => out.push_str(
            "<p class=\"about\">No timeline: this session was not recorded (tooloop --record).</p>",
        ),
    }
    out.push_str("<h2>Conversation</h2>");
    if !conv.earlier.is_empty() {
        out.push_str("<div class=\"earlier\">");
        messages(&mut out, conv.earlier, conv.agents);
        out.push_str("</div><p class=\"divider\">— compacted: the model saw a summary of the above from here on —</p>");
    }
    messages(&mut out, conv.messages, conv.agents);
    out.push_str("</body></html>\n");
    out
}

fn messages(out: &mut String, list: &[Message], agents: &[ChildHistory]) {
    let results = results_by_id(list);
    for m in list {
        if only_results(m) {
            continue;
        }
        let class = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let _ = write!(
            out,
            "<div class=\"msg {class}\"><div class=\"role\">{}</div>",
            role_label(m.role)
        );
        for block in &m.content {
            match block {
                ContentBlock::Text { text, citations } => {
                    let _ = write!(out, "<div class=\"text\">{}", escape(text));
                    for s in citations.iter().filter_map(crate::message::server::source) {
                        if s.url.starts_with("http://") || s.url.starts_with("https://") {
                            let _ = write!(
                                out,
                                " <a class=\"cite\" href=\"{}\">[{}]</a>",
                                escape(&s.url),
                                escape(&s.title)
                            );
                        }
                    }
                    out.push_str("</div>");
                }
                ContentBlock::Thinking { thinking, .. } => {
                    let _ = write!(
                        out,
                        "<details><summary>thinking</summary><pre>{}</pre></details>",
                        escape(thinking)
                    );
                }
                ContentBlock::RedactedThinking { .. } => {
                    out.push_str("<p><em>(redacted thinking)</em></p>");
                }
                ContentBlock::Image { source } => {
                    // The data URL is base64 (and the media type one we sniffed): nothing
                    // in it can leave the attribute.
                    let _ = write!(
                        out,
                        "<p><img alt=\"image\" style=\"max-width:100%\" src=\"{}\"></p>",
                        escape(&source.data_url())
                    );
                }
                ContentBlock::Other(v) => {
                    let _ = write!(
                        out,
                        "<p class=\"server\">🌐 {}</p>",
                        escape(&crate::message::server::summary(v))
                    );
                }
                ContentBlock::ToolUse { id, name, input } => {
                    let pretty =
                        serde_json::to_string_pretty(input).unwrap_or_else(|_| input.to_string());
                    let result = results.get(id.as_str());
                    let error = result.is_some_and(|r| r.is_error);
                    let _ = write!(
                        out,
                        "<details class=\"{}\"><summary>🔧 {} {}</summary><pre>{}</pre>",
                        if error { "tool error" } else { "tool" },
                        escape(name),
                        escape(&input_summary(input)),
                        escape(&pretty)
                    );
                    match result {
                        Some(r) => {
                            let _ = write!(
                                out,
                                "<div>{}</div><pre>{}</pre>",
                                if r.is_error {
                                    "Result (error)"
                                } else {
                                    "Result"
                                },
                                escape(r.content)
                            );
                            for image in r.images {
                                let _ = write!(
                                    out,
                                    "<p><img alt=\"image\" style=\"max-width:100%\" src=\"{}\"></p>",
                                    escape(&image.data_url())
                                );
                            }
                        }
                        None => out.push_str("<p><em>(no result)</em></p>"),
                    }
                    for child in agents.iter().filter(|c| c.parent_tool_use_id == *id) {
                        let _ = write!(
                            out,
                            "<details class=\"agent\"><summary>{} {}: its conversation ({} messages)</summary>",
                            escape(&child.agent),
                            escape(&child.agent_id),
                            child.messages.len()
                        );
                        messages(out, &child.messages, &[]);
                        out.push_str("</details>");
                    }
                    out.push_str("</details>");
                }
                ContentBlock::ToolResult { content, .. } => {
                    let _ = write!(out, "<pre>{}</pre>", escape(content));
                }
            }
        }
        out.push_str("</div>");
    }
}

/// Text or attribute value made safe for HTML (and XML): the five specials escaped, and
/// control characters (which XML forbids and terminals act on) dropped, except tab and
/// newline.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
