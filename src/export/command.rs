//! `tooloop export` as main runs it.

use std::path::Path;

use crate::cli::ExportFormat;

pub fn run(_session: &str, _format: ExportFormat, _output: Option<&Path>) -> i32 {
    eprintln!("tooloop: export is not built yet");
    2
}
