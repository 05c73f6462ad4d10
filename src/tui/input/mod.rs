//! The prompt input: tui-textarea plus prompt history recall and paste hygiene.

pub mod history_search;
pub mod mention_complete;
pub mod menu;
pub mod prompt_history;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Position;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use tui_textarea::TextArea;
use unicode_width::UnicodeWidthChar;

use crate::tui::strings;
use crate::tui::theme::Theme;
use history_search::HistorySearch;

/// Rows the input grows to before it scrolls inside itself.
const MAX_ROWS: u16 = 6;
/// A paste of more lines than this shows as `[Pasted N lines]` (expanded when sent).
const COLLAPSE_PASTE_LINES: usize = 10;

/// One screen row of the input: (logical line, first char, end char).
type VisualRow = (usize, usize, usize);

pub struct Input {
    textarea: TextArea<'static>,
    /// Set by `layout`: whether the input has the focus (the terminal cursor sits at the
    /// caret then, where input methods open their window).
    focused: bool,
    history: Vec<String>,
    /// Index into `history` while Up/Down walk through it.
    recall: Option<usize>,
    /// Long pastes shown collapsed: (placeholder in the text, the pasted text).
    pastes: Vec<(String, String)>,
    /// Where sent prompts are kept across restarts (this workspace's history file).
    history_file: Option<std::path::PathBuf>,
    /// Ctrl+R, while it runs.
    search: Option<HistorySearch>,
    /// What the empty box shows (a replay shows its keys, not a prompt's invitation).
    placeholder: String,
}

