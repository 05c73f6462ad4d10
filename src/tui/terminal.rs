//! Entering and leaving the full-screen terminal. One `restore()` undoes everything; the
//! panic hook and every exit path call it, and calling it twice is harmless.

use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    supports_keyboard_enhancement,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// The wheel sends arrow keys in the alternate screen, so text selection keeps working.
const ALTERNATE_SCROLL_ON: &str = "\x1b[?1007h";
const ALTERNATE_SCROLL_OFF: &str = "\x1b[?1007l";

const MODE_KEYBOARD: u8 = 1;
const MODE_MOUSE: u8 = 2;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static MODES: AtomicU8 = AtomicU8::new(0);

pub struct Setup {
    pub terminal: Tui,
    /// The terminal reports Shift+Enter apart from Enter.
    pub keyboard_enhanced: bool,
}

/// Whether to use the kitty keyboard protocol: only when the config wants it (`[keyboard]
/// enhancement`) and the terminal answers the query. With it off the terminal is not even
/// asked.
pub fn keyboard_enhancement(wanted: bool, terminal_supports: impl FnOnce() -> bool) -> bool {
    wanted && terminal_supports()
}

pub fn setup(mouse: bool, keyboard: bool) -> io::Result<Setup> {
    install_panic_hook();
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = io::stdout();
    let result = (|| {
        execute!(
            out,
            EnterAlternateScreen,
            EnableBracketedPaste,
            cursor::Hide
        )?;
        out.write_all(ALTERNATE_SCROLL_ON.as_bytes())?;
        let keyboard_enhanced = keyboard_enhancement(keyboard, || {
            supports_keyboard_enhancement().unwrap_or(false)
        });
        let mut modes = 0;
        if keyboard_enhanced {
            execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
            modes |= MODE_KEYBOARD;
        }
        if mouse {
            execute!(out, EnableMouseCapture)?;
            modes |= MODE_MOUSE;
        }
        MODES.store(modes, Ordering::SeqCst);
        out.flush()?;
        let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        Ok(Setup {
            terminal,
            keyboard_enhanced,
        })
    })();
    if result.is_err() {
        restore();
    }
    result
}

/// Leaves raw mode and the alternate screen; safe to call from a panic hook, and more than once.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let modes = MODES.swap(0, Ordering::SeqCst);
    let mut out = io::stdout();
    if modes & MODE_KEYBOARD != 0 {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    if modes & MODE_MOUSE != 0 {
        let _ = execute!(out, DisableMouseCapture);
    }
    let _ = out.write_all(ALTERNATE_SCROLL_OFF.as_bytes());
    let _ = execute!(
        out,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = out.flush();
    let _ = disable_raw_mode();
}

/// Gives the terminal back for a while (an editor runs on it): the modes in use, for
/// [`resume`]. The caller has dropped its event stream, so no key is read from under the
/// program that now owns the terminal.
pub fn suspend() -> u8 {
    let modes = MODES.load(Ordering::SeqCst);
    restore();
    modes
}

/// Full screen again after [`suspend`], with the same modes; the caller redraws everything.
pub fn resume(modes: u8) -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = io::stdout();
    execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        cursor::Hide
    )?;
    out.write_all(ALTERNATE_SCROLL_ON.as_bytes())?;
    if modes & MODE_KEYBOARD != 0 {
        execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
    }
    if modes & MODE_MOUSE != 0 {
        execute!(out, EnableMouseCapture)?;
    }
    MODES.store(modes, Ordering::SeqCst);
    out.flush()
}

fn install_panic_hook() {
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // Restore first, so the panic message lands on a normal screen.
        restore();
        tracing::error!("panic: {info}");
        previous(info);
    }));
}
