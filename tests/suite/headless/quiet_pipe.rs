//! Issue 41, item 19: small things a person meets on the command line and in saved files.
//! `tooloop export ID | head` exits quietly (no "Broken pipe", status 0) as other CLI tools
//! do; JSON saved with Ctrl+S is owner-only like transcripts.

use std::process::Command;

use tokio::time::Instant;

use crate::support::tui as tui_support;

/// A transcript whose export is far larger than a pipe's buffer, so `head` closes the pipe
/// while tooloop is still writing.
fn big_transcript(dir: &std::path::Path) -> std::path::PathBuf {
    use serde_json::json;
    let text: String = (0..20_000)
        .map(|i| format!("line {i} of a long answer\n"))
        .collect();
    let lines = [
        json!({"type":"header","id":"dddd0004","created":"2026-12-01T06:30:12Z",
               "workspace":"/w","tooloop_version":"0.1.0","format":1}),
        json!({"type":"prompt_start","time":"2026-12-01T06:30:13Z","prompt":"hi","model":"m"}),
        json!({"type":"message","index":0,"message":{"role":"user",
               "content":[{"type":"text","text":"hi"}]}}),
        json!({"type":"message","index":1,"message":{"role":"assistant",
               "content":[{"type":"text","text":text}]}}),
    ];
    let path = dir.join("20261201T063012Z-dddd0004.jsonl");
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, body).expect("write");
    path
}

#[test]
fn export_into_a_closed_pipe_exits_quietly() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = big_transcript(tmp.path());
    let bin = env!("CARGO_BIN_EXE_tooloop");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{bin}' export '{}' | head -c 20 >/dev/null; echo \"status=${{PIPESTATUS[0]}}\"",
            path.display()
        ))
        .env("HOME", tmp.path())
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("status=0"), "{stdout} {stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
}

#[tokio::test(start_paused = true)]
async fn json_saved_with_ctrl_s_is_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().expect("tmp");
    let mut app = tui_support::app();
    app.info.save_dir = tmp.path().join("saved");
    app.panes.json_open = true;
    app.on_key(
        crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('s'),
            crossterm::event::KeyModifiers::CONTROL,
        ),
        Instant::now(),
    );
    let saved: Vec<_> = std::fs::read_dir(tmp.path().join("saved"))
        .expect("the save dir")
        .flatten()
        .collect();
    assert_eq!(saved.len(), 1);
    let mode = saved[0].metadata().expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{:o}", mode);
}
