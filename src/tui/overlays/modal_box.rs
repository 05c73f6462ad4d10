//! The box the pickers (/sessions, rewind) and the approval prompt draw in: centred, as tall as its lines (at most
//! the area), cleared underneath, bordered and titled in the accent colour.

use std::borrow::Cow;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::theme::Theme;

/// Draws `body` in a box `width` columns wide, centred in `area`.
pub fn draw(
    f: &mut Frame,
    area: Rect,
    width: u16,
    title: &'static str,
    body: Vec<Line<'static>>,
    theme: &Theme,
) {
    let rect = centred(area, width, body.len() as u16 + 2);
    let block = block(title, theme);
    let inner = block.inner(rect);
    f.render_widget(Clear, rect);
    f.render_widget(block, rect);
    f.render_widget(Paragraph::new(body), inner);
}

/// A `width` × `height` rect centred in `area` (clipped to it).
pub fn centred(area: Rect, width: u16, height: u16) -> Rect {
    let (width, height) = (width.min(area.width), height.min(area.height));
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// The bordered block of a modal, titled in bold accent.
pub fn block(title: impl Into<Cow<'static, str>>, theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(
            title,
            theme.accent.add_modifier(Modifier::BOLD),
        ))
}
