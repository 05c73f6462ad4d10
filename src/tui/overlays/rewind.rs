//! The rewind overlay (Esc Esc on an empty input, /rewind, /undo): this session's prompts,
//! newest first, with time, turns and files changed; then what to restore (conversation and
//! files, conversation only, files only); then, when files were changed by hand since,
//! whether to overwrite them. The work itself is the agent's (AgentCommand::Rewind).

use crate::session::rewind_error::RewindError;
use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use crate::checkpoint::Store;
use crate::sanitize::sanitize;
use crate::session::load::{self, Loaded};
use crate::session::rewind::{self, PromptEntry, Request};
use crate::tui::text::fit::fit;
use crate::tui::theme::Theme;

const TITLE: &str = " rewind ";
const LIST_KEYS: &str = "↑↓ choose · Enter select · Esc close";
const CHOICES: [&str; 3] = [
    "1  conversation and files",
    "2  conversation only",
    "3  files only",
];
/// A digit only chooses, as in the approval box; Enter acts (issue 41, item 8: `1` then
/// Enter used to rewind, then send the restored prompt).
const CHOOSE_KEYS: &str = "↑/↓ or 1–3 choose · Enter rewind · Esc back";
const CONFIRM_KEYS: &str = "y overwrite them too · n leave them, restore the rest · Esc back";

#[derive(Clone, Debug, PartialEq)]
enum Stage {
    List,
    Choose,
    Confirm {
        req: Request,
        conflicts: Vec<String>,
    },
}

/// What a key did to the overlay.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Stay,
    Close,
    /// Send this rewind; `prompt` goes back into the input when the conversation is cut.
    Rewind {
        req: Request,
        prompt: Option<String>,
    },
}

pub struct RewindOverlay {
    loaded: Loaded,
    store: Store,
    /// Newest first.
    entries: Vec<PromptEntry>,
    selected: usize,
    choice: usize,
    stage: Stage,
    /// A problem to show in the overlay (checkpoints unreadable, say).
    error: Option<String>,
}

impl RewindOverlay {
    /// Reads the session's transcript and checkpoints. Err: nothing to rewind (a message).
    pub fn open(transcript: &Path) -> Result<RewindOverlay, RewindError> {
        if !transcript.exists() {
            return Err(RewindError::NothingYet);
        }
        let loaded = load::read(transcript)?;
        let store = transcript
            .parent()
            .and_then(crate::session::checkpoint_store)
            .ok_or(RewindError::NoStore)?;
        let (entries, error) = match store.entries(&loaded.header.id) {
            Ok(e) => (rewind::timeline(&loaded, &e), None),
            Err(e) => (rewind::timeline(&loaded, &[]), Some(e.to_string())),
        };
        if entries.is_empty() {
            return Err(RewindError::NothingYet);
        }
        let mut entries = entries;
        entries.reverse();
        Ok(RewindOverlay {
            loaded,
            store,
            entries,
            selected: 0,
            choice: 0,
            stage: Stage::List,
            error,
        })
    }

    /// /undo: the last prompt, conversation and files. Sends at once unless files were
    /// changed by hand since, which the user confirms first (the overlay stays open).
    pub fn undo(&mut self) -> Step {
        self.selected = 0;
        self.choice = 0;
        self.request()
    }

    fn current(&self) -> &PromptEntry {
        &self.entries[self.selected.min(self.entries.len() - 1)]
    }

    /// The request for the chosen prompt and option; asks about conflicts when there are.
    fn request(&mut self) -> Step {
        let entry = self.current().clone();
        let (files, conversation) = match self.choice {
            0 => (true, true),
            1 => (false, true),
            _ => (true, false),
        };
        let req = Request {
            to: entry.number,
            files,
            conversation,
            overwrite_conflicts: false,
        };
        if files {
            match rewind::conflicts(&self.loaded, &self.store, entry.number) {
                Ok(c) if !c.is_empty() => {
                    self.stage = Stage::Confirm { req, conflicts: c };
                    return Step::Stay;
                }
                Ok(_) => {}
                Err(e) => {
                    self.error = Some(e.to_string());
                    return Step::Stay;
                }
            }
        }
        self.send(req)
    }

    fn send(&self, req: Request) -> Step {
        let prompt = req.conversation.then(|| self.current().text.clone());
        Step::Rewind { req, prompt }
    }

