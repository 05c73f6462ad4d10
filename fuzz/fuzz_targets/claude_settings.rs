//! `cargo +nightly fuzz run claude_settings`: the checks are in tests/fuzz_support (FUZZING.md).
#![no_main]

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_support::claude::claude_settings(data));
