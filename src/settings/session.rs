//! Which session a run writes to (new, continued, resumed, forked, none) and what it writes
//! beside it (a recording, a trace).

use std::path::PathBuf;

use serde::Deserialize;

use super::SettingsError;
use crate::session::SessionMode;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct SessionFlags {
    /// Write the turn timeline as Chrome Trace Event JSON.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// Resume the most recent session of this workspace.
    #[arg(long = "continue", short = 'c')]
    pub continue_session: bool,

    /// Resume a session by id.
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,

    /// With --resume/--continue: go on in a new session holding a copy of that one
    /// (the original transcript is left byte for byte as it was).
    #[arg(long)]
    pub fork: bool,

    /// Write no transcript.
    #[arg(long)]
    pub no_session: bool,

    /// Write every request body, raw stream event and tool run beside the transcript
    /// (`tooloop replay` plays it back); `--record=gzip` compresses it.
    #[arg(long, value_enum, value_name = "plain|gzip", num_args = 0..=1,
          require_equals = true, default_missing_value = "plain")]
    pub record: Option<crate::recording::Format>,
}

/// The section's keys at the top of `config.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct SessionFile {
    /// Write a recording beside each transcript: true, false, "plain" or "gzip".
    pub record: Option<crate::recording::Setting>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SessionSettings {
    pub mode: SessionMode,
    /// --fork: continue the resumed session in a new one (the original stays as it was).
    pub fork: bool,
    /// `--record` / `record = …`: write a recording beside the transcript.
    pub record: Option<crate::recording::Format>,
    pub trace: Option<PathBuf>,
}

pub fn resolve(flags: &SessionFlags, file: &SessionFile) -> Result<SessionSettings, SettingsError> {
    let mode = match (&flags.resume, flags.continue_session, flags.no_session) {
        (_, _, true) if flags.resume.is_some() || flags.continue_session => {
            return Err(SettingsError::Conflict(
                "--no-session cannot be combined with --resume or --continue",
            ));
        }
        (Some(_), true, _) => {
            return Err(SettingsError::Conflict(
                "--resume and --continue exclude each other",
            ));
        }
        (_, _, true) => SessionMode::Off,
        (Some(id), false, _) => SessionMode::Resume(id.clone()),
        (None, true, _) => SessionMode::Continue,
        (None, false, _) => SessionMode::New,
    };
    if flags.fork && !matches!(mode, SessionMode::Resume(_) | SessionMode::Continue) {
        return Err(SettingsError::Conflict(
            "--fork needs --resume ID or --continue (the session to fork)",
        ));
    }
    Ok(SessionSettings {
        mode,
        fork: flags.fork,
        record: match (flags.record, &file.record) {
            (Some(f), _) => Some(f),
            (None, Some(s)) => s.format()?,
            (None, None) => None,
        },
        trace: flags.trace.clone(),
    })
}
