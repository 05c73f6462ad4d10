//! `cargo +nightly fuzz run terminal_input`: the check is in tests/support/fuzz/terminal.rs
//! (FUZZING.md); the suite runs its corpus in tests/fuzz_terminal.rs, a binary of its own.
#![no_main]

#[path = "../../tests/support/fuzz/terminal.rs"]
mod terminal;

libfuzzer_sys::fuzz_target!(|data: &[u8]| terminal::terminal_input(data));
