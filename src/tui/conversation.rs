//! The conversation pane: typed cells, drawn from their per-width caches; only the visible
//! lines are cloned into the frame, so drawing does not grow with the history.

use std::collections::HashSet;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::cells::{Cell, CellKind};
use super::keys::{Action, Hint, Scope, hint};
use super::pane::{EventState, Pane, PaneContext, scroll_key};
use super::scroll::Scroll;
use super::streaming_text::StreamingMarkdown;

#[derive(Default)]
pub struct Conversation {
    cells: Vec<Cell>,
    /// Ids of the tool calls that have a line here (their state is in the shared store).
    tools: HashSet<String>,
    selected: Option<usize>,
    /// The selection moved: the next layout scrolls it into view.
    reveal: bool,
    pub scroll: Scroll,
    last_total: usize,
    /// Set by `layout`: the visible line range and the blank line before each cell.
    window: (usize, usize),
    seps: Vec<usize>,
}

impl Conversation {
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    pub fn push(&mut self, kind: CellKind) {
        self.finish_streaming();
        if let CellKind::Tool(id) = &kind {
            self.tools.insert(id.clone());
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

    /// Adds the line for a tool call, once (it may be announced while still streaming).
    pub fn tool(&mut self, id: &str) {
        if !self.tools.contains(id) {
            self.push(CellKind::Tool(id.to_string()));
        }
    }

    /// Whether a tool call has a line here.
    pub fn shows_tool(&self, id: &str) -> bool {
        self.tools.contains(id)
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
            self.reveal = true;
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
}

/// Keys while focused: ←→ select a tool call or thinking block, Enter opens it, the rest
/// scrolls.
const HINTS: &[Hint] = &[
    hint(Action::ScrollUp, Scope::Pane, "scroll"),
    hint(Action::PrevItem, Scope::Pane, "select"),
    hint(Action::Toggle, Scope::Pane, "expand"),
    hint(Action::Cancel, Scope::Global, "back"),
];

impl Pane for Conversation {
    fn title(&self) -> &str {
        "conversation"
    }

    /// Wraps the cells for `area`'s width and fixes the visible window (a frame's layout
    /// step; `draw` then only reads).
    fn layout(&mut self, area: Rect, ctx: &PaneContext) {
        let (theme, calls) = (ctx.theme, ctx.tool_calls);
        if area.width == 0 || area.height == 0 {
            self.window = (0, 0);
            return;
        }
        let width = area.width;
        for c in &mut self.cells {
            c.prepare(width, theme, calls);
        }
        // Consecutive tool lines stay together; other cells get a blank line between them.
        self.seps = (0..self.cells.len())
            .map(|i| {
                let tools = i > 0
                    && matches!(self.cells[i - 1].kind, CellKind::Tool(_))
                    && matches!(self.cells[i].kind, CellKind::Tool(_));
                usize::from(i > 0 && !tools)
            })
            .collect();
        let total: usize =
            self.cells.iter().map(Cell::height).sum::<usize>() + self.seps.iter().sum::<usize>();
        if !self.scroll.follows() && total > self.last_total {
            self.scroll.grew(total - self.last_total);
        }
        self.last_total = total;
        if std::mem::take(&mut self.reveal)
            && let Some(sel) = self.selected.filter(|&i| i < self.cells.len())
        {
            let above: usize = self.cells[..sel].iter().map(Cell::height).sum::<usize>()
                + self.seps[..=sel].iter().sum::<usize>();
            let h = self.cells[sel].height();
            self.scroll
                .reveal(above, above + h, total, area.height as usize);
        }
        self.window = self.scroll.window(total, area.height as usize);
    }

    fn draw(&self, f: &mut Frame, area: Rect, _ctx: &PaneContext) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let (start, end) = self.window;
        let mut lines: Vec<Line<'static>> = Vec::with_capacity(end.saturating_sub(start));
        let mut y = 0usize;
        for (i, cell) in self.cells.iter().enumerate() {
            let sep_h = self.seps.get(i).copied().unwrap_or(0);
            let h = cell.height() + sep_h;
            if y + h <= start {
                y += h;
                continue;
            }
            if y >= end {
                break;
            }
            let (a, b) = cell.lines();
            let sep = (sep_h > 0).then(Line::default);
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

    fn handle(&mut self, action: Action) -> EventState {
        match action {
            Action::Toggle => self.toggle_selected(),
            Action::PrevItem => self.select(true),
            Action::NextItem => self.select(false),
            other => return scroll_key(&mut self.scroll, other),
        }
        EventState::Consumed
    }

    fn hints(&self) -> &'static [Hint] {
        HINTS
    }

    fn scroll(&mut self) -> &mut Scroll {
        &mut self.scroll
    }
}
