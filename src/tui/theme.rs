//! Colours and styles in one place.
//!
//! `dark` (the default) uses only the 16 ANSI colours (plus modifiers) on the terminal's own
//! background. `light` paints its own light background with dark colours, so it is light
//! whatever the terminal is. With NO_COLOR set (no-color.org) there are no colours at all,
//! only bold, dim, italic and reverse. Syntax highlighting uses truecolor foregrounds from a
//! syntect theme that matches (none under NO_COLOR).
//!
//! The theme is chosen once at start ([`install`]); renderers that cache their lines
//! (markdown, JSON) start from `Theme::default()`, which is the installed theme.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};

/// The themes the `theme` config key accepts.
pub const THEME_NAMES: [&str; 2] = ["dark", "light"];

static CURRENT: OnceLock<Theme> = OnceLock::new();

/// Chooses the theme for this process (the first call wins; later calls are ignored).
pub fn install(theme: Theme) {
    let _ = CURRENT.set(theme);
}

/// Whether the environment asks for no colours (NO_COLOR present and not empty).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    /// Which palette this is ("dark", "light"), and whether colours were stripped.
    pub name: &'static str,
    pub colors: bool,
    /// The whole screen's base: the light theme's own background, else the terminal's.
    pub base: Style,
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

/// The installed theme (dark until [`install`]), so every renderer that starts from a
/// default picks up the user's choice.
impl Default for Theme {
    fn default() -> Self {
        CURRENT.get().cloned().unwrap_or_else(Theme::dark)
    }
}

impl Theme {
    /// The theme for a `theme` config value; NO_COLOR strips every colour from it.
    pub fn named(name: &str, no_color: bool) -> Result<Theme, String> {
        let theme = match name.to_ascii_lowercase().as_str() {
            "dark" => Theme::dark(),
            "light" => Theme::light(),
            other => {
                return Err(format!(
                    "unknown theme {other:?}: expected one of {}",
                    THEME_NAMES.join(", ")
                ));
            }
        };
        Ok(if no_color {
            theme.without_colors()
        } else {
            theme
        })
    }

    /// The syntect theme that goes with the installed one; None: no highlighting colours.
    pub fn syntax_theme() -> Option<&'static str> {
        match CURRENT.get() {
            Some(t) if !t.colors => None,
            Some(t) if t.name == "light" => Some("base16-ocean.light"),
            _ => Some("base16-ocean.dark"),
        }
    }

    /// Dark text on its own light background, with colours that read on white.
    pub fn light() -> Self {
        let ink = Style::default().fg(Color::Black);
        let dim = Style::default().fg(Color::DarkGray);
        Theme {
            name: "light",
            colors: true,
            base: Style::default().fg(Color::Black).bg(Color::White),
            text: ink,
            dim,
            accent: Style::default().fg(Color::Blue),
            error: Style::default().fg(Color::Red),
            ok: Style::default().fg(Color::Green),
            warning: Style::default().fg(Color::Magenta),
            user: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::BOLD),
            assistant: Style::default()
                .fg(Color::Magenta)
                .add_modifier(Modifier::BOLD),
            thinking: dim.add_modifier(Modifier::ITALIC),
            tool_name: Style::default()
                .fg(Color::Magenta)
                .add_modifier(Modifier::BOLD),
            code: Style::default().fg(Color::Red),
            heading: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::BOLD),
            heading_marker: dim,
            link: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::UNDERLINED),
            link_url: dim,
            quote: Style::default().fg(Color::Green),
            list_marker: Style::default().fg(Color::Blue),
            rule: dim,
            table_header: ink.add_modifier(Modifier::BOLD),
            selection: Style::default().add_modifier(Modifier::REVERSED),
            focus_border: Style::default().fg(Color::Blue),
            border: dim,
            status_bar: Style::default().add_modifier(Modifier::REVERSED),
            key_hint: Style::default().add_modifier(Modifier::BOLD),
            json_key: Style::default().fg(Color::Blue),
            json_string: Style::default().fg(Color::Green),
            json_number: Style::default().fg(Color::Magenta),
            json_literal: Style::default().fg(Color::Red),
            json_punct: dim,
        }
    }

    /// The same theme with every colour removed (NO_COLOR): modifiers carry the meaning.
    pub fn without_colors(mut self) -> Self {
        for s in self.styles_mut() {
            s.fg = None;
            s.bg = None;
            s.underline_color = None;
        }
        self.colors = false;
        self
    }

    /// Every style of the theme (a new field must be added here, or NO_COLOR misses it;
    /// the render test under NO_COLOR catches that).
    fn styles_mut(&mut self) -> [&mut Style; 30] {
        [
            &mut self.base,
            &mut self.text,
            &mut self.dim,
            &mut self.accent,
            &mut self.error,
            &mut self.ok,
            &mut self.warning,
            &mut self.user,
            &mut self.assistant,
            &mut self.thinking,
            &mut self.tool_name,
            &mut self.code,
            &mut self.heading,
            &mut self.heading_marker,
            &mut self.link,
            &mut self.link_url,
            &mut self.quote,
            &mut self.list_marker,
            &mut self.rule,
            &mut self.table_header,
            &mut self.selection,
            &mut self.focus_border,
            &mut self.border,
            &mut self.status_bar,
            &mut self.key_hint,
            &mut self.json_key,
            &mut self.json_string,
            &mut self.json_number,
            &mut self.json_literal,
            &mut self.json_punct,
        ]
    }

    /// The 16-colour palette on the terminal's own background.
    pub fn dark() -> Self {
        let dim = Style::default().add_modifier(Modifier::DIM);
        Theme {
            name: "dark",
            colors: true,
            base: Style::default(),
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
