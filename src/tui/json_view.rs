//! Pretty, highlighted JSON as lines for the JSON pane.

use ratatui::text::Line;
use serde_json::Value;

pub fn render(value: &Value) -> Vec<Line<'static>> {
    serde_json::to_string_pretty(value)
        .unwrap_or_default()
        .lines()
        .map(|l| Line::from(super::sanitize::sanitize(l)))
        .collect()
}
