//! The `/sessions` picker: this workspace's saved sessions, newest first, with when they were
//! last used, their turns, size and first prompt. Enter resumes the chosen one in the
//! running TUI (AgentCommand::Resume, the same loading as `tooloop --resume ID`); Esc closes.
//!
//! Listing reads every transcript (`tooloop sessions` does the same), which takes a moment
//! with many large ones: it runs on a thread of its own and the picker says "reading…" until
//! it is done, so the screen never freezes.

use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use crate::sanitize::sanitize;
use crate::session::store::{self, SessionSummary};
use crate::tui::strings;
use crate::tui::text::fit::fit;
use crate::tui::theme::Theme;

const TITLE: &str = " sessions (UTC) ";
const KEYS: &str = "↑↓ choose · Enter resume · Esc close";
/// Session ids are 8 hex digits; a longer (hand-named) one is cut.
const ID_COLS: usize = 8;

/// One row of the picker.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: String,
    /// Last write, "MM-DD HH:MM" UTC.
    pub when: String,
    pub first_prompt: String,
    pub prompts: usize,
    pub turns: u32,
    pub bytes: u64,
    /// The session this run is writing now.
    pub current: bool,
    /// The session this one was forked from (`--fork`, `/fork`): its rows share a first
    /// prompt with the parent's, so the mark tells them apart.
    pub forked_from: Option<String>,
}

impl Entry {
    fn from_summary(s: &SessionSummary, current: Option<&str>) -> Entry {
        let when = jiff::Timestamp::try_from(s.updated)
            .map(|t| t.strftime("%m-%d %H:%M").to_string())
            .unwrap_or_else(|_| s.created.get(5..16).unwrap_or("").replace('T', " "));
        Entry {
            id: s.id.clone(),
            when,
            first_prompt: s.first_prompt.clone().unwrap_or_default(),
            prompts: s.prompts,
            turns: s.turns,
            bytes: std::fs::metadata(&s.path).map(|m| m.len()).unwrap_or(0),
            current: current == Some(s.id.as_str()),
            forked_from: s.forked_from.clone(),
        }
    }

    /// "● 1a2b3c4d  12-01 14:05   3 turns  12.5 KB  fix the bug in…" cut to `width`
    /// columns; a fork's prompt starts with "(fork of PARENT)".
    fn row(&self, width: usize) -> String {
        let mark = if self.current { "●" } else { " " };
        let turns = format!(
            "{:>3} turn{}",
            self.turns,
            if self.turns == 1 { " " } else { "s" }
        );
        let prompt = one_line(&self.first_prompt);
        let prompt = if prompt.is_empty() {
            "(no prompt)".to_string()
        } else {
            prompt
        };
        let prompt = match &self.forked_from {
            Some(parent) => format!("(fork of {}) {prompt}", one_line(parent)),
            None => prompt,
        };
        let id = fit(&one_line(&self.id), ID_COLS);
        let head = format!(
            "{mark} {id:<ID_COLS$}  {}  {turns}  {:>8}  ",
            self.when,
            size(self.bytes)
        );
        let room = width.saturating_sub(unicode_width::UnicodeWidthStr::width(head.as_str()));
        format!("{head}{}", fit(&prompt, room))
    }
}

/// What a key did to the picker.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Stay,
    Close,
    Resume(String),
}

type Listing = Result<Vec<SessionSummary>, crate::protocol::session_error::SessionError>;

pub struct SessionsOverlay {
    /// Newest first.
    pub entries: Vec<Entry>,
    pub selected: usize,
    /// The listing thread's answer, until it came.
    pending: Option<std::sync::mpsc::Receiver<Listing>>,
    workspace: String,
    current: Option<String>,
    error: Option<String>,
}

