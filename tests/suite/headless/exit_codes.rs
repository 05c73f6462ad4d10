//! The TUI and headless exit with the same status for the same failure to start (CLI.md:
//! 2 for bad usage or config): `-c` with no saved session, `--resume` of a session another
//! tooloop has open. The TUI fails before it touches the terminal, so no tty is needed.

use crate::support;

use std::path::{Path, PathBuf};

use support::*;

/// A run whose HOME, data and state directories are `home`, in `workspace`.
fn tooloop(home: &Path, workspace: &Path, args: &[&str]) -> Run {
    Tooloop::new(args)
        .env("HOME", &home.to_string_lossy())
        .env("XDG_DATA_HOME", &home.join("data").to_string_lossy())
        .env("XDG_STATE_HOME", &home.join("state").to_string_lossy())
        .env("XDG_CONFIG_HOME", &home.join("config").to_string_lossy())
        .workspace(workspace)
        .run()
}

fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&ws).expect("ws");
    (tmp, home, ws)
}

#[test]
fn continue_without_a_session_is_a_usage_error_in_both() {
    let (_tmp, home, ws) = dirs();
    let tui = tooloop(&home, &ws, &["-c"]);
    let headless = tooloop(&home, &ws, &["-c", "-p", "hi"]);
    assert_eq!(headless.code, Some(2), "{}", headless.stderr);
    assert_eq!(tui.code, Some(2), "{}", tui.stderr);
    for run in [&tui, &headless] {
        assert!(run.stderr.contains("no saved session"), "{}", run.stderr);
    }
}

#[test]
fn a_session_open_elsewhere_is_a_usage_error_in_both() {
    let (_tmp, home, ws) = dirs();
    let first = tooloop(&home, &ws, &["-p", "hi"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let sessions = home.join("data/tooloop/sessions");
    let transcript = std::fs::read_dir(&sessions)
        .expect("sessions dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a transcript");
    let name = transcript.file_stem().expect("stem").to_string_lossy();
    let id = name.rsplit('-').next().expect("id").to_string();
    // Another tooloop holds it: the same lock a running session takes.
    let held = std::fs::File::options()
        .append(true)
        .open(&transcript)
        .expect("open");
    held.lock().expect("lock");
    let tui = tooloop(&home, &ws, &["--resume", &id]);
    let headless = tooloop(&home, &ws, &["--resume", &id, "-p", "hi"]);
    assert_eq!(headless.code, Some(2), "{}", headless.stderr);
    assert_eq!(tui.code, Some(2), "{}", tui.stderr);
    for run in [&tui, &headless] {
        assert!(run.stderr.contains(&id), "{}", run.stderr);
    }
}
