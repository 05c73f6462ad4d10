//! The timeline: the model's stream and each tool as bars on one time axis, so parallel
//! tools (or their absence under `--tool-exec serial`) are visible at a glance.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span as TextSpan};
use ratatui::widgets::Paragraph;
use tokio::time::Instant;

use crate::tui::text::fit::{fit, format_duration};
use crate::tui::theme::Theme;

pub struct Span {
    pub start: Instant,
    /// When the call was queued, drawn as dots up to `start`.
    pub queued: Option<Instant>,
    pub end: Instant,
    pub style: Style,
    pub fill: &'static str,
}

/// One row: its label and its bars; a picked row's label stands out (the rows of a picked
/// subagent's lane).
pub struct Row {
    pub label: String,
    pub spans: Vec<Span>,
    pub picked: bool,
}

/// Cuts a label to `w` columns, keeping the suffix that tells it apart: an agent's number
/// (`explore #2`) or a call's ordinal (`glob (2)`).
fn fit_label(label: &str, w: usize) -> String {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let tail = label.rfind(' ').map(|i| &label[i..]).filter(|t| {
        t.strip_prefix(" #").is_some_and(digits)
            || t.strip_prefix(" (")
                .and_then(|t| t.strip_suffix(')'))
                .is_some_and(digits)
    });
    match tail {
        Some(t) if w > t.len() + 2 => {
            let name = &label[..label.len() - t.len()];
            format!("{}{t}", fit(name, w - t.len()))
        }
        _ => fit(label, w),
    }
}

/// Draws `rows` (the first ones that fit: the caller chose them) with time running from
/// `t0` to the last end (or `now` while something is active), and an axis line at the
/// bottom.
pub fn draw(
    f: &mut Frame,
    area: Rect,
    t0: Instant,
    now: Instant,
    active: bool,
    rows: &[Row],
    theme: &Theme,
) {
    if area.height == 0 || area.width < 4 {
        return;
    }
    let mut t1 = t0;
    for row in rows {
        for s in &row.spans {
            t1 = t1.max(s.end);
        }
    }
    if active {
        t1 = t1.max(now);
    }
    let total_ms = t1.saturating_duration_since(t0).as_millis().max(100) as f64;
    let label_w = (area.width as usize / 4).clamp(3, 12);
    let bar_w = (area.width as usize).saturating_sub(label_w + 1).max(1);
    let col = |t: Instant| -> usize {
        let ms = t.saturating_duration_since(t0).as_millis() as f64;
        ((ms / total_ms) * bar_w as f64).floor() as usize
    };
    let body_rows = area.height.saturating_sub(1) as usize;
    let mut lines: Vec<Line> = Vec::new();
    for row in rows.iter().take(body_rows) {
        let mut cells: Vec<(&str, Style)> = vec![(" ", theme.text); bar_w];
        for s in &row.spans {
            if let Some(q) = s.queued {
                for c in cells
                    .iter_mut()
                    .take(col(s.start).min(bar_w))
                    .skip(col(q).min(bar_w))
                {
                    *c = ("·", theme.dim);
                }
            }
            let a = col(s.start).min(bar_w - 1);
            let b = col(s.end).clamp(a + 1, bar_w);
            for c in &mut cells[a..b] {
                *c = (s.fill, s.style);
            }
        }
        let mut out = vec![TextSpan::styled(
            format!("{:<w$} ", fit_label(&row.label, label_w), w = label_w),
            if row.picked {
                theme.selection
            } else {
                theme.dim
            },
        )];
        out.extend(cells.into_iter().map(|(s, st)| TextSpan::styled(s, st)));
        lines.push(Line::from(out));
    }
    let end_label = format_duration(total_ms as u64);
    let axis_fill = bar_w.saturating_sub(2 + end_label.len() + 1);
    lines.push(Line::styled(
        format!(
            "{:w$} 0s{}{} ",
            "",
            " ".repeat(axis_fill),
            end_label,
            w = label_w
        ),
        theme.dim,
    ));
    f.render_widget(Paragraph::new(lines), area);
}
