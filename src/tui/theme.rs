//! Colours and styles in one place.

use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Debug)]
pub struct Theme {
    pub text: Style,
    pub dim: Style,
    pub accent: Style,
    pub error: Style,
    pub ok: Style,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            text: Style::default(),
            dim: Style::default().add_modifier(Modifier::DIM),
            accent: Style::default().fg(Color::Cyan),
            error: Style::default().fg(Color::Red),
            ok: Style::default().fg(Color::Green),
        }
    }
}
