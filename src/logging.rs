//! Logs: tracing to a daily rolling file in the state directory. Never stdout or stderr,
//! which belong to the TUI or to headless output.

use std::path::PathBuf;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::EnvFilter;

/// tooloop's own events at info, everyone else's (hyper, reqwest) only when they warn.
pub const DEFAULT_FILTER: &str = "warn,tooloop=info";

const LEVELS: &[&str] = &["off", "error", "warn", "info", "debug", "trace"];

/// A log filter that does not parse (a usage error: exit status 2).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("log filter {raw:?}: {reason}")]
pub struct FilterError {
    pub raw: String,
    pub reason: String,
}

/// Why logging could not start (a warning: tooloop runs without a log).
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error(transparent)]
    Paths(#[from] crate::paths::PathsError),
    #[error("log directory {}: {source}", dir.display())]
    Directory {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("log file in {}: {reason}", dir.display())]
    File { dir: PathBuf, reason: String },
    #[error("logging: {0}")]
    Subscriber(String),
}

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
) -> Result<String, FilterError> {
    let Some(raw) = flag.or(env).or(file).map(str::trim) else {
        return Ok(DEFAULT_FILTER.to_string());
    };
    let lower = raw.to_ascii_lowercase();
    let directives = if LEVELS.contains(&lower.as_str()) {
        format!("warn,tooloop={lower}")
    } else {
        raw.to_string()
    };
    EnvFilter::try_new(&directives).map_err(|e| FilterError {
        raw: raw.to_string(),
        reason: e.to_string(),
    })?;
    Ok(directives)
}

/// Starts logging to `tooloop.YYYY-MM-DD.log` in [`crate::paths::log_dir`] and returns the
/// guard (keep it for the program's lifetime) and the directory.
pub fn init(directives: &str) -> Result<(LogGuard, PathBuf), LogError> {
    let dir = crate::paths::log_dir()?;
    crate::paths::create_private_dir(&dir, crate::paths::tooloop_root(&dir)).map_err(|source| {
        LogError::Directory {
            dir: dir.clone(),
            source,
        }
    })?;
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("tooloop")
        .filename_suffix("log")
        .max_log_files(14)
        .build(&dir)
        .map_err(|e| LogError::File {
            dir: dir.clone(),
            reason: e.to_string(),
        })?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = EnvFilter::try_new(directives).map_err(|e| LogError::Subscriber(e.to_string()))?;
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .map_err(|e| LogError::Subscriber(e.to_string()))?;
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
