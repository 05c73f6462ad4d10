//! The approval modal for tools that change things. It draws the tool's own preview (a
//! command, a diff, a new file's content) or else the JSON input, without knowing any tool
//! or field name. It sits on top and sees keys first.

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
use crate::agent::protocol::{AgentCommand, Decision, Preview};

/// Body lines shown at most; a huge write_file content must not build a huge modal.
const MAX_BODY_LINES: usize = 400;

#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalRequest {
    pub id: String,
    pub tool: String,
    pub input: Value,
    pub summary: String,
    /// What the tool says the call would change; None shows the input as JSON.
    pub preview: Option<Preview>,
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
            f.render_widget(Paragraph::new(line).style(theme.base), area);
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
        let mut title = strings::approval_title(&sanitize(&req.tool));
        if more > 0 {
            title.push_str(&format!("(+{more} waiting) "));
        }
        let block = Block::default()
            .style(theme.base)
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

fn body_lines(req: &ApprovalRequest, theme: &Theme) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    match &req.preview {
        Some(Preview::Command { text, note }) => {
            for (i, l) in sanitize(text).lines().enumerate() {
                let p = if i == 0 { "$ " } else { "  " };
                out.push(Line::from(vec![
                    Span::styled(p, theme.dim),
                    Span::styled(l.to_string(), theme.text.add_modifier(Modifier::BOLD)),
                ]));
            }
            if let Some(note) = note {
                out.push(Line::styled(sanitize(note), theme.dim));
            }
        }
        Some(Preview::Diff {
            path,
            unified_diff,
            note,
        }) => {
            out.push(Line::styled(sanitize(path), theme.accent));
            out.extend(diff_lines(unified_diff, theme));
            if let Some(note) = note {
                out.push(Line::styled(sanitize(note), theme.dim));
            }
        }
        Some(Preview::NewFile { path, content }) => {
            let content = sanitize(content);
            out.push(Line::styled(
                format!("{} ({} lines)", sanitize(path), content.lines().count()),
                theme.accent,
            ));
            for l in content.lines() {
                out.push(Line::styled(format!("+ {l}"), theme.ok));
            }
        }
        None => out.extend(json_view::render(&req.input)),
    }
    out.truncate(MAX_BODY_LINES);
    out
}

/// A unified diff's body, one styled line per change. File headers (before the first hunk)
/// and hunk markers are left out: the path is the first line already.
fn diff_lines(diff: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut in_hunk = false;
    let mut out = Vec::new();
    for l in diff.lines() {
        if l.starts_with("@@") {
            in_hunk = true;
            continue;
        }
        if !in_hunk || l.starts_with('\\') {
            continue;
        }
        let (sign, st) = match l.chars().next() {
            Some('-') => ("-", theme.error),
            Some('+') => ("+", theme.ok),
            _ => (" ", theme.dim),
        };
        let text = l.get(1..).unwrap_or("");
        out.push(Line::styled(format!("{sign} {}", sanitize(text)), st));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn diff_lines_skip_headers_but_keep_changed_lines_that_look_like_them() {
        let diff = "--- a/x.sql\n+++ b/x.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n keep\n\\ No newline at end of file\n";
        let got = text(&diff_lines(diff, &Theme::default()));
        assert_eq!(got, vec!["- -- old comment", "+ ++ new comment", "  keep"]);
    }

    #[test]
    fn a_tool_without_a_preview_shows_its_input_as_json() {
        let req = ApprovalRequest {
            id: "m1".into(),
            tool: "mcp__srv__do".into(),
            input: serde_json::json!({"target": "x"}),
            summary: "x".into(),
            preview: None,
        };
        let got = text(&body_lines(&req, &Theme::default())).join("\n");
        assert!(got.contains("\"target\"") && got.contains("\"x\""), "{got}");
        let req = ApprovalRequest {
            preview: Some(Preview::Command {
                text: "ls\x1b[2J -la".into(),
                note: Some("timeout 5 ms".into()),
            }),
            ..req
        };
        let got = text(&body_lines(&req, &Theme::default()));
        assert_eq!(got.len(), 2);
        assert!(
            got[0].starts_with("$ ls") && !got[0].contains('\x1b'),
            "{got:?}"
        );
        assert_eq!(got[1], "timeout 5 ms");
    }
}
