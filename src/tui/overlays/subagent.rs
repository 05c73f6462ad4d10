//! A subagent's conversation, read-only, over the panes (Enter on its `task` call, or
//! `/agents N`); Esc goes back. Built from the messages its events carried. Its keys come
//! from the key table (scope `Subagent`); it answers with a [`Step`].

use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::message::{ContentBlock, Message, Role};
use crate::sanitize::sanitize;
use crate::tui::keys::Action;
use crate::tui::theme::Theme;

/// What a key did to the view.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    Stay,
    Close,
}

pub struct SubagentView {
    title: String,
    lines: Vec<Line<'static>>,
    scroll: u16,
}

impl SubagentView {
    pub fn new(title: &str, messages: &[Arc<Message>], theme: &Theme) -> Self {
        let mut lines = Vec::new();
        for m in messages {
            let who = match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            lines.push(Line::styled(format!("── {who}"), theme.dim));
            for b in &m.content {
                match b {
                    ContentBlock::Text { text, .. } => {
                        lines.extend(text.lines().map(|l| Line::styled(sanitize(l), theme.text)))
                    }
                    ContentBlock::ToolUse { name, input, .. } => lines.push(Line::from(vec![
                        Span::styled("🔧 ", theme.dim),
                        Span::styled(sanitize(name), theme.tool_name),
                        Span::styled(
                            format!(
                                " {}",
                                sanitize(&crate::text::ellipsize(&input.to_string(), 200))
                            ),
                            theme.dim,
                        ),
                    ])),
                    ContentBlock::ToolResult {
                        content, is_error, ..
                    } => {
                        let style = if *is_error { theme.error } else { theme.dim };
                        for l in content.lines().take(8) {
                            lines.push(Line::styled(format!("  {}", sanitize(l)), style));
                        }
                        if content.lines().count() > 8 {
                            lines.push(Line::styled(
                                format!("  … {} more lines", content.lines().count() - 8),
                                theme.dim,
                            ));
                        }
                    }
                    ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => {
                        lines.push(Line::styled("✻ thinking", theme.dim))
                    }
                    ContentBlock::Image { .. } => lines.push(Line::styled("[image]", theme.dim)),
                    ContentBlock::Other(_) => {}
                }
            }
            lines.push(Line::default());
        }
        SubagentView {
            title: format!(" {} · read-only · Esc back ", sanitize(title)),
            lines,
            scroll: 0,
        }
    }

    /// A key, as the key table's action in the `Subagent` scope (None: not bound there,
    /// ignored).
    pub fn key(&mut self, action: Option<Action>) -> Step {
        let s = &mut self.scroll;
        match action {
            Some(Action::ScrollUp) => *s = s.saturating_sub(1),
            Some(Action::ScrollDown) => *s = s.saturating_add(1),
            Some(Action::PageUp) => *s = s.saturating_sub(10),
            Some(Action::PageDown) => *s = s.saturating_add(10),
            Some(Action::Top) => *s = 0,
            Some(Action::Cancel) => return Step::Close,
            _ => {}
        }
        Step::Stay
    }

    pub fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let rect = super::modal_box::centred(
            area,
            area.width.saturating_sub(2).max(8),
            area.height.saturating_sub(2).max(4),
        );
        let block = super::modal_box::block(self.title.clone(), theme).style(theme.base);
        f.render_widget(Clear, rect);
        f.render_widget(
            Paragraph::new(self.lines.clone())
                .block(block)
                .wrap(Wrap { trim: false })
                .scroll((self.scroll, 0)),
            rect,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keys::{Scope, action_for};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn key(view: &mut SubagentView, code: KeyCode, mods: KeyModifiers) -> Step {
        view.key(action_for(
            &KeyEvent::new(code, mods),
            Scope::Subagent,
            false,
        ))
    }

    #[test]
    fn keys_scroll_and_close_through_the_key_table() {
        let none = KeyModifiers::NONE;
        let mut view = SubagentView::new("explore #1", &[], &Theme::default());
        assert_eq!(key(&mut view, KeyCode::PageDown, none), Step::Stay);
        assert_eq!(view.scroll, 10);
        key(&mut view, KeyCode::Up, none);
        key(&mut view, KeyCode::Down, none);
        key(&mut view, KeyCode::Down, none);
        assert_eq!(view.scroll, 11);
        key(&mut view, KeyCode::PageUp, none);
        assert_eq!(view.scroll, 1);
        key(&mut view, KeyCode::Home, none);
        assert_eq!(view.scroll, 0);
        // Keys the table does not bind here do nothing (Ctrl+C included: the view is
        // read-only and closes with its own keys).
        for (code, mods) in [
            (KeyCode::Char('x'), none),
            (KeyCode::Char('c'), KeyModifiers::CONTROL),
            (KeyCode::Tab, none),
        ] {
            assert_eq!(key(&mut view, code, mods), Step::Stay);
        }
        for code in [KeyCode::Esc, KeyCode::Enter, KeyCode::Char('q')] {
            assert_eq!(key(&mut view, code, none), Step::Close, "{code:?}");
        }
    }
}
