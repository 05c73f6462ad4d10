//! The App's side of the rewind overlay: `/rewind`, `/undo`, `/fork`, Esc Esc, and what the
//! overlay's answer (a [`Step`]) means — close it, or send the rewind and put the prompt back
//! in the input.

use crossterm::event::KeyEvent;
use tokio::time::Instant;

use crate::protocol::AgentCommand;
use crate::tui::app::{App, Focus};
use crate::tui::overlays::rewind::{DOUBLE_ESC, RewindOverlay, Step};
use crate::tui::panes::cells::CellKind;

impl App {
    /// `/rewind`, `/undo` and `/fork` (their slash-table entries call this with the name).
    pub(crate) fn rewind_command(&mut self, cmd: &str) {
        if self.turn.busy {
            self.panes.conversation.push(CellKind::Notice(
                "wait for the turn to end (or Ctrl+C) before rewinding or forking".into(),
            ));
            return;
        }
        match cmd {
            "fork" => self.send(AgentCommand::Fork),
            "undo" => {
                if let Some(mut overlay) = self.open_overlay() {
                    match overlay.undo() {
                        Step::Stay => self.overlays.rewind = Some(overlay),
                        step => self.rewind_step(step),
                    }
                }
            }
            _ => self.overlays.rewind = self.open_overlay(),
        }
    }

    /// Esc on an idle, empty input: the second one within [`DOUBLE_ESC`] opens the overlay.
    pub(crate) fn escape(&mut self, now: Instant) {
        let empty = self.panes.focus == Focus::Input && self.input.is_empty();
        if !empty {
            self.keys.last_esc = None;
            return;
        }
        match self.keys.last_esc.take() {
            Some(t) if now.saturating_duration_since(t) <= DOUBLE_ESC => {
                self.overlays.rewind = self.open_overlay();
            }
            _ => self.keys.last_esc = Some(now),
        }
    }

    fn open_overlay(&mut self) -> Option<RewindOverlay> {
        let Some(path) = self.info.session_handle.as_ref().map(|h| h.path()) else {
            self.panes.conversation.push(CellKind::Notice(
                "this run keeps no transcript (--no-session), so there is nothing to rewind".into(),
            ));
            return None;
        };
        match RewindOverlay::open(&path) {
            Ok(o) => Some(o),
            Err(e) => {
                self.panes
                    .conversation
                    .push(CellKind::Notice(e.to_string()));
                None
            }
        }
    }

    pub(crate) fn rewind_key(&mut self, key: KeyEvent) {
        let Some(overlay) = self.overlays.rewind.as_mut() else {
            return;
        };
        let step = overlay.key(key);
        self.rewind_step(step);
    }

    fn rewind_step(&mut self, step: Step) {
        match step {
            Step::Stay => {}
            Step::Close => self.overlays.rewind = None,
            Step::Rewind { req, prompt } => {
                self.overlays.rewind = None;
                self.send(AgentCommand::Rewind(req));
                if let Some(p) = prompt {
                    // Back in the input for editing; the agent's HistoryReset redraws the rest.
                    self.input.set_text(&p);
                    self.set_focus(Focus::Input);
                }
            }
        }
    }
}
