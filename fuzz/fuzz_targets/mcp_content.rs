//! `cargo +nightly fuzz run mcp_content`: the checks are in tests/support/fuzz (FUZZING.md).
#![no_main]

#[path = "../../tests/support/fuzz/mod.rs"]
mod fuzz_support;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_support::mcp_content::mcp_content(data));
