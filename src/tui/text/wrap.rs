//! Wrapping styled lines to a width (unicode-width aware), for the per-cell line cache.
//!
//! Greedy word wrap in one linear pass per line: span styles survive, double-width chars count
//! two columns, a zero-width char (combining mark, ZWJ) never starts a line, words wider than
//! the width are broken hard, and continuation lines of a list item or block quote keep the
//! item's indentation (and the quote bar).
//!
//! Widths are measured per grapheme cluster, as ratatui draws them (`Span::styled_graphemes`):
//! a cluster's chars can be wider together than one by one (`❤` plus U+FE0F is two columns,
//! each char alone one plus zero), and a line measured char by char would overflow the pane
//! and lose its end (found by the `markdown_wrap` fuzz target, FUZZING.md).

mod builder;
mod hanging;

use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use builder::Builder;
use hanging::{continuation_prefix, hanging_prefix_len};

/// Wraps every line to at most `width` display columns (a single char wider than the width
/// still gets a line of its own). Width 0 returns the lines unchanged. Lines keep their
/// style and alignment; whitespace at a wrap point is dropped.
pub fn wrap(lines: &[Line<'static>], width: u16) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        wrap_line_into(line, width, &mut out);
    }
    out
}

/// [`wrap`] for one line.
pub fn wrap_line(line: &Line<'static>, width: u16) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    wrap_line_into(line, width, &mut out);
    out
}

/// The columns `line` takes when drawn: the sum of its grapheme clusters' widths, span by
/// span (ratatui's [`Line::width`] measures each span's text as a whole, which can be less).
pub fn drawn_width(line: &Line<'_>) -> usize {
    line.spans
        .iter()
        .flat_map(|s| s.content.graphemes(true))
        .map(UnicodeWidthStr::width)
        .sum()
}

