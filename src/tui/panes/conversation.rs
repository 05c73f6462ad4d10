//! The conversation pane: typed cells, drawn from their per-width caches; only the visible
//! lines are cloned into the frame, and only the cells that changed are re-prepared (their
//! heights sit in a Fenwick tree), so a frame's work does not grow with the history.
//!
//! Memory does not grow with it either: only cells within a few screens of the view keep
//! their rendered lines. The others keep their height (in the tree) and their text, and are
//! rendered again when scrolled back to (the layout step, before drawing).

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::tui::keys::{Action, Hint, Scope, hint};
use crate::tui::panes::cells::{Cell, CellKind};
use crate::tui::panes::heights::Heights;
use crate::tui::panes::scroll::Scroll;
use crate::tui::panes::{EventState, Pane, PaneContext, scroll_key};
use crate::tui::text::streaming::StreamingMarkdown;

/// Screens of lines above and below the view whose cells keep their rendered lines, so
/// scrolling a page or two renders nothing again.
const KEEP_SCREENS: usize = 4;
/// Cells prepared since the last sweep before the next one runs: sweeps are O(cells kept),
/// so this makes them rare (a long prompt adds two cells a turn).
const SWEEP_SLACK: usize = 128;

#[derive(Default)]
pub struct Conversation {
    cells: Vec<Cell>,
    /// Tool calls that have a line here, by id → cell (their state is in the shared store).
    tools: HashMap<String, usize>,
    selected: Option<usize>,
    /// The selection moved: the next layout scrolls it into view.
    reveal: bool,
    pub scroll: Scroll,
    last_total: usize,
    /// Set by `layout`: the visible line range, and the first visible cell with its first line.
    window: (usize, usize),
    first: (usize, usize),
    /// Whether a blank line goes before each cell (consecutive tool lines stay together).
    seps: Vec<bool>,
    /// Per cell: blank line + its prepared lines.
    heights: Heights,
    /// Cells to prepare again at the next layout (changed since the last one).
    dirty: Vec<usize>,
    /// Every cell must be prepared again (new width or theme).
    all_dirty: bool,
    width: u16,
    /// `ToolCalls::clock` at the last layout: changes after it re-prepare their tool lines.
    seen_tools: u64,
    /// Cells prepared since the last sweep (may repeat): the only ones that can hold lines
    /// away from the view. Every other cell is evicted.
    resident: Vec<usize>,
    /// `resident.len()` right after the last sweep.
    swept: usize,
}

impl Conversation {
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The cell chosen with Tab and the arrows, if any.
    pub fn selected_cell(&self) -> Option<&Cell> {
        self.cells.get(self.selected?)
    }

    pub fn push(&mut self, kind: CellKind) {
        self.finish_streaming();
        let i = self.cells.len();
        let tools = i > 0
            && matches!(self.cells[i - 1].kind, CellKind::Tool(_))
            && matches!(kind, CellKind::Tool(_));
        let sep = i > 0 && !tools;
        if let CellKind::Tool(id) = &kind {
            self.tools.insert(id.clone(), i);
        }
        self.cells.push(Cell::new(kind));
        self.seps.push(sep);
        self.heights.push(usize::from(sep));
        self.dirty.push(i);
    }

    /// The last cell changed (a delta, the end of a stream).
    fn touch_last(&mut self) {
        if let Some(i) = self.cells.len().checked_sub(1) {
            self.dirty.push(i);
        }
    }

    pub fn clear(&mut self) {
        *self = Conversation::default();
    }

