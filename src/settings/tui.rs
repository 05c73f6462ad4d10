//! The full-screen front end's settings: theme, mouse, keyboard protocol, notifications,
//! status line. (The TUI sits above the config, so its section lives here.)

use serde::Deserialize;

use crate::claude::settings::{ClaudeSettings, StatusLineSpec};

pub const DEFAULT_THEME: &str = "dark";

#[derive(clap::Args, Debug, Clone, Default)]
pub struct TuiFlags {
    /// Capture the mouse: a click focuses the pane under it, the wheel scrolls the pane under
    /// the pointer (the terminal's own text selection is lost).
    #[arg(long)]
    pub mouse: bool,
}

/// The section's keys in `config.toml`: `theme`, `mouse`, `[keyboard]`, `[tui]`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct TuiFile {
    pub theme: Option<String>,
    pub mouse: Option<bool>,
    #[serde(default)]
    pub keyboard: KeyboardSection,
    /// `[tui]`: the full-screen front end.
    #[serde(default)]
    pub tui: TuiSection,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KeyboardSection {
    /// Ask the terminal for the kitty keyboard protocol (Shift+Enter for a new line).
    pub enhancement: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TuiSection {
    /// How to call the user back when a turn ends or a question opens while the terminal
    /// is not focused.
    pub notify: Option<NotifyMode>,
    /// A command whose first line of output replaces the status bar (it gets Claude
    /// Code's status-line JSON on stdin); beats Claude Code's `statusLine`.
    pub status_line: Option<String>,
}

/// `[tui] notify`: `auto` (OSC 9 where the terminal shows it as a notification, else BEL),
/// `bell` (always BEL) or `off`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NotifyMode {
    #[default]
    Auto,
    Bell,
    Off,
}

#[derive(Clone, Debug)]
pub struct TuiSettings {
    pub theme: String,
    pub mouse: bool,
    /// Ask the terminal for the kitty keyboard protocol.
    pub keyboard_enhancement: bool,
    /// `[tui] notify`.
    pub notify: NotifyMode,
    /// `[tui] status_line`, else Claude Code's `statusLine`.
    pub status_line: Option<StatusLineSpec>,
}

pub fn resolve(flags: &TuiFlags, file: &TuiFile, claude: &ClaudeSettings) -> TuiSettings {
    TuiSettings {
        theme: file
            .theme
            .clone()
            .unwrap_or_else(|| DEFAULT_THEME.to_string()),
        mouse: flags.mouse || file.mouse.unwrap_or(false),
        keyboard_enhancement: file.keyboard.enhancement.unwrap_or(true),
        notify: file.tui.notify.unwrap_or_default(),
        status_line: file
            .tui
            .status_line
            .clone()
            .filter(|c| !c.trim().is_empty())
            .map(|command| StatusLineSpec {
                command,
                padding: 0,
                source: "config.toml".into(),
            })
            .or_else(|| claude.status_line.clone()),
    }
}