    pub fn key(&mut self, key: KeyEvent) -> Step {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Step::Close;
        }
        match self.stage.clone() {
            Stage::List => match key.code {
                KeyCode::Esc => Step::Close,
                KeyCode::Up | KeyCode::Char('k') => {
                    self.selected = self.selected.saturating_sub(1);
                    Step::Stay
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    self.selected = (self.selected + 1).min(self.entries.len() - 1);
                    Step::Stay
                }
                KeyCode::Enter => {
                    self.stage = Stage::Choose;
                    self.choice = 0;
                    Step::Stay
                }
                _ => Step::Stay,
            },
            Stage::Choose => match key.code {
                KeyCode::Esc => {
                    self.stage = Stage::List;
                    Step::Stay
                }
                KeyCode::Up => {
                    self.choice = self.choice.saturating_sub(1);
                    Step::Stay
                }
                KeyCode::Down => {
                    self.choice = (self.choice + 1).min(CHOICES.len() - 1);
                    Step::Stay
                }
                KeyCode::Char(c @ '1'..='3') => {
                    self.choice = c as usize - '1' as usize;
                    Step::Stay
                }
                KeyCode::Enter => self.request(),
                _ => Step::Stay,
            },
            Stage::Confirm { mut req, .. } => match key.code {
                KeyCode::Esc => {
                    self.stage = Stage::Choose;
                    Step::Stay
                }
                KeyCode::Char('y') | KeyCode::Char('Y') => {
                    req.overwrite_conflicts = true;
                    self.send(req)
                }
                KeyCode::Char('n') | KeyCode::Char('N') => self.send(req),
                _ => Step::Stay,
            },
        }
    }

    fn lines(&self, width: usize, theme: &Theme) -> (Vec<Line<'static>>, &'static str) {
        let mut out = Vec::new();
        if let Some(e) = &self.error {
            out.push(Line::styled(fit(&sanitize(e), width), theme.error));
        }
        match &self.stage {
            Stage::List => {
                for (i, e) in self.entries.iter().enumerate() {
                    let meta = format!(
                        "#{:<3} {}  {} turn{}  {} file{}  ",
                        e.number,
                        clock(&e.time),
                        e.turns,
                        if e.turns == 1 { "" } else { "s" },
                        e.files,
                        if e.files == 1 { "" } else { "s" },
                    );
                    let text = one_line(&e.text);
                    let row = fit(&format!("{meta}{text}"), width);
                    let style = if i == self.selected {
                        theme.accent.add_modifier(Modifier::REVERSED)
                    } else {
                        theme.text
                    };
                    out.push(Line::styled(row, style));
                }
                (out, LIST_KEYS)
            }
            Stage::Choose => {
                let e = self.current();
                out.push(Line::styled(
                    fit(&format!("back to just before prompt {}:", e.number), width),
                    theme.accent.add_modifier(Modifier::BOLD),
                ));
                out.push(Line::styled(fit(&one_line(&e.text), width), theme.text));
                if let Some(c) = rewind::bash_caveat(e.bash_since) {
                    out.push(Line::styled(fit(&c, width), theme.warning));
                }
                out.push(Line::default());
                for (i, c) in CHOICES.iter().enumerate() {
                    let style = if i == self.choice {
                        theme.accent.add_modifier(Modifier::REVERSED)
                    } else {
                        theme.text
                    };
                    out.push(Line::styled(fit(c, width), style));
                }
                (out, CHOOSE_KEYS)
            }
            Stage::Confirm { conflicts, .. } => {
                out.push(Line::styled(
                    fit("changed by hand since the tool changed them:", width),
                    theme.warning.add_modifier(Modifier::BOLD),
                ));
                for c in conflicts {
                    out.push(Line::styled(
                        fit(&format!("  {}", sanitize(c)), width),
                        theme.text,
                    ));
                }
                (out, CONFIRM_KEYS)
            }
        }
    }

    pub fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        if area.width < 10 || area.height < 5 {
            f.render_widget(Clear, area);
            f.render_widget(
                Paragraph::new(Line::styled("rewind: Esc", theme.accent)),
                area,
            );
            return;
        }
        let w = area.width.saturating_sub(4).clamp(10, 100);
        let inner_w = w.saturating_sub(2) as usize;
        let (mut body, keys) = self.lines(inner_w, theme);
        let room = area.height.saturating_sub(4) as usize;
        // Keep the selected row on screen in a long list.
        if matches!(self.stage, Stage::List) && body.len() + 2 > room {
            let first = (self.selected + 3).saturating_sub(room.saturating_sub(2));
            body = body.split_off(first.min(body.len()));
        }
        body.truncate(room.saturating_sub(2).max(1));
        body.push(Line::default());
        body.push(Line::styled(
            fit(keys, inner_w),
            theme.accent.add_modifier(Modifier::BOLD),
        ));
        crate::tui::overlays::modal_box::draw(f, area, w, TITLE, body, theme);
    }
}

/// "2026-12-01T14:05:12Z" → "14:05:12" (the list is this session's: the day is known).
fn clock(rfc3339: &str) -> String {
    rfc3339.get(11..19).unwrap_or(rfc3339).to_string()
}

fn one_line(s: &str) -> String {
    sanitize(s).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Esc twice within this long on an empty input opens the overlay.
pub const DOUBLE_ESC: std::time::Duration = std::time::Duration::from_millis(800);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_counts_columns() {
        assert_eq!(fit("abc", 3), "abc");
        assert_eq!(fit("abcd", 3), "ab…");
        assert_eq!(fit("中文字", 4), "中…");
        assert_eq!(fit("中文", 4), "中文");
        assert_eq!(clock("2026-12-01T14:05:12Z"), "14:05:12");
    }
}
