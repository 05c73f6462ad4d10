//! `tooloop export SESSION --format md|html [-o FILE]`.

pub mod command;
