//! Keys, paste and mouse. A modal sees keys first (help, approval), then the global keys,
//! then the focused pane; a key stops at the first taker.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use tokio::time::Instant;

use super::app::{App, Focus, QUIT_WINDOW};
use super::cells::CellKind;
use super::keys::{Action, Scope, action_for};
use super::pane::EventState;
use super::strings;
use crate::agent::protocol::AgentCommand;

/// Lines the wheel moves per notch when the mouse is captured.
const WHEEL_LINES: usize = 3;

impl App {
    pub fn on_key(&mut self, key: KeyEvent, now: Instant) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let shift_enter = self.info.shift_enter;
        if self.help_open {
            match key.code {
                KeyCode::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
                KeyCode::Down => self.help_scroll = self.help_scroll.saturating_add(1),
                _ => self.help_open = false,
            }
            return;
        }
        if self.rewind.is_some() {
            self.rewind_key(key);
            return;
        }
        let global = action_for(&key, Scope::Global, shift_enter);
        if global != Some(Action::Cancel) {
            self.last_esc = None;
        }
        if global != Some(Action::Interrupt) {
            self.quit_armed_until = None;
        }
        if self.approvals.is_open() {
            // Ctrl+C still aborts the turn; everything else answers the question or waits.
            if global == Some(Action::Interrupt) {
                self.interrupt(now);
            } else if let Some(a) = action_for(&key, Scope::Approval, shift_enter)
                && let Some(cmd) = self.approvals.answer(a)
            {
                self.send(cmd);
            }
            return;
        }
        if let Some(action) = global {
            self.global(action, now);
            return;
        }
        match self.focus {
            Focus::Input => self.input_key(key),
            _ => self.pane_key(key),
        }
    }

    fn interrupt(&mut self, now: Instant) {
        if self.turn.busy {
            self.abort();
        } else if !self.input.is_empty() {
            self.input.clear();
        } else if self.quit_armed(now) {
            self.should_quit = true;
        } else {
            self.quit_armed_until = Some(now + QUIT_WINDOW);
        }
    }

    fn global(&mut self, action: Action, now: Instant) {
        match action {
            Action::Interrupt => self.interrupt(now),
            Action::Cancel => {
                if self.turn.busy {
                    self.abort();
                } else {
                    self.escape(now);
                    self.set_focus(Focus::Input);
                }
            }
            Action::ToggleJson => {
                self.json_open = !self.json_open;
                if !self.json_open && self.focus == Focus::Json {
                    self.set_focus(Focus::Input);
                }
            }
            Action::NextJsonView => {
                if self.json_open {
                    self.json.view = self.json.view.next();
                } else {
                    self.json_open = true;
                }
            }
            Action::SaveJson => self.save_json(now),
            Action::Help => {
                self.help_open = true;
                self.help_scroll = 0;
            }
            Action::FocusNext | Action::FocusPrev => {
                let order = self.focus_order();
                let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
                let n = order.len();
                let next = if action == Action::FocusNext {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.set_focus(order[next]);
                if self.focus == Focus::Conversation {
                    self.conversation.select(true);
                }
            }
            Action::NewConversation => self.new_conversation(),
            _ => {}
        }
    }

    fn new_conversation(&mut self) {
        if self.turn.busy {
            self.conversation
                .push(CellKind::Notice(strings::NOT_WHILE_BUSY.into()));
        } else {
            // The agent answers with HistoryReset, which clears the screen.
            self.send(AgentCommand::NewConversation);
        }
    }

    fn input_key(&mut self, key: KeyEvent) {
        if key.code == KeyCode::Char('?') && self.input.is_empty() {
            self.help_open = true;
            self.help_scroll = 0;
            return;
        }
        match action_for(&key, Scope::Input, self.info.shift_enter) {
            Some(Action::Submit) => {
                let text = self.input.text();
                if text.trim().is_empty() {
                    return;
                }
                let text = self.input.take();
                if text.trim() == strings::NEW_COMMAND {
                    self.new_conversation();
                    return;
                }
                if self.rewind_command(&text) {
                    return;
                }
                if text.trim() == super::extensions::MCP_COMMAND {
                    self.show_mcp();
                    return;
                }
                if let Some(rest) = compact_command(&text) {
                    self.compact(rest);
                    return;
                }
                if let Some(name) = model_command(&text) {
                    self.model_command(name);
                    return;
                }
                if self.turn.busy {
                    self.queued.push_back(text);
                } else {
                    self.submit(text);
                }
                self.conversation.scroll.bottom();
            }
            Some(Action::Newline) => self.input.newline(),
            Some(Action::Quit) if self.input.is_empty() => self.should_quit = true,
            Some(Action::HistoryPrev) => {
                if !self.input.recall_prev() {
                    self.input.key(key);
                }
            }
            Some(Action::HistoryNext) => {
                if !self.input.recall_next() {
                    self.input.key(key);
                }
            }
            Some(Action::PageUp) => self.conversation.scroll.page_up(),
            Some(Action::PageDown) => self.conversation.scroll.page_down(),
            _ => self.input.key(key),
        }
    }

    fn pane_key(&mut self, key: KeyEvent) {
        let Some(action) = action_for(&key, Scope::Pane, self.info.shift_enter) else {
            // Typing in a pane goes to the input, which takes the focus back.
            let plain = !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
            if plain && matches!(key.code, KeyCode::Char(_)) {
                self.set_focus(Focus::Input);
                self.input.key(key);
            }
            return;
        };
        // The focused pane takes the key or lets it fall (nothing else wants pane keys).
        if let Some(pane) = self.pane_mut(self.focus) {
            let _: EventState = pane.handle(action);
        }
    }

    pub fn on_paste(&mut self, text: &str) {
        if self.approvals.is_open() || self.help_open || self.rewind.is_some() {
            return;
        }
        self.set_focus(Focus::Input);
        self.input.paste(text);
    }

    /// Only reached with mouse capture on: the wheel scrolls the pane under the pointer.
    pub fn on_mouse(&mut self, ev: MouseEvent) {
        let up = match ev.kind {
            MouseEventKind::ScrollUp => true,
            MouseEventKind::ScrollDown => false,
            _ => return,
        };
        let at = Position::new(ev.column, ev.row);
        let inside = |r: Option<Rect>| r.is_some_and(|r| r.contains(at));
        let under = if inside(self.areas.json) {
            Focus::Json
        } else if inside(self.areas.tools) {
            Focus::Tools
        } else if let Some(i) = self.areas.extra.iter().position(|r| r.contains(at)) {
            Focus::Extra(i)
        } else {
            Focus::Conversation
        };
        let Some(pane) = self.pane_mut(under) else {
            return;
        };
        let scroll = pane.scroll();
        if up {
            scroll.up(WHEEL_LINES);
        } else {
            scroll.down(WHEEL_LINES);
        }
    }

    pub fn on_resize(&mut self) {
        self.conversation.invalidate();
    }

    fn save_json(&mut self, now: Instant) {
        self.saves += 1;
        let stamp = format!(
            "{}-{}",
            jiff::Timestamp::now().strftime("%Y%m%dT%H%M%S"),
            self.saves
        );
        let dir = self.info.save_dir.clone();
        let (text, cell): (String, fn(String) -> CellKind) = match self.json.save(&dir, &stamp) {
            Ok(path) => (
                strings::saved_json(self.json.view.name(), &path),
                CellKind::Notice,
            ),
            Err((path, e)) => (strings::save_failed(&path, &e), CellKind::Error),
        };
        // The conversation may be hidden behind the JSON pane: say it in the status bar too.
        self.note = Some((text.clone(), now + super::app::NOTE_WINDOW));
        self.conversation.push(cell(text));
        self.conversation.scroll.bottom();
    }
}

