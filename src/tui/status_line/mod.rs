//! A status line from the user's script (`[tui] status_line` in config.toml, or Claude
//! Code's `statusLine` in settings.json): the command gets Claude Code's JSON on stdin and
//! its first lines of stdout (up to [`MAX_LINES`]; the status area grows to hold them),
//! colours kept (sanitized), replace tooloop's status bar.
//!
//! It runs beside the UI, never in a frame: at most every 300 ms, when something happened
//! (an agent event) since its last run; a run is stopped after 1 s. A failure (exit code,
//! timeout, nothing printed) puts tooloop's own status bar back and is said once.

pub mod ansi;
pub mod tally;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ratatui::text::Line;
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Runs are at least this far apart.
pub const MIN_INTERVAL: Duration = Duration::from_millis(300);
/// A run is stopped after this long.
pub const TIMEOUT: Duration = Duration::from_secs(1);
/// How often a running script's result is looked for.
const POLL: Duration = Duration::from_millis(50);
/// Most characters of a line kept.
const MAX_CHARS: usize = 500;
/// Most lines of stdout shown (each a row of the status area).
pub const MAX_LINES: usize = 3;

/// The command and its padding (columns before the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusLineCommand {
    pub command: String,
    pub padding: u16,
}

/// What the last finished run gave.
enum Outcome {
    Lines(Vec<Line<'static>>),
    Failed(String),
}

pub struct StatusLine {
    spec: StatusLineCommand,
    cwd: PathBuf,
    /// The run under way writes its outcome here.
    slot: Arc<Mutex<Option<Outcome>>>,
    running: bool,
    last_start: Option<Instant>,
    /// Something happened since the last run started.
    pending: bool,
    lines: Option<Vec<Line<'static>>>,
    /// The failure notice not yet said (said once per failing streak).
    notice: Option<String>,
    failing: bool,
}

impl StatusLine {
    pub fn new(spec: StatusLineCommand, cwd: PathBuf) -> StatusLine {
        StatusLine {
            spec,
            cwd,
            slot: Arc::new(Mutex::new(None)),
            running: false,
            last_start: None,
            pending: true,
            lines: None,
            notice: None,
            failing: false,
        }
    }

    /// Something changed (an agent event): run again when allowed.
    pub fn poke(&mut self) {
        self.pending = true;
    }

    /// The lines to draw instead of tooloop's status bar (None: draw tooloop's own).
    pub fn lines(&self) -> Option<&[Line<'static>]> {
        self.lines.as_deref().filter(|_| !self.failing)
    }

    pub fn padding(&self) -> u16 {
        self.spec.padding
    }

    /// The failure notice, once.
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// Takes a finished run's outcome and starts the next run when one is due; `payload`
    /// builds the stdin JSON only then. True when what is drawn changed.
    pub fn tick(&mut self, now: Instant, payload: impl FnOnce() -> Value) -> bool {
        let mut changed = false;
        if self.running
            && let Some(outcome) = self.slot.lock().ok().and_then(|mut s| s.take())
        {
            self.running = false;
            match outcome {
                Outcome::Lines(l) => {
                    self.lines = Some(l);
                    self.failing = false;
                }
                Outcome::Failed(why) => {
                    if !self.failing {
                        self.notice = Some(format!(
                            "status line command failed ({why}); showing tooloop's own"
                        ));
                    }
                    self.failing = true;
                }
            }
            changed = true;
        }
        let due = self
            .last_start
            .is_none_or(|t| now.duration_since(t) >= MIN_INTERVAL);
        if !self.running && self.pending && due {
            self.pending = false;
            self.running = true;
            self.last_start = Some(now);
            self.start(serde_json::to_vec(&payload()).unwrap_or_default());
        }
        changed
    }

    /// When the loop should look again (a run under way, or one due after the interval).
    pub fn next_wakeup(&self, now: Instant) -> Option<Instant> {
        if self.running {
            return Some(now + POLL);
        }
        if self.pending {
            return Some(self.last_start.map_or(now, |t| t + MIN_INTERVAL).max(now));
        }
        None
    }

    fn start(&self, stdin: Vec<u8>) {
        let (command, cwd, slot) = (
            self.spec.command.clone(),
            self.cwd.clone(),
            self.slot.clone(),
        );
        tokio::spawn(async move {
            let p = crate::hooks::runner::run_hook(
                &command,
                &cwd,
                stdin,
                TIMEOUT,
                &CancellationToken::new(),
            )
            .await;
            let shown = shown_lines(&p.stdout);
            let outcome = match (p.exit, shown.is_empty()) {
                _ if p.timed_out => {
                    Outcome::Failed(format!("killed after {} s", TIMEOUT.as_secs()))
                }
                _ if p.spawn_error.is_some() => {
                    Outcome::Failed(p.spawn_error.clone().unwrap_or_default())
                }
                (Some(0), false) => {
                    Outcome::Lines(shown.iter().map(|l| ansi::line(l, MAX_CHARS)).collect())
                }
                (Some(0), true) => Outcome::Failed("it printed nothing".into()),
                (Some(code), _) => Outcome::Failed(format!("exit code {code}")),
                (None, _) => Outcome::Failed("killed by a signal".into()),
            };
            if let Ok(mut s) = slot.lock() {
                *s = Some(outcome);
            }
        });
    }
}

/// The first [`MAX_LINES`] lines of stdout, blank lines at either end left out (a
/// blank line between two kept, as the script printed it).
fn shown_lines(stdout: &str) -> Vec<&str> {
    let lines: Vec<&str> = stdout.lines().collect();
    let Some(first) = lines.iter().position(|l| !l.trim().is_empty()) else {
        return Vec::new();
    };
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(first);
    lines[first..=last]
        .iter()
        .take(MAX_LINES)
        .copied()
        .collect()
}

/// What the script reads on stdin: Claude Code's status-line JSON.
pub struct Facts<'a> {
    pub session_id: &'a str,
    pub transcript_path: String,
    pub cwd: &'a std::path::Path,
    pub model: &'a str,
    pub cost_usd: f64,
    pub context_tokens: u64,
    pub window: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub duration_ms: u64,
    pub api_duration_ms: u64,
    pub lines_added: u64,
    pub lines_removed: u64,
}

pub fn payload(f: &Facts<'_>) -> Value {
    let dir = f.cwd.display().to_string();
    json!({
        "hook_event_name": "Status",
        "session_id": f.session_id,
        "transcript_path": f.transcript_path,
        "cwd": dir,
        "model": {"id": f.model, "display_name": f.model},
        "workspace": {"current_dir": dir, "project_dir": dir},
        "version": env!("CARGO_PKG_VERSION"),
        "output_style": {"name": "default"},
        "cost": {
            "total_cost_usd": f.cost_usd,
            "total_duration_ms": f.duration_ms,
            "total_api_duration_ms": f.api_duration_ms,
            "total_lines_added": f.lines_added,
            "total_lines_removed": f.lines_removed
        },
        "context_window": {
            "context_window_size": f.window,
            "total_input_tokens": f.input_tokens,
            "total_output_tokens": f.output_tokens,
            "current_usage": f.context_tokens
        },
        "exceeds_200k_tokens": f.context_tokens > 200_000
    })
}
