//! Calling the user back: when a turn ends or a question opens while the terminal is not
//! focused (crossterm's focus events), ring the bell or, where the terminal turns OSC 9 into
//! a desktop notification, send that. `[tui] notify = "auto" | "bell" | "off"`.
//!
//! A leaf: the controller tells it what the App looks like after each batch of events
//! ([`Notifier::observe`]); it decides, and the event loop writes what [`Notifier::take`]
//! returns after the next frame.

use crate::config_file::NotifyMode;

/// How the terminal is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// BEL: every terminal (tmux marks the window, many terminals flash or badge it).
    Bell,
    /// `ESC ] 9 ; text BEL`: a desktop notification in iTerm2, WezTerm, ghostty, kitty.
    Osc9,
}

/// What the environment says about the terminal (TERM_PROGRAM, TERM, KITTY_WINDOW_ID).
#[derive(Clone, Debug, Default)]
pub struct TermEnv {
    pub term_program: Option<String>,
    pub term: Option<String>,
    pub kitty: bool,
}

impl TermEnv {
    pub fn from_env() -> TermEnv {
        TermEnv {
            term_program: std::env::var("TERM_PROGRAM").ok(),
            term: std::env::var("TERM").ok(),
            kitty: std::env::var_os("KITTY_WINDOW_ID").is_some(),
        }
    }

    /// Terminals that show OSC 9 as a notification. Inside tmux TERM_PROGRAM is "tmux"
    /// (tmux drops OSC 9), so tmux gets the bell, which it passes on as a window alert.
    fn shows_osc9(&self) -> bool {
        let program = self.term_program.as_deref().unwrap_or("");
        matches!(program, "iTerm.app" | "WezTerm" | "ghostty")
            || ((program.is_empty() || program == "kitty")
                && (self.kitty || self.term.as_deref().is_some_and(|t| t.contains("kitty"))))
    }
}

/// The signal `mode` asks for in this terminal (None: off).
pub fn signal_for(mode: NotifyMode, term: &TermEnv) -> Option<Signal> {
    match mode {
        NotifyMode::Off => None,
        NotifyMode::Bell => Some(Signal::Bell),
        NotifyMode::Auto if term.shows_osc9() => Some(Signal::Osc9),
        NotifyMode::Auto => Some(Signal::Bell),
    }
}

/// The bytes for `signal` with `text` (control characters and `;` dropped, so the
/// notification cannot end early or carry an escape sequence).
pub fn sequence(signal: Signal, text: &str) -> String {
    match signal {
        Signal::Bell => "\x07".into(),
        Signal::Osc9 => {
            let clean: String = text
                .chars()
                .filter(|c| !c.is_control() && *c != ';')
                .take(200)
                .collect();
            format!("\x1b]9;{clean}\x07")
        }
    }
}

pub const TURN_ENDED: &str = "tooloop: the turn ended";
pub const QUESTION: &str = "tooloop: a question waits for your answer";

#[derive(Debug)]
pub struct Notifier {
    signal: Option<Signal>,
    /// The terminal has the focus (until it says otherwise, it is assumed to).
    pub focused: bool,
    was_busy: bool,
    was_asking: bool,
    pending: Option<String>,
}

impl Default for Notifier {
    /// Off: tests and replays never ring.
    fn default() -> Self {
        Notifier::new(None)
    }
}

impl Notifier {
    pub fn new(signal: Option<Signal>) -> Notifier {
        Notifier {
            signal,
            focused: true,
            was_busy: false,
            was_asking: false,
            pending: None,
        }
    }

    /// Whether the terminal should report focus changes at all.
    pub fn wants_focus_events(&self) -> bool {
        self.signal.is_some()
    }

    /// The App after a batch of events: busy (a prompt runs) and asking (a question is
    /// open). A turn that ended (and nothing queued started) or a question that opened,
    /// while unfocused, queues a signal.
    pub fn observe(&mut self, busy: bool, asking: bool) {
        let ended = self.was_busy && !busy;
        let opened = asking && !self.was_asking;
        self.was_busy = busy;
        self.was_asking = asking;
        let text = if opened {
            QUESTION
        } else if ended {
            TURN_ENDED
        } else {
            return;
        };
        if let (Some(signal), false) = (self.signal, self.focused) {
            self.pending = Some(sequence(signal, text));
        }
    }

    /// What to write to the terminal now, once.
    pub fn take(&mut self) -> Option<String> {
        self.pending.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(program: &str, term: &str) -> TermEnv {
        TermEnv {
            term_program: (!program.is_empty()).then(|| program.to_string()),
            term: Some(term.to_string()),
            kitty: false,
        }
    }

    #[test]
    fn auto_uses_osc9_only_where_the_terminal_shows_it() {
        for (program, t) in [
            ("iTerm.app", "xterm-256color"),
            ("WezTerm", "xterm-256color"),
            ("ghostty", "xterm-ghostty"),
            ("", "xterm-kitty"),
        ] {
            let env = term(program, t);
            assert_eq!(
                signal_for(NotifyMode::Auto, &env),
                Some(Signal::Osc9),
                "{program}"
            );
            assert_eq!(signal_for(NotifyMode::Bell, &env), Some(Signal::Bell));
            assert_eq!(signal_for(NotifyMode::Off, &env), None);
        }
        for (program, t) in [
            ("tmux", "tmux-256color"),
            ("Apple_Terminal", "xterm-256color"),
            ("", "xterm-256color"),
            ("vscode", "xterm-256color"),
        ] {
            let env = term(program, t);
            assert_eq!(
                signal_for(NotifyMode::Auto, &env),
                Some(Signal::Bell),
                "{program}"
            );
        }
        let kitty = TermEnv {
            kitty: true,
            ..Default::default()
        };
        assert_eq!(signal_for(NotifyMode::Auto, &kitty), Some(Signal::Osc9));
    }

    #[test]
    fn sequences_cannot_carry_escapes() {
        assert_eq!(sequence(Signal::Bell, "x"), "\x07");
        assert_eq!(
            sequence(Signal::Osc9, "done\x1b]0;evil\x07; 好"),
            "\x1b]9;done]0evil 好\x07"
        );
    }

    #[test]
    fn only_an_unfocused_terminal_is_called_and_each_event_once() {
        let mut n = Notifier::new(Some(Signal::Bell));
        n.observe(true, false);
        n.observe(false, false);
        assert_eq!(n.take(), None, "focused: nothing");
        n.focused = false;
        n.observe(true, false);
        assert_eq!(n.take(), None, "a turn starting is no news");
        n.observe(true, true);
        assert_eq!(n.take().as_deref(), Some("\x07"), "a question opened");
        n.observe(true, true);
        assert_eq!(n.take(), None, "the same question: once");
        n.observe(true, false);
        n.observe(false, false);
        assert_eq!(n.take().as_deref(), Some("\x07"), "the turn ended");
        n.observe(false, false);
        assert_eq!(n.take(), None);
        let mut off = Notifier::new(None);
        off.focused = false;
        off.observe(true, false);
        off.observe(false, false);
        assert_eq!(off.take(), None);
        assert!(!off.wants_focus_events());
    }

    #[test]
    fn osc9_says_what_happened() {
        let mut n = Notifier::new(Some(Signal::Osc9));
        n.focused = false;
        n.observe(true, true);
        assert_eq!(n.take(), Some(format!("\x1b]9;{QUESTION}\x07")));
        n.observe(false, false);
        assert_eq!(n.take(), Some(format!("\x1b]9;{TURN_ENDED}\x07")));
    }
}
