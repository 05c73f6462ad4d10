//! The box the pickers (/sessions, rewind) draw in: centred, as tall as its lines (at most
//! the area), cleared underneath, bordered and titled in the accent colour.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::theme::Theme;

/// Draws `body` in a box `width` columns wide, centred in `area`.
pub fn draw(
    f: &mut Frame,
    area: Rect,
    width: u16,
    title: &'static str,
    body: Vec<Line<'static>>,
    theme: &Theme,
) {
    let width = width.min(area.width);
    let h = (body.len() as u16 + 2).min(area.height);
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - h) / 2,
        width,
        height: h,
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(
            title,
            theme.accent.add_modifier(Modifier::BOLD),
        ));
    let inner = block.inner(rect);
    f.render_widget(Clear, rect);
    f.render_widget(block, rect);
    f.render_widget(Paragraph::new(body), inner);
}
