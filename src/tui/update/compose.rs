//! The input's helpers, the App's side: the `/` menu (built-in commands, commands from
//! files, MCP prompts), Tab after `@` (workspace paths, `@SERVER:` resources), ↑ taking a
//! queued prompt back, Ctrl+G (the editor; the event loop hands the terminal over).
//! `input/menu.rs` holds and draws the menu; this file decides what a key means for it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::time::Instant;

use crate::tui::app::{App, NOTE_WINDOW};
use crate::tui::input::mention_complete;
use crate::tui::input::menu::{self, CommandEntry, Menu, MenuItem, MenuKind};
use crate::tui::keys::{Action, Scope, action_for};
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;

impl App {
    /// A key for the input, before its usual meaning: true when one of the helpers took it.
    pub(crate) fn compose_key(&mut self, key: KeyEvent, now: Instant) -> bool {
        self.sync_menu();
        if action_for(&key, Scope::Input, self.info.shift_enter) == Some(Action::ExternalEditor) {
            // A replay has no input to edit.
            self.compose.editor_requested = self.is_live();
            return true;
        }
        let plain = (key.modifiers - KeyModifiers::SHIFT).is_empty();
        if !plain {
            return false;
        }
        if let Some(menu) = self.compose.menu.as_mut() {
            match key.code {
                KeyCode::Up => menu.select_prev(),
                KeyCode::Down => menu.select_next(),
                KeyCode::Tab => self.pick(false, now),
                KeyCode::Enter => self.pick(true, now),
                KeyCode::Esc => {
                    self.compose.menu = None;
                    self.compose.dismissed = Some(self.input.text());
                }
                _ => return false,
            }
            return true;
        }
        match key.code {
            KeyCode::Tab => self.complete_mention(now),
            KeyCode::Up
                if self.turn.busy && self.input.is_empty() && !self.outbox.queued.is_empty() =>
            {
                self.take_back_queued(now);
                true
            }
            KeyCode::Esc if self.compose.editing_queued && !self.input.is_empty() => {
                self.input.clear();
                self.compose.editing_queued = false;
                self.status.note = Some((strings::QUEUED_REMOVED.into(), now + NOTE_WINDOW));
                true
            }
            _ => false,
        }
    }

    /// Brings the menu in line with the input's text: the command menu follows every key,
    /// a path menu lasts until the text changes, Esc keeps it closed for that text.
    pub fn sync_menu(&mut self) {
        let text = self.input.text();
        if text.is_empty() {
            self.compose.editing_queued = false;
        }
        if self.compose.dismissed.as_ref().is_some_and(|d| *d != text) {
            self.compose.dismissed = None;
        }
        if self
            .compose
            .menu
            .as_ref()
            .is_some_and(|m| m.made_for == text)
        {
            return;
        }
        if self.compose.dismissed.is_some() || self.overlays.approvals.is_open() {
            self.compose.menu = None;
            return;
        }
        if text == "/" {
            // Read again each time the menu opens: a file added meanwhile shows up.
            self.reload_file_commands();
        }
        self.compose.menu = menu::for_commands(&self.command_entries(), &text);
    }

    fn reload_file_commands(&mut self) {
        let builtin: Vec<&str> = super::slash::COMMANDS.iter().map(|c| c.name).collect();
        let mut commands = crate::prompt::commands::load_for(&self.info.workspace, &builtin);
        // Skills are `/NAME ARGS` too, after built-ins and command files.
        let catalog = crate::skills::Catalog::load(&crate::skills::dirs_for(&self.info.workspace));
        let taken: Vec<&str> = builtin
            .iter()
            .copied()
            .chain(commands.iter().map(|c| c.name.as_str()))
            .collect();
        let skills = crate::skills::commands(&catalog, &taken);
        commands.extend(skills);
        commands.sort_by(|a, b| a.name.cmp(&b.name));
        self.compose.file_commands = commands;
    }

    /// The built-in commands, then those from files, then MCP servers' prompts.
    fn command_entries(&self) -> Vec<CommandEntry> {
        let builtin = super::slash::COMMANDS.iter().map(|c| CommandEntry {
            name: c.name.into(),
            args: c.args.into(),
            help: c.help.into(),
            // Optional arguments ("[FILE]") need not be typed.
            runs_bare: c.args.is_empty() || c.args.starts_with('['),
        });
        let files = self.compose.file_commands.iter().map(|c| CommandEntry {
            name: c.name.clone(),
            args: if c.takes_arguments() { "ARGS" } else { "" }.into(),
            help: c.description.clone(),
            runs_bare: !c.takes_arguments(),
        });
        builtin
            .chain(files)
            .chain(self.mcp_command_entries())
            .collect()
    }

