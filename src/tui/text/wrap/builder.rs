//! The output side of wrapping: cells appended to lines, a new line started with the
//! hanging indent, chars of one input span merged into one span.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::Cell;

/// Accumulates output lines; chars from the same input span are merged into one span.
pub(super) struct Builder<'a> {
    pub(super) line: &'a Line<'static>,
    pub(super) cells: &'a [Cell],
    pub(super) width: usize,
    pub(super) out: &'a mut Vec<Line<'static>>,
    pub(super) indent: Vec<Span<'static>>,
    pub(super) indent_width: usize,
    pub(super) spans: Vec<Span<'static>>,
    pub(super) text: String,
    pub(super) text_span: Option<usize>,
    /// Columns used on the current output line, indent included.
    pub(super) used: usize,
    /// Whether the current output line holds anything besides its indent.
    pub(super) has_content: bool,
}

impl Builder<'_> {
    /// Appends cells `start..end` to the current line without breaking.
    pub(super) fn emit(&mut self, start: usize, end: usize) {
        for i in start..end {
            self.push(self.cells[i]);
        }
    }

    /// Appends cells `start..end`, starting a new line whenever the next char would not fit.
    pub(super) fn emit_hard(&mut self, start: usize, end: usize) {
        for i in start..end {
            let cell = self.cells[i];
            if self.has_content && cell.width > 0 && self.used + cell.width > self.width {
                self.new_line();
            }
            self.push(cell);
        }
    }

    fn push(&mut self, cell: Cell) {
        if self.text_span != Some(cell.span) {
            self.flush_text();
            self.text_span = Some(cell.span);
        }
        self.text.push(cell.ch);
        self.used += cell.width;
        self.has_content = true;
    }

    fn flush_text(&mut self) {
        if let Some(span) = self.text_span.take() {
            let style = self
                .line
                .spans
                .get(span)
                .map_or(Style::default(), |s| s.style);
            self.spans
                .push(Span::styled(std::mem::take(&mut self.text), style));
        }
    }

    pub(super) fn new_line(&mut self) {
        self.flush_text();
        let spans = std::mem::replace(&mut self.spans, self.indent.clone());
        self.out.push(self.finished(spans));
        self.used = self.indent_width;
        self.has_content = false;
    }

    pub(super) fn finish(mut self) {
        self.flush_text();
        let spans = std::mem::take(&mut self.spans);
        self.out.push(self.finished(spans));
    }

    fn finished(&self, spans: Vec<Span<'static>>) -> Line<'static> {
        let mut line = Line::from(spans).style(self.line.style);
        line.alignment = self.line.alignment;
        line
    }
}
