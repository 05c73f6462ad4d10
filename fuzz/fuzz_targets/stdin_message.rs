//! `cargo +nightly fuzz run stdin_message`: the checks are in tests/support/fuzz (FUZZING.md).
#![no_main]

#[path = "../../tests/support/fuzz/mod.rs"]
mod fuzz_support;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_support::readers::stdin_message(data));