impl Default for Input {
    fn default() -> Self {
        let mut textarea = TextArea::default();
        textarea.set_placeholder_text(strings::INPUT_PLACEHOLDER);
        textarea.set_cursor_line_style(Style::default());
        Input {
            textarea,
            focused: true,
            history: Vec::new(),
            recall: None,
            pastes: Vec::new(),
            history_file: None,
            search: None,
            placeholder: strings::INPUT_PLACEHOLDER.into(),
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

    /// Replaces what the empty box shows, now and after every clear.
    pub fn set_placeholder(&mut self, text: &str) {
        self.placeholder = text.to_string();
        self.textarea.set_placeholder_text(text);
    }

    pub fn clear(&mut self) {
        let mut fresh = TextArea::default();
        fresh.set_placeholder_text(self.placeholder.clone());
        fresh.set_cursor_line_style(Style::default());
        self.textarea = fresh;
        self.recall = None;
        self.pastes.clear();
    }

    /// The text as it would be sent: collapsed pastes expanded (a placeholder the user
    /// edited stays as typed).
    pub fn full_text(&self) -> String {
        let mut text = self.text();
        for (placeholder, pasted) in &self.pastes {
            text = text.replacen(placeholder.as_str(), pasted, 1);
        }
        text
    }

    /// Takes the text for sending and remembers it for Up recall.
    pub fn take(&mut self) -> String {
        let text = self.full_text();
        if self.history.last() != Some(&text) {
            self.history.push(text.clone());
            if let Some(path) = &self.history_file {
                prompt_history::append(path, &text);
            }
        }
        self.clear();
        text
    }

    /// Loads the prompts kept in `path` (Up recalls them) and keeps new ones there.
    pub fn use_history_file(&mut self, path: std::path::PathBuf) {
        self.history = prompt_history::load(&path);
        self.history_file = Some(path);
    }

    /// Sent prompts, oldest first (Ctrl+R searches them).
    pub fn history(&self) -> &[String] {
        &self.history
    }

    pub fn is_searching(&self) -> bool {
        self.search.is_some()
    }

    /// Ctrl+R: starts a search of the prompt history (again: the next older match).
    pub fn start_search(&mut self) {
        if self.search.is_none() {
            self.search = Some(HistorySearch::new(self.text()));
        }
    }

    /// A key during Ctrl+R. False when the key ends the search and should act as usual.
    pub fn search_key(&mut self, key: KeyEvent) -> bool {
        use crossterm::event::{KeyCode, KeyModifiers};
        let Some(mut s) = self.search.take() else {
            return false;
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let before = match key.code {
            KeyCode::Char('r') if ctrl => s.hit.unwrap_or(self.history.len()),
            KeyCode::Char('c' | 'g') if ctrl => {
                self.set_text(&s.original);
                return true;
            }
            KeyCode::Esc => {
                self.set_text(&s.original);
                return true;
            }
            KeyCode::Enter => return true,
            KeyCode::Backspace => {
                s.query.pop();
                self.history.len()
            }
            KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
                s.query.push(c);
                self.history.len()
            }
            // Anything else keeps the match and does what it does.
            _ => return false,
        };
        match s.find(&self.history, before) {
            Some(i) => {
                s.hit = Some(i);
                let text = self.history[i].clone();
                self.set_text(&text);
            }
            // No (older) match: the last one stays, the title says so.
            None if key.code != KeyCode::Char('r') => s.hit = None,
            None => {}
        }
        self.search = Some(s);
        true
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
        let lines = clean.lines().count();
        if lines > COLLAPSE_PASTE_LINES {
            let n = self.pastes.len() + 1;
            let placeholder = strings::pasted(lines, n);
            self.textarea.insert_str(&placeholder);
            self.pastes.push((placeholder, clean));
            return;
        }
        self.textarea.insert_str(clean);
    }

    /// An image file pasted as a path: the input shows `[image shot.png 120 KB]`, and the
    /// quoted path goes out in its place (the agent attaches the image it names).
    pub fn attach(&mut self, image: &crate::agent::attachments::Attachment) {
        self.recall = None;
        let label = image.label();
        let path = image.path.display().to_string().replace('\'', "");
        self.textarea.insert_str(format!("{label} "));
        self.pastes.push((label, format!("'{path}'")));
    }

    /// The caret's line up to the caret (what Tab completes).
    pub fn line_before_caret(&self) -> String {
        let (row, col) = self.textarea.cursor();
        let line = self.textarea.lines().get(row).map_or("", String::as_str);
        line.chars().take(col).collect()
    }

    /// Replaces the `n` characters before the caret with `with` (a completion).
    pub fn replace_before_caret(&mut self, n: usize, with: &str) {
        self.recall = None;
        for _ in 0..n {
            self.textarea.delete_char();
        }
        self.textarea.insert_str(with);
    }

    pub fn key(&mut self, key: KeyEvent) {
        self.recall = None;
        self.textarea.input(key);
    }

    /// Ctrl+U: delete from the caret to the start of the line, as in a shell.
    pub fn delete_to_line_start(&mut self) {
        self.recall = None;
        self.textarea.delete_line_by_head();
    }

    /// Ctrl+Z: undo the last edit (the editor widget's own Ctrl+U, moved).
    pub fn undo(&mut self) {
        self.recall = None;
        self.textarea.undo();
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

    /// Rows for the text wrapped at `width` columns (plus the border), at most MAX_ROWS.
    pub fn height(&self, width: u16) -> u16 {
        let (rows, _) = self.visual_rows(width.max(1) as usize);
        (rows.len() as u16).clamp(1, MAX_ROWS) + 1
    }

    /// The text wrapped by display width (a wide character never straddles the edge): each
    /// row as (line, first char, end char), and the caret as (row, column).
    fn visual_rows(&self, width: usize) -> (Vec<VisualRow>, (usize, usize)) {
        let (cur_line, cur_col) = self.textarea.cursor();
        let mut rows = Vec::new();
        let mut caret = (0, 0);
        for (li, line) in self.textarea.lines().iter().enumerate() {
            let (mut start, mut w) = (0, 0);
            let chars: Vec<char> = line.chars().collect();
            for (ci, c) in chars.iter().enumerate() {
                let cw = c.width().unwrap_or(0);
                if w + cw > width && ci > start {
                    rows.push((li, start, ci));
                    start = ci;
                    w = 0;
                }
                w += cw;
            }
            rows.push((li, start, chars.len()));
            if li == cur_line {
                let row = rows
                    .iter()
                    .rposition(|&(l, s, _)| l == li && s <= cur_col)
                    .unwrap_or(rows.len() - 1);
                let (_, s, _) = rows[row];
                let x: usize = chars[s..cur_col.min(chars.len())]
                    .iter()
                    .map(|c| c.width().unwrap_or(0))
                    .sum();
                caret = (row, x);
                if x >= width {
                    // The caret is past a full row: it starts the next one.
                    rows.push((li, chars.len(), chars.len()));
                    caret = (rows.len() - 1, 0);
                }
            }
        }
        (rows, caret)
    }

    /// Sets the border, title and cursor for this frame (the layout step).
    pub fn layout(&mut self, focused: bool, note: Option<String>, theme: &Theme) {
        let note = self.search.as_ref().map(HistorySearch::title).or(note);
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
        self.textarea.set_placeholder_style(theme.dim);
        self.focused = focused;
    }

    /// Draws the text wrapped by display width, scrolled so the caret's row shows, and puts
    /// the terminal's own cursor at the caret (right for wide characters too).
    pub fn draw(&self, f: &mut Frame, area: Rect) {
        let inner = match self.textarea.block() {
            Some(block) => {
                let inner = block.inner(area);
                f.render_widget(block.clone(), area);
                inner
            }
            None => area,
        };
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        if self.is_empty() {
            let hint = Span::styled(
                self.textarea.placeholder_text().to_string(),
                self.textarea.placeholder_style().unwrap_or_default(),
            );
            // One blank cell first: the cursor blinks there, not over the hint's first letter.
            f.render_widget(
                Paragraph::new(Line::from(vec![Span::raw(" "), hint])),
                inner,
            );
            if self.focused {
                f.set_cursor_position(Position::new(inner.x, inner.y));
            }
            return;
        }
        let (rows, (crow, cx)) = self.visual_rows(inner.width as usize);
        let height = inner.height as usize;
        let top = (crow + 1).saturating_sub(height);
        let lines = self.textarea.lines();
        let shown: Vec<Line> = rows[top..(top + height).min(rows.len())]
            .iter()
            .map(|&(l, s, e)| {
                let text: String = lines[l].chars().skip(s).take(e - s).collect();
                Line::raw(text)
            })
            .collect();
        f.render_widget(Paragraph::new(shown), inner);
        if self.focused {
            f.set_cursor_position(Position::new(
                inner.x + (cx as u16).min(inner.width - 1),
                inner.y + (crow - top) as u16,
            ));
        }
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
