//! The App's side of the `/sessions` picker: opening it (not while a turn runs, not without
//! a transcript) and acting on its answer (a [`Step`]): close, or resume the chosen session.

use crossterm::event::KeyEvent;

use crate::protocol::AgentCommand;
use crate::tui::app::App;
use crate::tui::overlays::sessions::{SessionsOverlay, Step};
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;

impl App {
    /// `/sessions`: opens the picker (refused while a turn runs, as a resume would be).
    pub(crate) fn open_sessions(&mut self) {
        if self.turn.busy {
            self.panes
                .conversation
                .push(CellKind::Notice(strings::NOT_WHILE_BUSY_RESUME.into()));
            return;
        }
        let Some(handle) = &self.info.session_handle else {
            self.panes
                .conversation
                .push(CellKind::Notice(strings::NO_SESSIONS_KEPT.into()));
            return;
        };
        let path = handle.path();
        let Some(dir) = path.parent() else { return };
        let workspace = crate::session::canonical_workspace(&self.info.workspace);
        self.overlays.sessions = Some(SessionsOverlay::open(dir, &workspace, Some(&handle.id())));
    }

    pub(crate) fn sessions_key(&mut self, key: KeyEvent) {
        let Some(overlay) = self.overlays.sessions.as_mut() else {
            return;
        };
        match overlay.key(key) {
            Step::Stay => {}
            Step::Close => self.overlays.sessions = None,
            Step::Resume(id) => {
                self.overlays.sessions = None;
                if self.turn.busy {
                    self.panes
                        .conversation
                        .push(CellKind::Notice(strings::NOT_WHILE_BUSY_RESUME.into()));
                } else {
                    // The agent answers with HistoryReset (the screen redraws the session)
                    // and Session (the status bar's id), or an Error.
                    self.send(AgentCommand::Resume { id });
                }
            }
        }
    }
}