    /// Tab or Enter on the menu's selection: the input gets it; Enter on a command that
    /// needs nothing more sends it.
    fn pick(&mut self, enter: bool, now: Instant) {
        let Some(menu) = self.compose.menu.take() else {
            return;
        };
        let Some(item) = menu.picked().cloned() else {
            return;
        };
        // Whatever a completion said before is stale now.
        self.status.note = None;
        match menu.kind {
            MenuKind::Commands => {
                self.input.set_text(&item.text);
                if enter && item.runs {
                    self.input_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), now);
                }
            }
            MenuKind::Paths => self.insert_path(&item.text),
        }
    }

    /// Tab in an `@word`: the path it starts, completed as far as it is unambiguous; the
    /// candidates in the menu. False outside an `@word` (Tab moves the focus then).
    fn complete_mention(&mut self, now: Instant) -> bool {
        let before = self.input.line_before_caret();
        let Some(partial) = mention_complete::partial(&before) else {
            return false;
        };
        let partial = partial.to_string();
        let (items, none) = match self.resource_candidates(&partial) {
            Some(items) => (items, strings::no_resource_matches(&partial)),
            None => {
                let found = mention_complete::candidates(&self.info.workspace, &partial);
                let items = found.iter().map(|p| path_item(&self.info.workspace, p));
                (items.collect(), strings::no_path_matches(&partial))
            }
        };
        self.show_candidates(&partial, items, none, now);
        true
    }

    /// Completions of `@partial`: the one there is inserted, several are listed (after the
    /// prefix they share), none is said (`none`).
    fn show_candidates(&mut self, partial: &str, items: Vec<MenuItem>, none: String, now: Instant) {
        match items.as_slice() {
            [] => self.status.note = Some((none, now + NOTE_WINDOW)),
            [one] => self.insert_path(&one.text.clone()),
            many => {
                let texts: Vec<String> = many.iter().map(|i| i.text.clone()).collect();
                let common = menu::common_prefix(&texts);
                if common.len() > partial.len() {
                    self.replace_partial(&common);
                }
                self.compose.menu = Some(Menu {
                    kind: MenuKind::Paths,
                    items,
                    selected: 0,
                    made_for: self.input.text(),
                });
            }
        }
    }

    /// The `@word` before the caret becomes `path` (a file ends the word with a space, a
    /// directory stays open for the next Tab).
    fn insert_path(&mut self, path: &str) {
        let quoted = if path.contains(char::is_whitespace) {
            format!("'{path}'")
        } else {
            path.to_string()
        };
        let end = if path.ends_with('/') { "" } else { " " };
        self.replace_partial(&format!("{quoted}{end}"));
    }

    fn replace_partial(&mut self, with: &str) {
        let before = self.input.line_before_caret();
        let n = mention_complete::partial(&before).map_or(0, |p| p.chars().count());
        self.input.replace_before_caret(n, with);
    }

    /// ↑ on an empty input during a turn: the last queued prompt comes back for editing
    /// (Enter queues it again, Esc or clearing drops it).
    fn take_back_queued(&mut self, now: Instant) {
        if let Some(text) = self.outbox.queued.pop_back() {
            self.input.set_text(&text);
            self.compose.editing_queued = true;
            self.status.note = Some((strings::QUEUED_EDITING.into(), now + NOTE_WINDOW));
        }
    }

    /// `/NAME ARGS` for a command from a file: its prompt, sent (or queued). False if no
    /// file defines NAME.
    pub(crate) fn run_file_command(&mut self, name: &str, args: &str) -> bool {
        if !self.compose.file_commands.iter().any(|c| c.name == name) {
            self.reload_file_commands();
        }
        let Some(cmd) = self.compose.file_commands.iter().find(|c| c.name == name) else {
            return false;
        };
        let text = cmd.expand(args);
        if text.trim().is_empty() {
            let path = cmd.path.display().to_string();
            self.panes
                .conversation
                .push(CellKind::Error(strings::empty_command_file(name, &path)));
        } else if self.turn.busy {
            self.outbox.queued.push_back(text);
        } else {
            self.submit(text);
        }
        true
    }

    /// The editor closed (Ctrl+G): its text is the input, or the input stays and a note
    /// says why.
    pub fn editor_done(&mut self, edited: Result<String, crate::tui::editor::EditorError>) {
        match edited {
            Ok(text) => self.input.set_text(&text),
            Err(e) => self.panes.conversation.push(CellKind::Error(e.to_string())),
        }
    }
}

/// A path candidate as the menu shows it: the name, and a directory mark or the size.
fn path_item(root: &std::path::Path, path: &str) -> MenuItem {
    let detail = if path.ends_with('/') {
        "directory".to_string()
    } else {
        std::fs::metadata(root.join(path))
            .map(|m| crate::message::image::human_size(m.len() as usize))
            .unwrap_or_default()
    };
    MenuItem {
        label: path.to_string(),
        detail,
        text: path.to_string(),
        runs: false,
    }
}