/// `line` cut to `width` columns, the last one an ellipsis.
fn cut(line: &Line<'static>, width: usize) -> Line<'static> {
    let mut room = width.saturating_sub(1);
    let mut spans = Vec::new();
    for s in &line.spans {
        let mut text = String::new();
        for g in s.content.graphemes(true) {
            let w = g.width();
            if w > room {
                room = 0;
                break;
            }
            room -= w;
            text.push_str(g);
        }
        if !text.is_empty() {
            spans.push(Span::styled(text, s.style));
        }
        if room == 0 {
            break;
        }
    }
    let style = line.spans.last().map(|s| s.style).unwrap_or_default();
    spans.push(Span::styled("…", style));
    let mut out = Line::from(spans);
    out.style = line.style;
    out.alignment = line.alignment;
    out
}

/// One char of the input line with its display width and the span it came from. The first
/// char of a grapheme cluster carries the cluster's width, the others zero; `space` is the
/// cluster's, so a wrap point never splits one (a space followed by a spacing mark such as
/// U+17C5 is one two-column cluster: dropping the space at a break left the mark to be
/// drawn alone, one column wider than counted — fuzz crash 9).
#[derive(Clone, Copy)]
struct Cell {
    ch: char,
    width: usize,
    span: usize,
    space: bool,
}

/// Marks a line that must stay on one row (a table row: broken across rows its columns no
/// longer line up): [`wrap`] cuts it with "…" instead. The mark is an explicit left
/// alignment, which draws exactly like the default.
pub fn one_row(line: Line<'static>) -> Line<'static> {
    line.left_aligned()
}

fn wrap_line_into(line: &Line<'static>, width: u16, out: &mut Vec<Line<'static>>) {
    let width = usize::from(width);
    if width == 0 || drawn_width(line) <= width {
        out.push(line.clone());
        return;
    }
    if line.alignment == Some(ratatui::layout::Alignment::Left) {
        out.push(cut(line, width));
        return;
    }
    let cells: Vec<Cell> = line
        .spans
        .iter()
        .enumerate()
        .flat_map(|(span, s)| {
            s.content.graphemes(true).flat_map(move |g| {
                let width = g.width();
                let space = g.chars().all(is_space);
                g.chars().enumerate().map(move |(i, ch)| Cell {
                    ch,
                    width: if i == 0 { width } else { 0 },
                    span,
                    space,
                })
            })
        })
        .collect();

    let prefix_len = hanging_prefix_len(&cells);
    let prefix_width: usize = cells[..prefix_len].iter().map(|c| c.width).sum();
    // A hanging indent wider than half the line would leave too little room for text, and
    // one that leaves less room than the widest cluster would push that cluster past the
    // edge of a continuation line (ratatui then drops it): both lines wrap unindented.
    // The room is checked last, so a line without a prefix never scans for it.
    let hanging = prefix_len > 0
        && prefix_width * 2 <= width
        && cells[prefix_len..]
            .iter()
            .all(|c| prefix_width + c.width <= width);

    let mut b = Builder {
        line,
        cells: &cells,
        width,
        out,
        indent: if hanging {
            continuation_prefix(line, &cells[..prefix_len])
        } else {
            Vec::new()
        },
        indent_width: if hanging { prefix_width } else { 0 },
        spans: Vec::new(),
        text: String::new(),
        text_span: None,
        used: 0,
        has_content: false,
    };

    let mut i = if hanging {
        b.emit(0, prefix_len);
        b.has_content = false;
        prefix_len
    } else {
        // Leading whitespace is content (indentation), not a wrap point.
        let end = run_end(&cells, 0, true);
        b.emit_hard(0, end);
        end
    };

    let mut pending: Option<(usize, usize, usize)> = None; // whitespace run: start, end, width
    while i < cells.len() {
        let is_space = cells[i].space;
        let end = run_end(&cells, i, is_space);
        let run_width: usize = cells[i..end].iter().map(|c| c.width).sum();
        if is_space {
            pending = Some((i, end, run_width));
        } else {
            let space_width = pending.map_or(0, |p| p.2);
            if b.has_content && b.used + space_width + run_width <= width {
                if let Some((s, e, _)) = pending {
                    b.emit(s, e);
                }
                b.emit(i, end);
            } else if !b.has_content && b.used + run_width <= width {
                b.emit(i, end);
            } else if b.indent_width + run_width <= width {
                b.new_line();
                b.emit(i, end);
            } else {
                // Wider than a whole line: start fresh, then break it wherever it reaches the edge.
                if b.has_content {
                    b.new_line();
                }
                b.emit_hard(i, end);
            }
            pending = None;
        }
        i = end;
    }
    b.finish();
}

/// End of the run of spaces (or of non-spaces) starting at `start`.
fn run_end(cells: &[Cell], start: usize, spaces: bool) -> usize {
    cells[start..]
        .iter()
        .position(|c| c.space != spaces)
        .map_or(cells.len(), |p| start + p)
}

fn is_space(c: char) -> bool {
    // A no-break space must not become a wrap point.
    c.is_whitespace() && c != '\u{a0}' && c != '\u{202f}'
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Modifier, Style};

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    fn wrap_str(s: &str, width: u16) -> Vec<String> {
        texts(&wrap(&[Line::from(s.to_string())], width))
    }

    #[test]
    fn short_lines_are_untouched() {
        assert_eq!(wrap_str("hello world", 20), ["hello world"]);
        assert_eq!(wrap_str("", 5), [""]);
    }

    #[test]
    fn wraps_at_word_boundaries_and_drops_break_spaces() {
        assert_eq!(
            wrap_str("the quick brown fox jumps", 10),
            ["the quick", "brown fox", "jumps"]
        );
    }

    #[test]
    fn keeps_span_styles_across_breaks() {
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let red = Style::default().fg(Color::Red);
        let line = Line::from(vec![
            Span::styled("bold words here ", bold),
            Span::styled("red", red),
            Span::raw("tail"),
        ]);
        let out = wrap(&[line], 10);
        assert_eq!(texts(&out), ["bold words", "here", "redtail"]);
        assert_eq!(out[0].spans[0].style, bold);
        assert_eq!(out[2].spans[0].style, red);
        assert_eq!(out[2].spans[0].content, "red");
        assert_eq!(out[2].spans[1].content, "tail");
    }

    #[test]
    fn hard_breaks_long_words() {
        assert_eq!(
            wrap_str("ab abcdefghijkl", 5),
            ["ab", "abcde", "fghij", "kl"]
        );
    }

    #[test]
    fn double_width_chars_count_two() {
        assert_eq!(wrap_str("中文字符测试", 5), ["中文", "字符", "测试"]);
        // A double-width char on a 1-column line overflows on its own line instead of looping.
        assert_eq!(wrap_str("中文", 1), ["中", "文"]);
    }

    #[test]
    fn combining_marks_stay_with_their_base() {
        let s = "e\u{301}e\u{301}e\u{301}e\u{301}";
        assert_eq!(wrap_str(s, 2), ["e\u{301}e\u{301}", "e\u{301}e\u{301}"]);
    }

    #[test]
    fn width_zero_and_one_terminate() {
        assert_eq!(wrap_str("abc def", 0), ["abc def"]);
        assert_eq!(wrap_str("ab c", 1), ["a", "b", "c"]);
        assert_eq!(wrap_str("- item text", 1).len(), 9);
    }

    #[test]
    fn list_items_keep_a_hanging_indent() {
        assert_eq!(
            wrap_str("  • one two three four", 12),
            ["  • one two", "    three", "    four"]
        );
        assert_eq!(
            wrap_str("12. alpha beta gamma", 12),
            ["12. alpha", "    beta", "    gamma"]
        );
    }

    #[test]
    fn quote_bars_repeat_on_continuation_lines() {
        let green = Style::default().fg(Color::Green);
        let line = Line::from(vec![
            Span::styled("│ ", green),
            Span::raw("quoted words that wrap"),
        ]);
        let out = wrap(&[line], 10);
        assert_eq!(texts(&out), ["│ quoted", "│ words", "│ that", "│ wrap"]);
        assert_eq!(out[1].spans[0].style, green);
    }

    #[test]
    fn leading_indentation_wider_than_half_is_plain_content() {
        assert_eq!(wrap_str("        abc def", 10), ["        ", "abc def"]);
    }

    #[test]
    fn keeps_line_style() {
        let style = Style::default().fg(Color::Blue);
        let out = wrap(&[Line::from("aaa bbb").style(style)], 3);
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|l| l.style == style));
    }

    #[test]
    fn one_megabyte_line_wraps_linearly() {
        let s = "x".repeat(1 << 20);
        let out = wrap(&[Line::from(s)], 80);
        assert_eq!(out.len(), (1 << 20) / 80 + 1);
        let words = "word ".repeat(200_000);
        let out = wrap(&[Line::from(words)], 80);
        assert!(out.iter().all(|l| l.width() <= 80));
    }

    /// Found through the markdown_wrap fuzz check (FUZZING.md): a char plus U+FE0F is one
    /// two-column cluster, so "❤️❤️" is four columns, not two, and must wrap at width 2 —
    /// measured char by char it stayed on one line and ratatui dropped the second heart.
    #[test]
    fn clusters_wider_than_their_chars_wrap_by_drawn_width() {
        assert_eq!(
            wrap_str("❤\u{fe0f}❤\u{fe0f}", 2),
            ["❤\u{fe0f}", "❤\u{fe0f}"]
        );
        assert_eq!(wrap_str("ab ❤\u{fe0f}", 3), ["ab", "❤\u{fe0f}"]);
        let table_row = one_row(Line::from("❤\u{fe0f}❤\u{fe0f}❤\u{fe0f}"));
        let out = wrap(&[table_row], 5);
        assert_eq!(texts(&out), ["❤\u{fe0f}❤\u{fe0f}…"]);
        assert!(drawn_width(&out[0]) <= 5);
    }

    /// Found by the markdown_wrap fuzz target (FUZZING.md, crash 8): two Hangul leading
    /// consonants form one four-column cluster, which fits a 5-column pane but not the
    /// three columns a quote's "│ " leaves; placed after the bar anyway, it overflowed.
    #[test]
    fn a_cluster_wider_than_the_room_after_the_indent_wraps_unindented() {
        let line = Line::from(vec![Span::raw("│ "), Span::raw("ab \u{1100}\u{1151} cd")]);
        let out = wrap(std::slice::from_ref(&line), 5);
        assert!(out.iter().all(|l| drawn_width(l) <= 5), "{:?}", texts(&out));
        assert_eq!(texts(&out), ["│ ab", "\u{1100}\u{1151}", "cd"]);
        // With room for it the bar still repeats.
        assert_eq!(
            texts(&wrap(&[line], 6)),
            ["│ ab", "│ \u{1100}\u{1151}", "│ cd"]
        );
    }

    /// Found by the markdown_wrap fuzz target (FUZZING.md, crash 9): a space and the
    /// Khmer spacing mark U+17C5 after it are one two-column cluster. Taken for a wrap
    /// point, the space was dropped and the mark began the next line alone, where it is
    /// drawn one column wide, not the zero it was counted: the line overflowed.
    #[test]
    fn a_space_joined_to_a_mark_is_not_a_wrap_point() {
        let s = "ab \u{17c5}\u{1851}cd";
        let out = wrap(&[Line::from(s)], 3);
        assert!(out.iter().all(|l| drawn_width(l) <= 3), "{:?}", texts(&out));
        assert_eq!(
            texts(&out).concat(),
            s,
            "nothing dropped: the space is content"
        );
    }
}
