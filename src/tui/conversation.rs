//! The conversation pane: typed cells, drawn from their per-width caches; only the visible
//! lines are cloned into the frame, so drawing does not grow with the history.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::cells::{Cell, CellKind, ToolCall, ToolState};
use super::scroll::Scroll;
use super::streaming_text::StreamingMarkdown;
use super::theme::Theme;

#[derive(Default)]
pub struct Conversation {
    cells: Vec<Cell>,
    tools: HashMap<String, usize>,
    selected: Option<usize>,
    pub scroll: Scroll,
    last_total: usize,
}

impl Conversation {
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    pub fn push(&mut self, kind: CellKind) {
        self.finish_streaming();
        if let CellKind::Tool(call) = &kind {
            self.tools.insert(call.id.clone(), self.cells.len());
        }
        self.cells.push(Cell::new(kind));
    }

    pub fn clear(&mut self) {
        *self = Conversation::default();
    }

    pub fn text_delta(&mut self, text: &str) {
        if let Some(CellKind::Assistant(md)) = self.cells.last_mut().map(|c| &mut c.kind)
            && md.is_streaming()
        {
            md.push(text);
            return;
        }
        let mut md = StreamingMarkdown::streaming();
        md.push(text);
        self.push(CellKind::Assistant(md));
    }

    pub fn thinking_delta(&mut self, delta: &str) {
        if let Some(cell) = self.cells.last_mut()
            && let CellKind::Thinking {
                text,
                streaming: true,
            } = cell.kind_mut()
        {
            text.push_str(delta);
            return;
        }
        self.push(CellKind::Thinking {
            text: delta.to_string(),
            streaming: true,
        });
    }

    /// The stream ended: streaming cells render whole, once.
    /// Strikes out the answer that was streaming (its attempt failed and was dropped).
    pub fn discard_streaming(&mut self, reason: &str) {
        if let Some(cell) = self.cells.last_mut()
            && let CellKind::Assistant(md) = &cell.kind
            && md.is_streaming()
        {
            let text = md.text().to_string();
            *cell = Cell::new(CellKind::Discarded {
                text,
                reason: reason.to_string(),
            });
        } else {
            self.push(CellKind::Notice(format!(
                "{} ({reason})",
                super::strings::DISCARDED
            )));
        }
    }

    pub fn finish_streaming(&mut self) {
        if let Some(cell) = self.cells.last_mut() {
            match &mut cell.kind {
                CellKind::Assistant(md) if md.is_streaming() => md.finish(),
                CellKind::Thinking {
                    streaming: s @ true,
                    ..
                } => {
                    *s = false;
                    cell.invalidate();
                }
                _ => {}
            }
        }
    }

    /// Adds the tool line (or updates it when it was already announced while streaming).
    pub fn tool(&mut self, id: &str, name: &str, summary: &str, state: ToolState) {
        if self.tools.contains_key(id) {
            self.update_tool(id, |c| {
                c.state = state;
                c.summary = summary.to_string();
            });
            return;
        }
        self.push(CellKind::Tool(ToolCall {
            id: id.to_string(),
            name: name.to_string(),
            summary: summary.to_string(),
            state,
            duration_ms: None,
            output: String::new(),
        }));
    }

    pub fn update_tool(&mut self, id: &str, f: impl FnOnce(&mut ToolCall)) {
        if let Some(&i) = self.tools.get(id)
            && let Some(CellKind::Tool(call)) = self.cells.get_mut(i).map(Cell::kind_mut)
        {
            f(call);
        }
    }

    /// Everything still marked active is cancelled (the turn was interrupted).
    pub fn cancel_unfinished(&mut self) {
        let ids: Vec<String> = self.tools.keys().cloned().collect();
        for id in ids {
            self.update_tool(&id, |c| {
                if c.state.is_active() {
                    c.state = ToolState::Cancelled;
                }
            });
        }
    }

    /// Drops width-dependent caches (the terminal was resized).
    pub fn invalidate(&mut self) {
        for c in &mut self.cells {
            c.invalidate();
            if let CellKind::Assistant(md) = &mut c.kind {
                md.invalidate();
            }
        }
    }

    fn expandable(&self) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&i| self.cells[i].is_expandable())
            .collect()
    }

    /// Moves the selection among tool calls and thinking blocks (`back`: towards older).
    pub fn select(&mut self, back: bool) {
        let items = self.expandable();
        if items.is_empty() {
            return;
        }
        let next = match self
            .selected
            .and_then(|s| items.iter().position(|&i| i == s))
        {
            None => *items.last().unwrap_or(&0),
            Some(p) if back => items[p.saturating_sub(1)],
            Some(p) => items[(p + 1).min(items.len() - 1)],
        };
        self.set_selected(Some(next));
    }

    fn set_selected(&mut self, sel: Option<usize>) {
        if let Some(old) = self.selected.and_then(|i| self.cells.get_mut(i)) {
            old.set_selected(false);
        }
        self.selected = sel;
        if let Some(new) = sel.and_then(|i| self.cells.get_mut(i)) {
            new.set_selected(true);
        }
    }

    pub fn toggle_selected(&mut self) {
        if self.selected.is_none() {
            self.select(true);
        }
        if let Some(cell) = self.selected.and_then(|i| self.cells.get_mut(i)) {
            cell.toggle();
        }
    }

    pub fn unfocus(&mut self) {
        self.set_selected(None);
    }

    pub fn draw(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let width = area.width;
        let heights: Vec<usize> = self
            .cells
            .iter_mut()
            .map(|c| c.height(width, theme))
            .collect();
        // Consecutive tool lines stay together; other cells get a blank line between them.
        let seps: Vec<usize> = (0..self.cells.len())
            .map(|i| {
                let tools = i > 0
                    && matches!(self.cells[i - 1].kind, CellKind::Tool(_))
                    && matches!(self.cells[i].kind, CellKind::Tool(_));
                usize::from(i > 0 && !tools)
            })
            .collect();
        let total: usize = heights.iter().sum::<usize>() + seps.iter().sum::<usize>();
        if !self.scroll.follows() && total > self.last_total {
            self.scroll.grew(total - self.last_total);
        }
        self.last_total = total;
        let (start, end) = self.scroll.window(total, area.height as usize);
        let mut lines: Vec<Line<'static>> = Vec::with_capacity(end - start);
        let mut y = 0usize;
        for (i, cell) in self.cells.iter_mut().enumerate() {
            let h = heights[i] + seps[i];
            if y + h <= start {
                y += h;
                continue;
            }
            if y >= end {
                break;
            }
            let (a, b) = cell.lines(width, theme);
            let sep = (seps[i] > 0).then(Line::default);
            for (k, line) in sep.iter().chain(a).chain(b).enumerate() {
                let row = y + k;
                if row >= start && row < end {
                    lines.push(line.clone());
                }
            }
            y += h;
        }
        f.render_widget(Paragraph::new(lines), area);
    }
}
