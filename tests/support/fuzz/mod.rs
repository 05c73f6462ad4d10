//! The checks behind every fuzz target (`fuzz/fuzz_targets/*.rs`), shared with the ordinary
//! test suite: each target is one call into this module, and `tests/suite/fuzz/corpus.rs` runs
//! the same functions over the committed corpora and over every crash the fuzzers found,
//! so CI keeps them fixed without running a fuzzer.
//!
//! Each function takes arbitrary bytes and panics when an invariant breaks; a panic is
//! what the fuzzer reports as a crash.

#![allow(dead_code)]

pub mod acp;
pub mod claude;
pub mod files;
pub mod git;
pub mod mcp_content;
pub mod readers;
pub mod rules;
pub mod sse;

pub mod text;
pub mod tools;

/// No input is read past this size: the fuzzers run with `-max_len` below it, and the
/// harness ignores anything larger, so memory stays bounded.
pub const MAX_INPUT: usize = 64 * 1024;
