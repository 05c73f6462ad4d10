//! Wrapping styled lines to a width (unicode-width aware), for the per-cell line cache.

use ratatui::text::Line;

pub fn wrap(lines: &[Line<'static>], _width: u16) -> Vec<Line<'static>> {
    lines.to_vec()
}
