//! `tooloop export SESSION --format md|html [-o FILE]`: a session as Markdown (tool calls as
//! collapsible `<details>`) or as one self-contained HTML page (no scripts, no external
//! files) with the session's timeline drawn as SVG when it was recorded.
//!
//! [`markdown`] and [`html`] take plain messages, so a front end can export what it holds
//! (a `/export` command) without a transcript on disk.

pub mod command;
pub mod html;
pub mod markdown;
pub mod timeline_svg;

use std::collections::HashMap;

use crate::message::{ContentBlock, Message, Role};

pub use html::html;
pub use markdown::markdown;

/// What is exported: the conversation and where it came from.
#[derive(Clone, Debug, Default)]
pub struct Conversation<'a> {
    /// "session 20261201-…" or any title.
    pub title: String,
    /// Lines shown under the title (workspace, created, model).
    pub about: Vec<String>,
    /// Messages a compaction replaced (shown first, under a divider).
    pub earlier: &'a [Message],
    pub messages: &'a [Message],
    /// Subagents' conversations, each shown under the `task` call that started it.
    pub agents: &'a [crate::session::load::ChildHistory],
}

/// A tool call's result, found by its tool_use id.
pub struct ToolResult<'a> {
    pub content: &'a str,
    pub is_error: bool,
    /// Images the tool returned (HTML shows them).
    pub images: &'a [crate::message::ImageSource],
}

/// Every tool_result of `messages`, by the id of the call it answers.
pub fn results_by_id(messages: &[Message]) -> HashMap<&str, ToolResult<'_>> {
    messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                images,
                ..
            } => Some((
                tool_use_id.as_str(),
                ToolResult {
                    content,
                    is_error: *is_error,
                    images,
                },
            )),
            _ => None,
        })
        .collect()
}

/// Whether a message holds only tool results (shown with their calls, not on their own).
pub fn only_results(m: &Message) -> bool {
    m.role == Role::User
        && !m.content.is_empty()
        && m.content
            .iter()
            .all(|b| matches!(b, ContentBlock::ToolResult { .. }))
}

/// The heading of a message.
pub fn role_label(role: Role) -> &'static str {
    match role {
        Role::User => "User",
        Role::Assistant => "Assistant",
    }
}

/// A one-line summary of a tool's input: its first string argument, else the JSON, cut.
pub fn input_summary(input: &serde_json::Value) -> String {
    let first = input
        .as_object()
        .and_then(|o| o.values().find_map(|v| v.as_str().map(str::to_string)));
    let s = first.unwrap_or_else(|| {
        if input.as_object().is_some_and(|o| o.is_empty()) {
            String::new()
        } else {
            input.to_string()
        }
    });
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match one_line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &one_line[..i]),
        None => one_line,
    }
}

#[cfg(test)]
mod media_tests;
