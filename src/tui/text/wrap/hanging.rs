//! The hanging indent of a wrapped list item or block quote: how long its prefix is (quote
//! bars, `• `, `12. `, `☐ `) and what its continuation lines start with instead.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::Cell;

fn is_bar(c: char) -> bool {
    matches!(c, '│' | '┃' | '▎' | '▏' | '▌')
}

/// Length (in cells) of a list / quote prefix: leading spaces and quote bars, then up to two
/// markers such as `• `, `- `, `12. `, `☐ `, each followed by a space.
pub(super) fn hanging_prefix_len(cells: &[Cell]) -> usize {
    let mut i = cells
        .iter()
        .position(|c| !(c.ch == ' ' || is_bar(c.ch)))
        .unwrap_or(cells.len());
    for _ in 0..2 {
        match marker_end(cells, i) {
            Some(end) => i = end,
            None => break,
        }
    }
    i
}

/// If a list marker followed by a space starts at `i`, the index after that space.
fn marker_end(cells: &[Cell], i: usize) -> Option<usize> {
    let first = cells.get(i)?.ch;
    let after = if matches!(
        first,
        '•' | '◦' | '▪' | '‣' | '·' | '-' | '*' | '+' | '☐' | '☑'
    ) {
        i + 1
    } else {
        let digits = cells[i..]
            .iter()
            .take(10)
            .take_while(|c| c.ch.is_ascii_digit())
            .count();
        if digits == 0 || !matches!(cells.get(i + digits)?.ch, '.' | ')') {
            return None;
        }
        i + digits + 1
    };
    (cells.get(after)?.ch == ' ').then_some(after + 1)
}

/// What continuation lines start with: the prefix with bars kept (in their style) and every
/// other char turned into spaces of the same width.
pub(super) fn continuation_prefix(line: &Line<'static>, prefix: &[Cell]) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut blanks = 0usize;
    for c in prefix {
        if is_bar(c.ch) {
            if blanks > 0 {
                spans.push(Span::raw(" ".repeat(blanks)));
                blanks = 0;
            }
            let style = line.spans.get(c.span).map_or(Style::default(), |s| s.style);
            spans.push(Span::styled(c.ch.to_string(), style));
        } else {
            blanks += c.width;
        }
    }
    if blanks > 0 {
        spans.push(Span::raw(" ".repeat(blanks)));
    }
    spans
}
