//! The prompt input: tui-textarea plus prompt history recall and paste hygiene.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};
use tui_textarea::TextArea;

use super::strings;
use super::theme::Theme;

/// Rows the input grows to before it scrolls inside itself.
const MAX_ROWS: u16 = 6;

pub struct Input {
    textarea: TextArea<'static>,
    history: Vec<String>,
    /// Index into `history` while Up/Down walk through it.
    recall: Option<usize>,
}

impl Default for Input {
    fn default() -> Self {
        let mut textarea = TextArea::default();
        textarea.set_placeholder_text(strings::INPUT_PLACEHOLDER);
        textarea.set_cursor_line_style(Style::default());
        Input {
            textarea,
            history: Vec::new(),
            recall: None,
        }
    }
}

impl Input {
    pub fn text(&self) -> String {
        self.textarea.lines().join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.textarea.lines().iter().all(|l| l.is_empty())
    }

    pub fn set_text(&mut self, text: &str) {
        self.clear();
        self.textarea.insert_str(text);
    }

    pub fn clear(&mut self) {
        let mut fresh = TextArea::default();
        fresh.set_placeholder_text(strings::INPUT_PLACEHOLDER);
        fresh.set_cursor_line_style(Style::default());
        self.textarea = fresh;
        self.recall = None;
    }

    /// Takes the text for sending and remembers it for Up recall.
    pub fn take(&mut self) -> String {
        let text = self.text();
        if self.history.last() != Some(&text) {
            self.history.push(text.clone());
        }
        self.clear();
        text
    }

    pub fn newline(&mut self) {
        self.recall = None;
        self.textarea.insert_newline();
    }

    /// Pasted text goes in as text: newlines stay newlines (never a send), other control
    /// characters are dropped, tabs become spaces.
    pub fn paste(&mut self, s: &str) {
        self.recall = None;
        let clean: String = s
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\t', "    ")
            .chars()
            .filter(|c| *c == '\n' || !c.is_control())
            .collect();
        self.textarea.insert_str(clean);
    }

    pub fn key(&mut self, key: KeyEvent) {
        self.recall = None;
        self.textarea.input(key);
    }

    /// Up on an empty input (or while recalling): the previous prompt. False if nothing.
    pub fn recall_prev(&mut self) -> bool {
        if self.history.is_empty() || !(self.is_empty() || self.recall.is_some()) {
            return false;
        }
        let i = match self.recall {
            None => self.history.len() - 1,
            Some(i) => i.saturating_sub(1),
        };
        self.show_recalled(i);
        true
    }

    pub fn recall_next(&mut self) -> bool {
        let Some(i) = self.recall else { return false };
        if i + 1 >= self.history.len() {
            self.clear();
        } else {
            self.show_recalled(i + 1);
        }
        true
    }

    pub fn is_recalling(&self) -> bool {
        self.recall.is_some()
    }

    fn show_recalled(&mut self, i: usize) {
        let text = self.history[i].clone();
        self.set_text(&text);
        self.recall = Some(i);
    }

    pub fn height(&self) -> u16 {
        (self.textarea.lines().len() as u16).clamp(1, MAX_ROWS) + 1
    }

    /// Sets the border, title and cursor for this frame (the layout step).
    pub fn layout(&mut self, focused: bool, note: Option<String>, theme: &Theme) {
        let border = if focused {
            theme.focus_border
        } else {
            theme.border
        };
        let mut block = Block::default().borders(Borders::TOP).border_style(border);
        if let Some(note) = note {
            block = block.title(Span::styled(
                note,
                theme.accent.add_modifier(Modifier::BOLD),
            ));
        }
        self.textarea.set_block(block);
        let cursor = if focused {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        self.textarea.set_cursor_style(cursor);
        self.textarea.set_placeholder_style(theme.dim);
    }

    pub fn draw(&self, f: &mut Frame, area: Rect) {
        f.render_widget(&self.textarea, area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_walks_history_and_back() {
        let mut i = Input::default();
        i.set_text("one");
        i.take();
        i.set_text("two");
        i.take();
        assert!(i.recall_prev());
        assert_eq!(i.text(), "two");
        assert!(i.recall_prev());
        assert_eq!(i.text(), "one");
        assert!(i.recall_next());
        assert_eq!(i.text(), "two");
        assert!(i.recall_next());
        assert!(i.is_empty());
    }

    #[test]
    fn paste_keeps_newlines_and_drops_escapes() {
        let mut i = Input::default();
        i.paste("a\r\nb\x1b[2J\tc");
        assert_eq!(i.text(), "a\nb[2J    c");
    }
}
