//! `tooloop replay` as main runs it: find the recording, then play it to stdout or the TUI.

use crate::cli::{Cli, OutputFormat};
use crate::config::{Config, ProcessEnv};

pub struct Options {
    pub speed: f64,
    pub step: bool,
    pub print: bool,
    pub format: OutputFormat,
}

/// Returns the exit status: the original run's with -p, 2 for bad usage or a missing
/// recording.
pub async fn run(cli: &Cli, session: &str, opts: Options) -> i32 {
    let fail = |e: crate::recording::RecordError| {
        eprintln!("tooloop: {e}");
        2
    };
    let speed = match super::check_speed(opts.speed) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let source = match crate::recording::source::resolve(session) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let path = match source.require_recording() {
        Ok(p) => p.to_path_buf(),
        Err(e) => return fail(e),
    };
    let recording = match crate::recording::read(&path) {
        Ok(r) => r,
        Err(e) => return fail(crate::recording::RecordError::io(&path, e)),
    };
    if recording.skipped > 0 {
        eprintln!(
            "tooloop: {}: {} damaged lines skipped",
            path.display(),
            recording.skipped
        );
    }
    if opts.print {
        return super::headless::run(recording, speed, opts.format).await;
    }
    let config = match Config::resolve(cli, &ProcessEnv) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tooloop: {e}");
            return 2;
        }
    };
    let tui = super::tui::Options {
        speed,
        step: opts.step,
    };
    match super::tui::run(config, path, recording, tui).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tooloop: {e:#}");
            1
        }
    }
}
