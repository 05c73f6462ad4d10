//! The terminal_input fuzz target's corpus, in a test binary of its own: its check puts a pty
//! on this process's fd 0 (the TUI's stdin), which no other test may share — in the one-binary
//! suite every test's spawned children would inherit it.

#[path = "support/fuzz/terminal.rs"]
mod terminal;

use std::path::Path;

#[test]
fn corpus_terminal_input() {
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