    pub fn text_delta(&mut self, text: &str) {
        if let Some(CellKind::Assistant(md)) = self.cells.last_mut().map(|c| &mut c.kind)
            && md.is_streaming()
        {
            md.push(text);
            self.touch_last();
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
            self.touch_last();
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
            self.touch_last();
        } else {
            self.push(CellKind::Notice(format!(
                "{} ({reason})",
                crate::tui::strings::DISCARDED
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
                _ => return,
            }
            self.touch_last();
        }
    }

    /// Adds the line for a tool call, once (it may be announced while still streaming).
    pub fn tool(&mut self, id: &str) {
        if !self.tools.contains_key(id) {
            self.push(CellKind::Tool(id.to_string()));
        }
    }

    /// Opens a tool call's line to show its output (the user's own `!command`).
    pub fn expand_tool(&mut self, id: &str) {
        if let Some(&i) = self.tools.get(id)
            && let Some(cell) = self.cells.get_mut(i)
            && !cell.is_expanded()
        {
            cell.toggle();
            self.dirty.push(i);
        }
    }

    /// Whether a tool call has a line here.
    pub fn shows_tool(&self, id: &str) -> bool {
        self.tools.contains_key(id)
    }

    /// Drops width-dependent caches (the terminal was resized, or the theme changed).
    pub fn invalidate(&mut self) {
        for c in &mut self.cells {
            c.invalidate();
            if let CellKind::Assistant(md) = &mut c.kind {
                md.invalidate();
            }
        }
        self.all_dirty = true;
    }

    /// Moves the selection among tool calls and thinking blocks (`back`: towards older);
    /// looks only as far as the next one, not through the whole history.
    pub fn select(&mut self, back: bool) {
        let n = self.cells.len();
        let ok = |i: &usize| self.cells[*i].is_expandable();
        let current = self
            .selected
            .filter(|&s| s < n && self.cells[s].is_expandable());
        let next = match current {
            None => (0..n).rev().find(ok),
            Some(s) if back => (0..s).rev().find(ok).or(Some(s)),
            Some(s) => (s + 1..n).find(ok).or(Some(s)),
        };
        if next.is_some() {
            self.set_selected(next);
        }
    }

    fn set_selected(&mut self, sel: Option<usize>) {
        if let Some(i) = self.selected
            && let Some(old) = self.cells.get_mut(i)
        {
            old.set_selected(false);
            self.dirty.push(i);
        }
        self.selected = sel;
        if let Some(i) = sel
            && let Some(new) = self.cells.get_mut(i)
        {
            new.set_selected(true);
            self.dirty.push(i);
            self.reveal = true;
        }
    }

    pub fn toggle_selected(&mut self) {
        if self.selected.is_none() {
            self.select(true);
        }
        if let Some(i) = self.selected
            && let Some(cell) = self.cells.get_mut(i)
        {
            cell.toggle();
            self.dirty.push(i);
        }
    }

    /// Prepares the cells that changed (or all of them after a resize) and keeps their
    /// heights current: O(changed cells · log n) per frame.
    fn prepare(&mut self, width: u16, ctx: &PaneContext) {
        let (theme, calls) = (ctx.theme, ctx.tool_calls);
        if width != self.width {
            self.width = width;
            self.all_dirty = true;
        }
        if !self.all_dirty && calls.clock() != self.seen_tools {
            match calls.changed_since(self.seen_tools) {
                Some(ids) => self
                    .dirty
                    .extend(ids.filter_map(|id| self.tools.get(id).copied())),
                None => self.dirty.extend(self.tools.values().copied()),
            }
        }
        self.seen_tools = calls.clock();
        if self.all_dirty {
            // Every height at the new width; the lines are dropped at once (the view's cells
            // are prepared again by `prepare_visible`), so a resize does not hold them all.
            self.all_dirty = false;
            self.dirty.clear();
            self.resident.clear();
            self.swept = 0;
            let mut vals = Vec::with_capacity(self.cells.len());
            for (c, sep) in self.cells.iter_mut().zip(&self.seps) {
                c.prepare(width, theme, calls);
                vals.push(usize::from(*sep) + c.height());
                c.evict();
            }
            self.heights.rebuild(vals);
            return;
        }
        for i in std::mem::take(&mut self.dirty) {
            if let Some(c) = self.cells.get_mut(i) {
                c.prepare(width, theme, calls);
                let h = usize::from(self.seps[i]) + c.height();
                self.heights.set(i, h);
                self.resident.push(i);
            }
        }
    }

    /// Prepares the cells in the visible window that were evicted (scrolled back to).
    /// Returns whether a height changed (then the window is computed again).
    fn prepare_visible(&mut self, width: u16, ctx: &PaneContext) -> bool {
        let end = self.window.1;
        let (mut i, mut y) = self.first;
        let mut changed = false;
        while i < self.cells.len() && y < end {
            let h = self.heights.get(i);
            if !self.cells[i].has_lines(width)
                && self.cells[i].prepare(width, ctx.theme, ctx.tool_calls)
            {
                self.resident.push(i);
                let now = usize::from(self.seps[i]) + self.cells[i].height();
                if now != h {
                    self.heights.set(i, now);
                    changed = true;
                }
            }
            y += h;
            i += 1;
        }
        changed
    }

    /// Evicts the cells prepared since the last sweep that are now more than KEEP_SCREENS
    /// screens from the view; runs once SWEEP_SLACK more cells were prepared.
    fn sweep(&mut self, rows: usize) {
        if self.resident.len() <= self.swept + SWEEP_SLACK {
            return;
        }
        let margin = KEEP_SCREENS * rows.max(1);
        let lo = self.window.0.saturating_sub(margin);
        let hi = self.window.1 + margin;
        let mut kept = std::mem::take(&mut self.resident);
        kept.sort_unstable();
        kept.dedup();
        let (cells, heights) = (&mut self.cells, &self.heights);
        kept.retain(|&i| {
            let Some(cell) = cells.get_mut(i) else {
                return false;
            };
            let top = heights.prefix(i);
            let near = top + heights.get(i) > lo && top < hi;
            if !near {
                cell.evict();
            }
            near
        });
        self.swept = kept.len();
        self.resident = kept;
    }

    /// The rows of the window `layout` placed, cloned from the cells' prepared lines.
    fn visible_lines(&self) -> Vec<Line<'static>> {
        let (start, end) = self.window;
        let mut lines: Vec<Line<'static>> = Vec::with_capacity(end.saturating_sub(start));
        let (first, mut y) = self.first;
        for (i, cell) in self.cells.iter().enumerate().skip(first) {
            if y >= end {
                break;
            }
            let sep = self.seps.get(i).copied().unwrap_or(false);
            // The kept height: a cell in the window was prepared by `layout` (were it not,
            // its rows stay blank rather than moving the cells below).
            let h = self.heights.get(i);
            let (a, b) = cell.lines();
            let blank = Line::default();
            let mut rows = sep.then_some(&blank).into_iter().chain(a).chain(b);
            for row in y..(y + h).min(end) {
                let line = rows.next().unwrap_or(&blank);
                if row >= start {
                    lines.push(line.clone());
                }
            }
            y += h;
        }
        lines
    }

    /// Cells holding rendered lines right now.
    #[cfg(test)]
    fn resident_cells(&self) -> usize {
        self.cells.iter().filter(|c| c.height() > 0).count()
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
        if area.width == 0 || area.height == 0 {
            self.window = (0, 0);
            return;
        }
        self.prepare(area.width, ctx);
        let reveal = std::mem::take(&mut self.reveal);
        // Twice at most: a cell scrolled back to is rendered again, and if its height came
        // out different from the one kept, the window is placed once more.
        for _ in 0..2 {
            let total = self.heights.total();
            if !self.scroll.follows() && total > self.last_total {
                self.scroll.grew(total - self.last_total);
            }
            self.last_total = total;
            if reveal && let Some(sel) = self.selected.filter(|&i| i < self.cells.len()) {
                // Lines above the selected cell: every cell before it, and its own blank line.
                let sep = usize::from(self.seps[sel]);
                let above = self.heights.prefix(sel) + sep;
                let h = self.heights.get(sel).saturating_sub(sep);
                self.scroll
                    .reveal(above, above + h, total, area.height as usize);
            }
            self.window = self.scroll.window(total, area.height as usize);
            self.first = self.heights.find(self.window.0);
            if !self.prepare_visible(area.width, ctx) {
                break;
            }
        }
        self.sweep(area.height as usize);
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &PaneContext) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        f.render_widget(Paragraph::new(self.visible_lines()), area);
        if self.scroll.new_below() {
            crate::tui::panes::scroll::draw_new_output(f, area, ctx.theme);
        }
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

#[cfg(test)]
#[path = "conversation_tests.rs"]
mod tests;