/// `/compact` or `/compact INSTRUCTIONS` → Some(instructions).
/// The argument of a `/model` line ("" for the list), or None for any other input.
fn model_command(text: &str) -> Option<&str> {
    let rest = text.trim().strip_prefix(strings::MODEL_COMMAND)?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let name = rest.trim();
    // One word: a prompt that merely starts with "/model" is not a command.
    (!name.contains(char::is_whitespace)).then_some(name)
}

impl App {
    /// `/model` lists the models; `/model NAME` switches (the agent confirms with
    /// ModelChanged, which updates the status bar).
    fn model_command(&mut self, name: &str) {
        if name.is_empty() {
            let builtin;
            let table = match &self.info.models {
                Some(t) => &**t,
                None => {
                    builtin = crate::models::ModelTable::builtin();
                    &builtin
                }
            };
            let text = crate::model_list::format_table(table, Some(&self.info.model));
            self.conversation
                .push(CellKind::Notice(strings::model_list(text.trim_end())));
        } else {
            if self.turn.busy {
                self.conversation
                    .push(CellKind::Notice(strings::model_switch_pending(name)));
            }
            self.send(AgentCommand::SetModel {
                model: name.to_string(),
            });
        }
        self.conversation.scroll.bottom();
    }
}

fn compact_command(text: &str) -> Option<Option<String>> {
    let t = text.trim();
    let rest = t.strip_prefix(strings::COMPACT_COMMAND)?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let rest = rest.trim();
    Some((!rest.is_empty()).then(|| rest.to_string()))
}

impl App {
    fn compact(&mut self, instructions: Option<String>) {
        if self.turn.busy {
            self.conversation
                .push(CellKind::Notice(strings::NOT_WHILE_BUSY.into()));
        } else {
            self.conversation
                .push(CellKind::Notice(strings::COMPACTING.into()));
            self.turn.busy = true;
            self.turn.compacting = true;
            self.send(AgentCommand::Compact { instructions });
        }
    }
}
