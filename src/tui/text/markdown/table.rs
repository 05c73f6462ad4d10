//! Markdown tables: cells collected while parsing, laid out as aligned columns at the end.

use pulldown_cmark::Alignment;
use ratatui::style::Style;
use ratatui::text::Span;

/// One table being collected: rows of cells, each cell a list of styled spans.
pub(super) struct Table {
    alignments: Vec<Alignment>,
    header: Option<Vec<Vec<Span<'static>>>>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    row: Vec<Vec<Span<'static>>>,
    /// The cell being filled, if inside one.
    pub(super) cell: Option<Vec<Span<'static>>>,
}

impl Table {
    pub(super) fn new(alignments: Vec<Alignment>) -> Self {
        Table {
            alignments,
            header: None,
            rows: Vec::new(),
            row: Vec::new(),
            cell: None,
        }
    }

    pub(super) fn end_cell(&mut self) {
        let cell = self.cell.take().unwrap_or_default();
        self.row.push(cell);
    }

    pub(super) fn end_header(&mut self) {
        self.header = Some(std::mem::take(&mut self.row));
    }

    pub(super) fn end_row(&mut self) {
        let row = std::mem::take(&mut self.row);
        self.rows.push(row);
    }

    /// The table as lines of spans (without any container prefix): the header in
    /// `header_style`, a `─┼─` rule under it, then the body; columns separated by ` │ `.
    pub(super) fn layout(mut self, header_style: Style, rule: Style) -> Vec<Vec<Span<'static>>> {
        if !self.row.is_empty() {
            // A row cut off mid-way (the reply is still streaming).
            self.end_row();
        }
        let columns = self
            .header
            .iter()
            .chain(&self.rows)
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        if columns == 0 {
            return Vec::new();
        }
        let mut widths = vec![1usize; columns];
        for row in self.header.iter().chain(&self.rows) {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell_width(cell));
            }
        }

        let mut lines = Vec::with_capacity(self.rows.len() + 2);
        if let Some(header) = self.header.take() {
            let header = header
                .into_iter()
                .map(|cell| {
                    cell.into_iter()
                        .map(|s| {
                            let style = s.style.patch(header_style);
                            s.style(style)
                        })
                        .collect()
                })
                .collect();
            lines.push(self.row_line(header, &widths, rule));
            let mut sep = Vec::new();
            for (i, w) in widths.iter().enumerate() {
                let joint = if i == 0 { "" } else { "─┼─" };
                sep.push(format!("{joint}{}", "─".repeat(*w)));
            }
            lines.push(vec![Span::styled(sep.concat(), rule)]);
        }
        for row in std::mem::take(&mut self.rows) {
            lines.push(self.row_line(row, &widths, rule));
        }
        lines
    }

    fn row_line(
        &self,
        mut row: Vec<Vec<Span<'static>>>,
        widths: &[usize],
        rule: Style,
    ) -> Vec<Span<'static>> {
        row.resize_with(widths.len(), Vec::new);
        let mut out = Vec::new();
        let last = widths.len() - 1;
        for (i, (cell, &width)) in row.into_iter().zip(widths).enumerate() {
            if i > 0 {
                out.push(Span::styled(" │ ", rule));
            }
            let pad = width.saturating_sub(cell_width(&cell));
            let (left, right) = match self.alignments.get(i) {
                Some(Alignment::Right) => (pad, 0),
                Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                _ => (0, pad),
            };
            if left > 0 {
                out.push(Span::raw(" ".repeat(left)));
            }
            out.extend(cell);
            if right > 0 && i < last {
                out.push(Span::raw(" ".repeat(right)));
            }
        }
        // No trailing blanks (short last cells): they would only cause early wraps.
        while let Some(span) = out.last_mut() {
            let trimmed = span.content.trim_end();
            if trimmed.is_empty() {
                out.pop();
            } else {
                if trimmed.len() < span.content.len() {
                    span.content = trimmed.to_string().into();
                }
                break;
            }
        }
        out
    }
}

fn cell_width(cell: &[Span<'static>]) -> usize {
    cell.iter().map(Span::width).sum()
}
