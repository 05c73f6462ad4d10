//! The approval modal for tools that change things: the command for bash, a diff for
//! edit_file, the content for write_file, the JSON input otherwise. It sits on top and sees
//! keys first.

use std::collections::VecDeque;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use serde_json::Value;

use super::json_view;
use super::keys::Action;
use super::sanitize::sanitize;
use super::strings;
use super::theme::Theme;
use super::wrap::wrap;
use crate::agent::protocol::{AgentCommand, Decision};
use crate::sandbox::DENIED_KEY;

/// Body lines shown at most; a huge write_file content must not build a huge modal.
const MAX_BODY_LINES: usize = 400;

#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalRequest {
    pub id: String,
    pub tool: String,
    pub input: Value,
}

#[derive(Default)]
pub struct Approvals {
    queue: VecDeque<ApprovalRequest>,
}

impl Approvals {
    pub fn push(&mut self, req: ApprovalRequest) {
        self.queue.push_back(req);
    }

    pub fn current(&self) -> Option<&ApprovalRequest> {
        self.queue.front()
    }

    pub fn is_open(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The question was settled elsewhere (an abort, a rule): forget it.
    pub fn remove(&mut self, id: &str) {
        self.queue.retain(|r| r.id != id);
    }

    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// The reply for an approval key, or None if the key means nothing here.
    pub fn answer(&mut self, action: Action) -> Option<AgentCommand> {
        let decision = match action {
            Action::AllowOnce => Decision::AllowOnce,
            Action::AllowSession => Decision::AllowForSession,
            Action::Deny => Decision::Deny {
                reason: Some("denied by the user".into()),
            },
            _ => return None,
        };
        let req = self.queue.pop_front()?;
        Some(AgentCommand::PermissionReply {
            id: req.id,
            decision,
        })
    }

    pub fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let Some(req) = self.current() else { return };
        if area.width < 8 || area.height < 4 {
            // Too small for a box: one line that still says what is asked and how to answer.
            let line = Line::styled(
                format!("allow {}? y/a/n", sanitize(&req.tool)),
                theme.accent,
            );
            f.render_widget(Clear, area);
            f.render_widget(Paragraph::new(line), area);
            return;
        }
        let w = area.width.saturating_sub(4).clamp(8, 100);
        let inner_w = w.saturating_sub(2).max(1);
        let mut body = wrap(&body_lines(req, theme), inner_w);
        body.push(Line::default());
        body.push(Line::styled(
            strings::APPROVAL_KEYS,
            theme.accent.add_modifier(Modifier::BOLD),
        ));
        let h = (body.len() as u16 + 2)
            .min(area.height.saturating_sub(2))
            .max(4);
        let rect = Rect {
            x: area.x + (area.width.saturating_sub(w)) / 2,
            y: area.y + (area.height.saturating_sub(h)) / 2,
            width: w,
            height: h,
        };
        let more = self.queue.len().saturating_sub(1);
        let mut title = if req.input.get(DENIED_KEY).is_some() {
            strings::OUTSIDE_SANDBOX_TITLE.to_string()
        } else {
            strings::approval_title(&sanitize(&req.tool))
        };
        if more > 0 {
            title.push_str(&format!("(+{more} waiting) "));
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.accent)
            .title(Span::styled(
                title,
                theme.accent.add_modifier(Modifier::BOLD),
            ));
        let inner = block.inner(rect);
        // Keep the key line visible when the body is taller than the box.
        let room = inner.height as usize;
        if body.len() > room && room >= 2 {
            let keys = body.split_off(body.len() - 1);
            body.truncate(room - 1);
            body.extend(keys);
        }
        f.render_widget(Clear, rect);
        f.render_widget(block, rect);
        f.render_widget(Paragraph::new(body), inner);
    }
}

fn field<'a>(input: &'a Value, key: &str) -> &'a str {
    input.get(key).and_then(Value::as_str).unwrap_or("")
}

fn body_lines(req: &ApprovalRequest, theme: &Theme) -> Vec<Line<'static>> {
    let input = &req.input;
    let mut out: Vec<Line<'static>> = Vec::new();
    match req.tool.as_str() {
        "bash" => {
            if let Some(note) = input.get(DENIED_KEY).and_then(Value::as_str) {
                out.push(Line::styled(sanitize(note), theme.error));
                out.push(Line::styled(strings::OUTSIDE_SANDBOX_NOTE, theme.dim));
            }
            for (i, l) in sanitize(field(input, "command")).lines().enumerate() {
                let p = if i == 0 { "$ " } else { "  " };
                out.push(Line::from(vec![
                    Span::styled(p, theme.dim),
                    Span::styled(l.to_string(), theme.text.add_modifier(Modifier::BOLD)),
                ]));
            }
            if let Some(t) = input.get("timeout_ms").and_then(Value::as_u64) {
                out.push(Line::styled(format!("timeout {t} ms"), theme.dim));
            }
        }
        "edit_file" => {
            out.push(Line::styled(sanitize(field(input, "path")), theme.accent));
            let old = sanitize(field(input, "old_string"));
            let new = sanitize(field(input, "new_string"));
            let diff = similar::TextDiff::from_lines(&old, &new);
            for change in diff.iter_all_changes() {
                let (sign, st) = match change.tag() {
                    similar::ChangeTag::Delete => ("-", theme.error),
                    similar::ChangeTag::Insert => ("+", theme.ok),
                    similar::ChangeTag::Equal => (" ", theme.dim),
                };
                let text = change.value().trim_end_matches('\n').to_string();
                out.push(Line::styled(format!("{sign} {text}"), st));
            }
            if input.get("replace_all").and_then(Value::as_bool) == Some(true) {
                out.push(Line::styled("(every occurrence)", theme.dim));
            }
        }
        "write_file" => {
            let content = sanitize(field(input, "content"));
            out.push(Line::styled(
                format!(
                    "{} ({} lines)",
                    sanitize(field(input, "path")),
                    content.lines().count()
                ),
                theme.accent,
            ));
            for l in content.lines() {
                out.push(Line::styled(format!("+ {l}"), theme.ok));
            }
        }
        _ => out.extend(json_view::render(input)),
    }
    out.truncate(MAX_BODY_LINES);
    out
}
