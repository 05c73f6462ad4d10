//! The API key never reaches a file tooloop writes: transcripts, logs, config.

use crate::support;

use support::session::Sandbox;

const KEY: &str = "sk-secret-test";

#[test]
fn no_file_written_contains_the_key() {
    let sb = Sandbox::new();
    // A real provider pointed at a closed port on 127.0.0.1: whatever is built of it runs
    // (and fails fast); nothing it logs or records may carry the key.
    let real = sb
        .cmd()
        .env("ANTHROPIC_API_KEY", KEY)
        .env("OPENAI_API_KEY", KEY)
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            "http://127.0.0.1:9",
        ])
        .args([
            "--max-retries",
            "1",
            "--log-level",
            "trace",
            "--output-format",
            "json",
        ])
        .args(["-p", "what time is it"])
        .output()
        .expect("runs");
    assert_ne!(real.status.code(), Some(0), "nothing listens on port 9");
    for out in [&real.stdout, &real.stderr] {
        assert!(
            !String::from_utf8_lossy(out).contains(KEY),
            "printed the key"
        );
    }
    // The key in the environment while the demo runs and records a session.
    let demo = sb
        .cmd()
        .env("ANTHROPIC_API_KEY", KEY)
        .args([
            "--provider",
            "demo",
            "--log-level",
            "trace",
            "-p",
            "what time is it",
        ])
        .output()
        .expect("runs");
    assert!(
        demo.status.success(),
        "{}",
        String::from_utf8_lossy(&demo.stderr)
    );
    let init = sb.cmd().args(["config", "init"]).output().expect("runs");
    assert!(init.status.success());

    let files = sb.all_files();
    assert!(!sb.session_files().is_empty(), "a transcript was written");
    assert!(
        files.iter().any(|f| f.to_string_lossy().ends_with(".log")),
        "a log was written: {files:?}"
    );
    for f in &files {
        let bytes = std::fs::read(f).expect("read");
        assert!(
            !String::from_utf8_lossy(&bytes).contains(KEY),
            "{} contains the key",
            f.display()
        );
    }
}
