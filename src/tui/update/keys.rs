//! Keys and paste (the mouse: mouse.rs). A modal sees keys first (help, approval), then the global keys,
//! then the focused pane; a key stops at the first taker.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tokio::time::Instant;

use crate::protocol::AgentCommand;
use crate::tui::app::{App, Focus, QUIT_WINDOW};
use crate::tui::keys::{Action, Scope, action_for};
use crate::tui::panes::EventState;
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;

impl App {
    pub fn on_key(&mut self, key: KeyEvent, now: Instant) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let shift_enter = self.info.shift_enter;
        if self.overlays.help_open {
            // The layout step clamps the scroll to what the terminal shows.
            let s = &mut self.overlays.help_scroll;
            match key.code {
                KeyCode::Up => *s = s.saturating_sub(1),
                KeyCode::Down => *s = s.saturating_add(1),
                KeyCode::PageUp => *s = s.saturating_sub(10),
                KeyCode::PageDown => *s = s.saturating_add(10),
                KeyCode::Home => *s = 0,
                KeyCode::End => *s = u16::MAX,
                _ => self.overlays.help_open = false,
            }
            return;
        }
        if self.overlays.rewind.is_some() {
            self.rewind_key(key);
            return;
        }
        if self.overlays.sessions.is_some() {
            self.sessions_key(key);
            return;
        }
        if self.overlays.subagent_view.is_some() && !self.overlays.approvals.is_open() {
            self.subagent_view_key(key);
            return;
        }
        let global = action_for(&key, Scope::Global, shift_enter);
        if global != Some(Action::Cancel) {
            self.keys.last_esc = None;
        }
        if global != Some(Action::Interrupt) {
            self.status.quit_armed_until = None;
        }
        let prev_key = self.keys.last_key_at.replace(now);
        if self.overlays.approvals.is_open() {
            self.approval_key(key, global, now, prev_key);
            return;
        }
        // Ctrl+R takes every key until it ends (Esc and Ctrl+C end it, not the turn).
        if self.panes.focus == Focus::Input
            && self.input.is_searching()
            && self.input.search_key(key)
        {
            return;
        }
        // The `/` menu, `@` completion, queued prompts and Ctrl+G (update/compose.rs).
        if self.panes.focus == Focus::Input
            && !self.input.is_searching()
            && self.compose_key(key, now)
        {
            return;
        }
        if let Some(action) = global {
            self.global(action, now);
            return;
        }
        match self.panes.focus {
            Focus::Input => self.input_key(key, now),
            _ => self.pane_key(key),
        }
        // The menu follows the text the key left (not only the next frame).
        self.sync_menu();
    }

    /// A key while a question is open. Ctrl+C still aborts the turn. Letters always go to
    /// the input; the answer keys (↑/↓, digits, Enter, Esc) typed just after the question
    /// appeared, or in a burst of typing, were meant for the input and go there too. After
    /// letters, Enter never approves: `n` Enter denies, anything else asks for a choice.
    fn approval_key(
        &mut self,
        key: KeyEvent,
        global: Option<Action>,
        now: Instant,
        prev_key: Option<Instant>,
    ) {
        if global == Some(Action::Interrupt) {
            self.interrupt(now);
            return;
        }
        // A rule being edited ("always allow") is deliberate typing too.
        if let Some(rule) = self.overlays.approvals.rule_edit.as_mut() {
            match key.code {
                KeyCode::Char(c) => rule.push(c),
                KeyCode::Backspace => {
                    rule.pop();
                }
                KeyCode::Esc => self.overlays.approvals.rule_edit = None,
                KeyCode::Enter => {
                    if let Some((cmd, rules)) = self.overlays.approvals.answer_rule(now) {
                        self.send(cmd);
                        for rule in rules {
                            if let Ok(r) = crate::permission::rules::Rule::parse(&rule) {
                                self.steering.rules.push(
                                    crate::permission::rules::RuleKind::Allow,
                                    r,
                                    crate::permission::settings::LOCAL_SOURCE,
                                );
                            }
                        }
                    }
                }
                _ => {}
            }
            return;
        }
        // A reason being typed is deliberate typing into the modal itself.
        if let Some(reason) = self.overlays.approvals.reason.as_mut() {
            match key.code {
                KeyCode::Char(c) => reason.push(c),
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Esc => self.overlays.approvals.reason = None,
                KeyCode::Enter => {
                    if let Some(cmd) = self.overlays.approvals.answer(Action::Deny, now) {
                        self.send(cmd);
                    }
                }
                _ => {}
            }
            return;
        }
        let action = action_for(&key, Scope::Approval, self.info.shift_enter);
        // `n` or `no` typed since the question appeared, then Enter: the y/n habit says no.
        // Denying is safe, so a quick Enter counts too (not one inside the guard time: those
        // letters were typed before the box could be read). The letters were an answer, not
        // text for the input.
        if action == Some(Action::Submit)
            && self.overlays.approvals.typed_no()
            && self.overlays.approvals.settled(now)
        {
            self.keys.last_key_at = prev_key;
            let typed = self.overlays.approvals.typed.take().unwrap_or_default();
            if self.input.line_before_caret().ends_with(&typed) {
                self.input.replace_before_caret(typed.chars().count(), "");
            }
            if let Some(cmd) = self.overlays.approvals.answer(Action::Deny, now) {
                self.send(cmd);
            }
            return;
        }
        match action {
            // Moving the choice or the preview answers nothing: holding ↓ through a long plan
            // is not a burst to refuse. A key the box took is not typing either: "2" then
            // a quick Enter is no burst, so it does not count as the previous key.
            Some(a @ (Action::PrevItem | Action::NextItem | Action::PageUp | Action::PageDown)) => {
                self.keys.last_key_at = prev_key;
                self.overlays.approvals.answer(a, now);
            }
            // Enter, Esc and digits answer only when deliberate: not just after the question
            // appeared, not inside a burst of typing. Then they were meant for the input.
            Some(a) if self.overlays.approvals.accepts_key(now, prev_key) => {
                self.keys.last_key_at = prev_key;
                if a == Action::PickChoice {
                    if let KeyCode::Char(d) = key.code {
                        self.overlays
                            .approvals
                            .pick(d.to_digit(10).unwrap_or(0) as usize);
                    }
                } else if let Some(cmd) = self.overlays.approvals.answer(a, now) {
                    self.send(cmd);
                }
            }
            // Everything else (letters above all, even a lone one after a pause) is typing
            // for the input, which stays visible under the box. Global keys (Tab, F-keys)
            // do nothing while the question waits.
            // Letters typed here make the next Enter ask for an explicit choice.
            _ if global.is_none() => {
                if !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                {
                    self.overlays.approvals.note_typed(key.code);
                }
                self.input_key(key, now)
            }
            _ => {}
        }
    }

    fn interrupt(&mut self, now: Instant) {
        if self.turn.busy {
            self.abort();
        } else if !self.input.is_empty() {
            self.input.clear();
        } else if self.quit_armed(now) {
            self.status.should_quit = true;
        } else {
            self.status.quit_armed_until = Some(now + QUIT_WINDOW);
        }
    }

    fn global(&mut self, action: Action, now: Instant) {
        match action {
            Action::Interrupt => self.interrupt(now),
            // Esc in a pane only brings the focus back (the pane's hint says "Esc back");
            // from the input it aborts a running turn.
            Action::Cancel => {
                if self.panes.focus != Focus::Input {
                    self.set_focus(Focus::Input);
                } else if self.turn.busy {
                    self.abort();
                } else {
                    self.escape(now);
                }
            }
            Action::ToggleJson => {
                self.panes.json_open = !self.panes.json_open;
                if !self.panes.json_open && self.panes.focus == Focus::Json {
                    self.set_focus(Focus::Input);
                }
            }
            Action::NextJsonView => {
                if self.panes.json_open {
                    self.panes.json.view = self.panes.json.view.next();
                } else {
                    self.panes.json_open = true;
                }
            }
            Action::SaveJson => self.save_json(now),
            Action::Copy => self.copy_selection(now),
            Action::Help => self.open_help(),
            Action::CycleApproval if self.is_live() => {
                let next = self.steering.mode.next_in_cycle();
                self.send(AgentCommand::SetApproval { mode: next });
            }
            Action::ToggleTodos => {
                let h = self.panes.areas.screen_height();
                self.steering.toggle_todos(h);
            }
            Action::FocusNext | Action::FocusPrev | Action::CycleApproval => {
                let order = self.focus_order();
                let i = order
                    .iter()
                    .position(|f| *f == self.panes.focus)
                    .unwrap_or(0);
                let n = order.len();
                let next = if action == Action::FocusNext {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                // Nothing is selected yet: the first ← picks the newest call, → nothing older.
                self.set_focus(order[next]);
            }
            Action::NewConversation => self.new_conversation(),
            _ => {}
        }
    }

    pub(crate) fn open_help(&mut self) {
        self.overlays.help_open = true;
        self.overlays.help_scroll = 0;
    }

    pub(crate) fn new_conversation(&mut self) {
        if self.turn.busy {
            self.panes
                .conversation
                .push(CellKind::Notice(strings::NOT_WHILE_BUSY.into()));
        } else {
            // The agent answers with HistoryReset, which clears the screen.
            self.send(AgentCommand::NewConversation);
        }
    }

    /// Text entered while a turn runs: sent into it (steering), or queued for after it. A
    /// `!command`, and anything during `/compact`, is always queued (no turn to join).
    fn while_running(&mut self, text: String, how: crate::tui::steer::EnterWhileRunning) {
        let shell = text.trim_start().starts_with('!');
        let no_turn = !self.steer.in_prompt || self.steer.shell || self.turn.compacting;
        if how == crate::tui::steer::EnterWhileRunning::Queue || shell || no_turn {
            self.outbox.queued.push_back(text);
        } else {
            self.steer.sent(text.clone());
            self.send(AgentCommand::Steer { text });
        }
    }

    pub(super) fn input_key(&mut self, key: KeyEvent, now: Instant) {
        if key.code == KeyCode::Char('?') && self.input.is_empty() {
            self.open_help();
            return;
        }
        match action_for(&key, Scope::Input, self.info.shift_enter) {
            Some(Action::Submit) => {
                let text = self.input.text();
                if text.trim().is_empty() {
                    return;
                }
                let text = self.input.take();
                if crate::tui::update::slash::run(self, &text, now) {
                    return;
                }
                if self.turn.busy {
                    self.while_running(text, self.steer.enter);
                } else {
                    self.submit(text);
                }
                self.panes.conversation.scroll.bottom();
            }
            // During a turn Alt+Enter queues the text for after it (Ctrl+J and Shift+Enter
            // still make a new line).
            Some(Action::Newline)
                if self.turn.busy
                    && key.code == KeyCode::Enter
                    && key.modifiers == KeyModifiers::ALT =>
            {
                let text = self.input.text();
                if text.trim().is_empty() {
                    return;
                }
                let text = self.input.take();
                self.while_running(text, crate::tui::steer::EnterWhileRunning::Queue);
                self.panes.conversation.scroll.bottom();
            }
            Some(Action::Newline) => self.input.newline(),
            Some(Action::Quit) if self.input.is_empty() => self.status.should_quit = true,
            Some(Action::HistoryPrev) => {
                if !self.input.recall_prev() {
                    self.input.key(key);
                }
            }
            Some(Action::HistorySearch) => {
                self.input.start_search();
                self.input.search_key(key);
            }
            Some(Action::HistoryNext) => {
                if !self.input.recall_next() {
                    self.input.key(key);
                }
            }
            Some(Action::DeleteToLineStart) => self.input.delete_to_line_start(),
            Some(Action::Undo) => self.input.undo(),
            Some(Action::PageUp) => self.panes.conversation.scroll.page_up(),
            Some(Action::PageDown) => self.panes.conversation.scroll.page_down(),
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
        if self.panes.focus == Focus::Tools && (self.job_key(action) || self.timeline_key(action)) {
            return;
        }
        // Enter on a `task` call opens its subagent's conversation.
        if action == Action::Toggle
            && self.panes.focus == Focus::Conversation
            && let Some(CellKind::Tool(id)) =
                self.panes.conversation.selected_cell().map(|c| &c.kind)
            && self.open_subagent_of_row(&id.clone())
        {
            return;
        }
        // The focused pane takes the key or lets it fall (nothing else wants pane keys).
        if let Some(pane) = self.pane_mut(self.panes.focus) {
            let _: EventState = pane.handle(action);
        }
    }

    pub fn on_paste(&mut self, text: &str) {
        if !self.takes_paste() {
            return;
        }
        self.set_focus(Focus::Input);
        // A path to an image (what terminals paste on drag and drop) attaches it.
        if let [one] = crate::agent::attachments::find(text, &self.info.workspace).as_slice()
            && text.split_whitespace().count() <= 1 + text.matches("\\ ").count()
        {
            self.input.attach(one);
            return;
        }
        self.input.paste(text);
    }

    /// No box that answers keys (approval, help, rewind, sessions) is open.
    pub fn takes_paste(&self) -> bool {
        !(self.overlays.approvals.is_open()
            || self.overlays.help_open
            || self.overlays.rewind.is_some()
            || self.overlays.sessions.is_some())
    }

    pub fn on_resize(&mut self) {
        self.panes.conversation.invalidate();
    }

    fn save_json(&mut self, now: Instant) {
        self.panes.saves += 1;
        let stamp = format!(
            "{}-{}",
            jiff::Timestamp::now().strftime("%Y%m%dT%H%M%S"),
            self.panes.saves
        );
        let dir = self.info.save_dir.clone();
        let (text, cell): (String, fn(String) -> CellKind) =
            match self.panes.json.save(&dir, &stamp) {
                Ok(path) => (
                    strings::saved_json(self.panes.json.view.name(), &path),
                    CellKind::Notice,
                ),
                Err((path, e)) => (strings::save_failed(&path, &e), CellKind::Error),
            };
        // The conversation may be hidden behind the JSON pane: say it in the status bar too.
        self.status.note = Some((text.clone(), now + crate::tui::app::NOTE_WINDOW));
        self.panes.conversation.push(cell(text));
        self.panes.conversation.scroll.bottom();
    }
}

impl App {
    pub(crate) fn compact(&mut self, instructions: Option<String>) {
        if self.turn.busy {
            self.panes
                .conversation
                .push(CellKind::Notice(strings::NOT_WHILE_BUSY.into()));
        } else {
            self.panes
                .conversation
                .push(CellKind::Notice(strings::COMPACTING.into()));
            self.turn.busy = true;
            self.turn.compacting = true;
            self.send(AgentCommand::Compact { instructions });
        }
    }
}
