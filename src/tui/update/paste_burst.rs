//! A paste from a terminal without bracketed paste: its text arrives as keys, a newline as
//! Enter, faster than anyone types. Typed, each Enter would send a prompt (40 pasted lines
//! became 38 queued prompts). So an Enter that comes within [`FAST`] of the key before it
//! is held that long: a key in that time makes the run one paste (what the run already
//! typed is taken back into it), which goes on until [`QUIET`] passes without a key; none
//! lets the Enter go as typed. The terminal's reads split a paste anywhere, so this goes
//! by time, not by read — except that a key already waiting when the one before it was
//! handled is fast whatever the clock says (a loaded machine can stall the loop between two
//! keys of one paste for longer than [`FAST`]). What a paste takes back is the run of keys
//! with no pause of [`QUIET`]: a paste's first key can come alone in its read, with a frame
//! drawn before the next (on a slow machine its first character stayed typed in front of the
//! paste). Keys sent by separate programs (tmux send-keys) are slower than [`FAST`], so
//! scripted typing is typing.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tokio::time::Instant;

use crate::tui::app::App;

/// A key this soon after the one before was not typed by hand (a paste's keys come
/// microseconds apart).
pub const FAST: Duration = Duration::from_millis(3);
/// A paste is over after this long without a key.
pub const QUIET: Duration = Duration::from_millis(40);

/// Lines a burst must have to be a paste: fewer are keys typed ahead while the screen was
/// busy, which a terminal delivers just as fast (two short prompts are typed, not pasted).
pub const MIN_LINES: usize = 3;

/// The key as text if it can be part of a paste: a character (shifted or not) or Enter.
pub fn plain(key: &KeyEvent) -> Option<char> {
    if key.kind == KeyEventKind::Release || !(key.modifiers - KeyModifiers::SHIFT).is_empty() {
        return None;
    }
    match key.code {
        KeyCode::Char(c) => Some(c),
        KeyCode::Enter => Some('\n'),
        _ => None,
    }
}

/// The event loop's state between reads.
#[derive(Debug, Default)]
pub struct Burst {
    /// When the last plain key came.
    last: Option<Instant>,
    /// The characters of the current fast run, already typed into the input.
    typed: usize,
    typed_text: String,
    /// An Enter held since then.
    held: Option<Instant>,
    /// A paste being gathered.
    paste: Option<String>,
}

impl Burst {
    /// A [`plain`] key; `waiting`: it was already there when the key before it was handled.
    pub fn key(&mut self, app: &mut App, key: KeyEvent, now: Instant, waiting: bool) {
        let Some(c) = plain(&key) else {
            return app.on_key(key, now);
        };
        let gap = self.last.map(|t| now.saturating_duration_since(t));
        let fast = gap.is_some_and(|g| waiting || g < FAST);
        // Still the same run of keys (what a paste found after it takes back).
        let same_run = gap.is_some_and(|g| waiting || g < QUIET);
        self.last = Some(now);
        if let Some(p) = &mut self.paste {
            p.push(c);
            return;
        }
        if !fast && self.held.is_some() {
            self.flush(app, now);
        }
        if self.held.take().is_some() {
            // Text right after an Enter: a paste. What this run typed comes back out of
            // the input into it.
            for _ in 0..self.typed {
                app.on_key(KeyEvent::from(KeyCode::Backspace), now);
            }
            let mut text = std::mem::take(&mut self.typed_text);
            text.push('\n');
            text.push(c);
            self.typed = 0;
            self.paste = Some(text);
            return;
        }
        if !same_run {
            self.typed = 0;
            self.typed_text.clear();
        }
        if c == '\n' {
            if fast && self.typed > 0 && app.takes_paste() {
                self.held = Some(now);
                return;
            }
            self.typed = 0;
            self.typed_text.clear();
        } else {
            self.typed += 1;
            self.typed_text.push(c);
        }
        app.on_key(key, now);
    }

    /// When [`Burst::settle`] has something to do.
    pub fn deadline(&self) -> Option<Instant> {
        match (self.held, &self.paste, self.last) {
            (Some(held), _, _) => Some(held + FAST),
            (None, Some(_), Some(last)) => Some(last + QUIET),
            _ => None,
        }
    }

    /// After [`QUIET`]: the held Enter goes as typed, the gathered paste as one paste.
    pub fn settle(&mut self, app: &mut App, now: Instant) {
        if self.deadline().is_some_and(|d| now >= d) {
            self.flush(app, now);
        }
    }

    /// Before any other event: whatever waits goes now.
    pub fn flush(&mut self, app: &mut App, now: Instant) {
        if self.held.take().is_some() {
            app.on_key(KeyEvent::from(KeyCode::Enter), now);
        }
        if let Some(text) = self.paste.take() {
            if text.lines().filter(|l| !l.trim().is_empty()).count() >= MIN_LINES {
                app.on_paste(&text);
            } else {
                // Typed ahead while the screen was busy (`/status` Enter `/quit` Enter):
                // the keys as typed.
                for c in text.chars() {
                    let key = match c {
                        '\n' => KeyCode::Enter,
                        c => KeyCode::Char(c),
                    };
                    app.on_key(KeyEvent::from(key), now);
                }
            }
        }
        self.typed = 0;
        self.typed_text.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::{App, RunInfo};

    /// Forty pasted lines as keys: key `i` comes `gap(i)` after the one before it, and was
    /// already waiting when that one was handled if `waiting(i)`. What the input then shows.
    fn paste_40_lines(gap: impl Fn(usize) -> Duration, waiting: impl Fn(usize) -> bool) -> String {
        let mut app = App::new(RunInfo::default());
        let mut burst = Burst::default();
        let text: String = (1..=40).map(|i| format!("第{i}行 line {i}\n")).collect();
        let mut now = Instant::now();
        for (i, c) in text.trim_end().chars().enumerate() {
            let code = if c == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            };
            if i > 0 {
                now += gap(i);
            }
            burst.key(&mut app, KeyEvent::from(code), now, waiting(i));
        }
        burst.settle(&mut app, now + QUIET);
        app.input.text()
    }

    /// Forty lines whose keys were all waiting in one read, handled on a stalled loop (10 ms
    /// between two keys, more than [`FAST`]): one paste, its first character in it too.
    #[test]
    fn keys_waiting_in_one_read_are_one_paste_however_slow_the_loop() {
        let text = paste_40_lines(|_| Duration::from_millis(10), |i| i > 0);
        assert_eq!(text, "[Pasted 40 lines]");
    }

    /// A paste's first key read alone, a frame drawn before the rest (10 ms, more than
    /// [`FAST`]), the rest in one read: one paste that holds the first character too, not a
    /// character typed in front of it.
    #[test]
    fn a_pastes_first_key_read_alone_is_taken_into_it() {
        let gap = |i| match i {
            1 => Duration::from_millis(10),
            _ => Duration::from_micros(20),
        };
        assert_eq!(paste_40_lines(gap, |i| i > 1), "[Pasted 40 lines]");
    }

    /// The same keys one by one, each read alone and slower than [`FAST`]: typing, so the
    /// first Enter sends what was typed before it.
    #[test]
    fn keys_read_one_by_one_at_typing_speed_are_typed() {
        let mut app = App::new(RunInfo::default());
        let mut burst = Burst::default();
        let mut now = Instant::now();
        for c in "第1行".chars() {
            burst.key(&mut app, KeyEvent::from(KeyCode::Char(c)), now, false);
            now += Duration::from_millis(10);
        }
        burst.settle(&mut app, now + QUIET);
        assert_eq!(app.input.text(), "第1行");
    }
}
