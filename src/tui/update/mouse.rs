//! The mouse, with capture on (`--mouse`; off by default so the terminal's own text
//! selection keeps working): a click focuses the pane under it, the wheel scrolls the pane
//! under the pointer. While a modal is open the mouse changes nothing under it.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use crate::tui::app::{App, Areas, Focus};

/// Lines the wheel moves per notch when the mouse is captured.
const WHEEL_LINES: usize = 3;

/// The pane at (`column`, `row`) of the last frame; the input (and the status bar under
/// it) is everything that is no pane.
pub fn pane_at(areas: &Areas, column: u16, row: u16) -> Focus {
    let at = Position::new(column, row);
    let inside = |r: Option<ratatui::layout::Rect>| r.is_some_and(|r| r.contains(at));
    if inside(areas.json) {
        Focus::Json
    } else if inside(areas.tools) {
        Focus::Tools
    } else if areas.conversation.contains(at) {
        Focus::Conversation
    } else {
        Focus::Input
    }
}

impl App {
    pub fn on_mouse(&mut self, ev: MouseEvent) {
        if self.overlays.help_open {
            // The wheel scrolls the help; the layout step clamps it.
            match ev.kind {
                MouseEventKind::ScrollUp => {
                    self.overlays.help_scroll = self.overlays.help_scroll.saturating_sub(3)
                }
                MouseEventKind::ScrollDown => {
                    self.overlays.help_scroll = self.overlays.help_scroll.saturating_add(3)
                }
                _ => {}
            }
            return;
        }
        if self.overlays.approvals.is_open()
            || self.overlays.rewind.is_some()
            || self.overlays.sessions.is_some()
            || self.overlays.subagent_view.is_some()
        {
            return;
        }
        let under = pane_at(&self.panes.areas, ev.column, ev.row);
        match ev.kind {
            MouseEventKind::Down(MouseButton::Left) => self.set_focus(under),
            MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
                // The input has no scrollback: the wheel over it scrolls the conversation.
                let target = if under == Focus::Input {
                    Focus::Conversation
                } else {
                    under
                };
                if let Some(pane) = self.pane_mut(target) {
                    let scroll = pane.scroll();
                    if ev.kind == MouseEventKind::ScrollUp {
                        scroll.up(WHEEL_LINES);
                    } else {
                        scroll.down(WHEEL_LINES);
                    }
                }
            }
            _ => {}
        }
    }
}