impl SessionsOverlay {
    /// Starts listing the sessions of `workspace` (canonical, as transcripts record it) in
    /// `dir`; [`SessionsOverlay::poll`] takes the answer.
    pub fn open(dir: &Path, workspace: &str, current: Option<&str>) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        let dir = dir.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("sessions-list".into())
            .spawn(move || {
                let _ = tx.send(store::list(&dir));
            });
        let mut o = SessionsOverlay {
            entries: Vec::new(),
            selected: 0,
            pending: Some(rx),
            workspace: workspace.to_string(),
            current: current.map(str::to_string),
            error: None,
        };
        if let Err(e) = spawned {
            o.pending = None;
            o.error = Some(format!("cannot list the sessions: {e}"));
        }
        o
    }

    /// Still reading the transcripts.
    pub fn loading(&self) -> bool {
        self.pending.is_some()
    }

    /// Takes the listing if it is ready (each frame while loading).
    pub fn poll(&mut self) {
        let Some(rx) = &self.pending else { return };
        let answer = match rx.try_recv() {
            Ok(a) => a,
            Err(std::sync::mpsc::TryRecvError::Empty) => return,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                Err(crate::protocol::session_error::SessionError::NoTranscript)
            }
        };
        self.pending = None;
        match answer {
            Ok(all) => self.fill(&all),
            Err(e) => self.error = Some(format!("cannot list the sessions: {e}")),
        }
    }

    /// Waits for the listing (tests; the TUI polls).
    pub fn wait(&mut self) {
        if let Some(rx) = self.pending.take() {
            match rx.recv() {
                Ok(Ok(all)) => self.fill(&all),
                Ok(Err(e)) => self.error = Some(format!("cannot list the sessions: {e}")),
                Err(e) => self.error = Some(format!("cannot list the sessions: {e}")),
            }
        }
    }

    fn fill(&mut self, all: &[SessionSummary]) {
        let current = self.current.as_deref();
        self.entries = all
            .iter()
            .filter(|s| s.workspace == self.workspace)
            .map(|s| Entry::from_summary(s, current))
            .collect();
        // Start on the newest session that is not this one: the likely pick.
        self.selected = self.entries.iter().position(|e| !e.current).unwrap_or(0);
    }

    pub fn key(&mut self, key: KeyEvent) -> Step {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Step::Close;
        }
        let last = self.entries.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return Step::Close,
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(10),
            KeyCode::PageDown => self.selected = (self.selected + 10).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => {
                if let Some(e) = self.entries.get(self.selected) {
                    return Step::Resume(e.id.clone());
                }
            }
            _ => {}
        }
        Step::Stay
    }

    pub fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        if area.width < 20 || area.height < 5 {
            f.render_widget(Clear, area);
            f.render_widget(
                Paragraph::new(Line::styled("sessions: Esc", theme.accent)),
                area,
            );
            return;
        }
        let w = area.width.saturating_sub(4).clamp(20, 120);
        let inner_w = w.saturating_sub(2) as usize;
        // Rows for the list: the box's borders, a blank line and the key line take 4.
        let room = (area.height.saturating_sub(4) as usize).max(1);
        let first = (self.selected + 1).saturating_sub(room);
        let mut body: Vec<Line> = self
            .entries
            .iter()
            .enumerate()
            .skip(first)
            .take(room)
            .map(|(i, e)| {
                let style = if i == self.selected {
                    theme.accent.add_modifier(Modifier::REVERSED)
                } else if e.current {
                    theme.dim
                } else {
                    theme.text
                };
                Line::styled(e.row(inner_w), style)
            })
            .collect();
        if body.is_empty() {
            let (text, style) = match &self.error {
                Some(e) => (sanitize(e), theme.error),
                None if self.loading() => (strings::READING_SESSIONS.to_string(), theme.dim),
                None => (strings::NO_SESSIONS.to_string(), theme.dim),
            };
            body.push(Line::styled(fit(&text, inner_w), style));
        }
        body.push(Line::default());
        let keys = if self.entries.len() > room {
            format!("{KEYS} · {}/{}", self.selected + 1, self.entries.len())
        } else {
            KEYS.to_string()
        };
        body.push(Line::styled(
            fit(&keys, inner_w),
            theme.accent.add_modifier(Modifier::BOLD),
        ));
        crate::tui::overlays::modal_box::draw(f, area, w, TITLE, body, theme);
    }
}

/// "812 B", "12.5 KB", "3.1 MB".
fn size(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}

fn one_line(s: &str) -> String {
    sanitize(s).split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_rows_fit() {
        assert_eq!(size(812), "812 B");
        assert_eq!(size(12_800), "12.5 KB");
        assert_eq!(size(3_250_000), "3.1 MB");
        let e = Entry {
            id: "a".into(),
            when: "12-01 14:05".into(),
            first_prompt: "修复解析器\nand the tests".into(),
            prompts: 2,
            turns: 1,
            bytes: 12_800,
            current: true,
            forked_from: None,
        };
        assert_eq!(
            e.row(80),
            "● a         12-01 14:05    1 turn    12.5 KB  修复解析器 and the tests"
        );
        let fork = Entry {
            id: "9f3e0c21".into(),
            current: false,
            forked_from: Some("1a2b3c4d".into()),
            ..e.clone()
        };
        assert_eq!(
            fork.row(100),
            "  9f3e0c21  12-01 14:05    1 turn    12.5 KB  (fork of 1a2b3c4d) 修复解析器 and the tests"
        );
        let cut = e.row(50);
        assert!(
            unicode_width::UnicodeWidthStr::width(cut.as_str()) <= 50,
            "{cut}"
        );
        assert!(cut.ends_with('…'), "{cut}");
    }
}
