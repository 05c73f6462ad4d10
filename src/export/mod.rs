//! A conversation written out for people to read.

pub mod markdown;
