//! Colours and styles in one place.
//!
//! Only the 16 ANSI colours (plus modifiers) so the palette follows the user's terminal theme,
//! light or dark. Syntax highlighting is the one exception: it uses truecolor foregrounds.

use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Debug)]
pub struct Theme {
    /// Ordinary text (terminal default colours).
    pub text: Style,
    /// Secondary text: hints, metadata, thinking, punctuation.
    pub dim: Style,
    /// Highlights that should catch the eye (the prompt marker, focused titles).
    pub accent: Style,
    pub error: Style,
    pub ok: Style,
    pub warning: Style,
    /// The label / gutter of a user message.
    pub user: Style,
    /// The label / gutter of an assistant message.
    pub assistant: Style,
    /// Model thinking (shown dimmed and collapsed).
    pub thinking: Style,
    /// A tool's name in the conversation and the tools pane.
    pub tool_name: Style,
    /// Inline code and the base style of code blocks (under syntax colours).
    pub code: Style,
    /// Markdown heading text.
    pub heading: Style,
    /// The `#` level marker in front of a heading.
    pub heading_marker: Style,
    /// A link's text.
    pub link: Style,
    /// A link's URL shown after its text.
    pub link_url: Style,
    /// The `│ ` bar in front of block quotes and their text.
    pub quote: Style,
    /// List bullets and numbers.
    pub list_marker: Style,
    /// Table separators and horizontal rules.
    pub rule: Style,
    /// Table header cells.
    pub table_header: Style,
    /// Selected rows (tool rows, list entries).
    pub selection: Style,
    /// The border of the focused pane.
    pub focus_border: Style,
    /// The border of unfocused panes.
    pub border: Style,
    /// The status bar background line.
    pub status_bar: Style,
    /// Key names inside hints ("Ctrl+C").
    pub key_hint: Style,
    /// JSON view: object keys.
    pub json_key: Style,
    /// JSON view: string values.
    pub json_string: Style,
    /// JSON view: numbers.
    pub json_number: Style,
    /// JSON view: true, false, null.
    pub json_literal: Style,
    /// JSON view: braces, brackets, commas, colons, and the cut marker of long strings.
    pub json_punct: Style,
}

impl Default for Theme {
    fn default() -> Self {
        let dim = Style::default().add_modifier(Modifier::DIM);
        Theme {
            text: Style::default(),
            dim,
            accent: Style::default().fg(Color::Cyan),
            error: Style::default().fg(Color::Red),
            ok: Style::default().fg(Color::Green),
            warning: Style::default().fg(Color::Yellow),
            user: Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            assistant: Style::default()
                .fg(Color::Magenta)
                .add_modifier(Modifier::BOLD),
            thinking: dim.add_modifier(Modifier::ITALIC),
            tool_name: Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
            code: Style::default().fg(Color::LightYellow),
            heading: Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            heading_marker: Style::default().fg(Color::Cyan).add_modifier(Modifier::DIM),
            link: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::UNDERLINED),
            link_url: dim,
            quote: Style::default().fg(Color::Green),
            list_marker: Style::default().fg(Color::Cyan),
            rule: dim,
            table_header: Style::default().add_modifier(Modifier::BOLD),
            selection: Style::default().add_modifier(Modifier::REVERSED),
            focus_border: Style::default().fg(Color::Cyan),
            border: dim,
            status_bar: Style::default().add_modifier(Modifier::REVERSED),
            key_hint: Style::default().add_modifier(Modifier::BOLD),
            json_key: Style::default().fg(Color::Blue),
            json_string: Style::default().fg(Color::Green),
            json_number: Style::default().fg(Color::Magenta),
            json_literal: Style::default().fg(Color::Yellow),
            json_punct: dim,
        }
    }
}
