//! The terminal_input fuzz target's corpus, in a test binary of its own: its check puts a pty
//! on this process's fd 0 (the TUI's stdin), which no other test may share — in the one-binary
//! suite every test's spawned children would inherit it.

#[path = "support/fuzz/terminal.rs"]
mod terminal;

use std::path::Path;
use std::sync::Mutex;

/// The pty is one for the process: its tests take turns.
static SERIAL: Mutex<()> = Mutex::new(());

/// A crash input kept in fuzz/crashes/.
fn crash(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/crashes")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Crash 14 (FUZZING.md): three SGR mouse reports, then one cut short by `!`. crossterm reads
/// an unfinished `ESC [ <` report until an `M` or `m`; the bytes after it (the marker) waited for
/// good. The input must decode, and what follows it must come back.
#[test]
fn regression_terminal_input_unfinished_mouse_report() {
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let data = crash("terminal_input-unfinished-mouse-report");
    assert!(data.starts_with(b"\x1b[<0;10;5M") && data.ends_with(b"\x1b[<6!"));
    terminal::terminal_input(&data);
}

/// Crash 16 (FUZZING.md): `ESC [ ?` then a control byte: crossterm reads on until a `c` or a
/// `u`, blocking in its read once the pty is empty, so the harness hung (the fuzzer stalled).
#[test]
fn regression_terminal_input_unfinished_query_answer() {
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    terminal::terminal_input(b"\x1b[?\x01;lg");
}

/// Crash 15 (FUZZING.md): `CSI 97;5 u` then `CSI 1 u`, kitty-protocol keys; crossterm reports
/// the second as the character U+0001, which reached the input line and the screen.
#[test]
fn regression_terminal_input_control_char_on_screen() {
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let data = crash("terminal_input-control-char-on-screen");
    assert_eq!(data, b"\x1b[97;5u\x1b[1u");
    terminal::terminal_input(&data);
}

#[test]
fn corpus_terminal_input() {
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/terminal_input");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    assert!(!entries.is_empty(), "{} is empty", dir.display());
    for path in entries {
        let data = std::fs::read(&path).expect("corpus file");
        let result = std::panic::catch_unwind(|| terminal::terminal_input(&data));
        assert!(result.is_ok(), "{} fails its check", path.display());
    }
}

/// What an input makes the app write (Ctrl+S saves the JSON pane; `/init` writes
/// AGENTS.md) goes to the harness's scratch workspace, never to the directory the fuzzer
/// or the suite runs in. The fuzzer's runs in fuzz/ left thousands of `history-*.json`
/// saves and an AGENTS.md there before this.
#[test]
fn regression_terminal_input_writes_nowhere_but_its_scratch() {
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let listing = || {
        let mut names: Vec<_> = std::fs::read_dir(".")
            .expect("cwd")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    terminal::terminal_input(b"\x13/init\r");
    assert_eq!(
        listing(),
        before,
        "the input wrote into the working directory"
    );
}

/// Crash 17 (FUZZING.md): an X10 mouse report (`ESC [ M` and three bytes) whose column or
/// row byte is below `!`. crossterm computes `byte - 32 - 1` unchecked: a panic where
/// overflow checks are on (every debug build of tooloop: the TUI died on line noise), a
/// wrap to 65535 in release. Debug builds now build crossterm as release does; the app
/// takes the click at column 65535 like any other outside its panes.
#[test]
fn regression_terminal_input_x10_mouse_underflow() {
    let _turn = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let data = crash("terminal_input-x10-mouse-underflow");
    assert!(data.ends_with(b"\x1b[M \x03"), "{data:?}");
    terminal::terminal_input(&data);
    terminal::terminal_input(b"\x1b[M   ");
}
