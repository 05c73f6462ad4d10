//! Logs: tracing to a daily rolling file in the state directory. Never stdout or stderr,
//! which belong to the TUI or to headless output.

use std::path::PathBuf;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::EnvFilter;

/// tooloop's own events at info, everyone else's (hyper, reqwest) only when they warn.
pub const DEFAULT_FILTER: &str = "warn,tooloop=info";

const LEVELS: &[&str] = &["off", "error", "warn", "info", "debug", "trace"];

/// Keeps the background writer alive; dropping it flushes what is left.
pub struct LogGuard {
    _guard: WorkerGuard,
}

/// The filter for this run: --log-level beats TOOLOOP_LOG beats the config file. A bare
/// level applies to tooloop itself (dependencies stay at warn); anything else is taken as
/// EnvFilter directives, e.g. `tooloop=debug,reqwest=trace`.
pub fn filter_directives(
    flag: Option<&str>,
    env: Option<&str>,
    file: Option<&str>,
) -> Result<String, String> {
    let Some(raw) = flag.or(env).or(file).map(str::trim) else {
        return Ok(DEFAULT_FILTER.to_string());
    };
    let lower = raw.to_ascii_lowercase();
    let directives = if LEVELS.contains(&lower.as_str()) {
        format!("warn,tooloop={lower}")
    } else {
        raw.to_string()
    };
    EnvFilter::try_new(&directives).map_err(|e| format!("log filter {raw:?}: {e}"))?;
    Ok(directives)
}

/// Starts logging to `tooloop.YYYY-MM-DD.log` in [`crate::paths::log_dir`] and returns the
/// guard (keep it for the program's lifetime) and the directory.
pub fn init(directives: &str) -> Result<(LogGuard, PathBuf), String> {
    let dir = crate::paths::log_dir()?;
    crate::paths::create_private_dir(&dir, crate::paths::tooloop_root(&dir))
        .map_err(|e| format!("log directory {}: {e}", dir.display()))?;
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("tooloop")
        .filename_suffix("log")
        .max_log_files(14)
        .build(&dir)
        .map_err(|e| format!("log file in {}: {e}", dir.display()))?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = EnvFilter::try_new(directives).map_err(|e| format!("log filter: {e}"))?;
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .map_err(|e| format!("logging: {e}"))?;
    Ok((LogGuard { _guard: guard }, dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_beats_the_environment_beats_the_file() {
        assert_eq!(
            filter_directives(Some("debug"), Some("trace"), Some("error")),
            Ok("warn,tooloop=debug".into())
        );
        assert_eq!(
            filter_directives(None, Some("trace"), Some("error")),
            Ok("warn,tooloop=trace".into())
        );
        assert_eq!(
            filter_directives(None, None, Some("error")),
            Ok("warn,tooloop=error".into())
        );
        assert_eq!(
            filter_directives(None, None, None),
            Ok(DEFAULT_FILTER.into())
        );
    }

    #[test]
    fn directives_pass_through_and_garbage_is_refused() {
        assert_eq!(
            filter_directives(None, Some("tooloop=debug,reqwest=trace"), None),
            Ok("tooloop=debug,reqwest=trace".into())
        );
        assert!(filter_directives(Some("tooloop=loud"), None, None).is_err());
    }
}
