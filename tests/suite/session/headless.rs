//! Sessions through the real binary: write, continue, resume, list, --no-session, modes.

use crate::support;

use support::session::{Sandbox, session_id};
use tooloop::session::load;

#[test]
fn a_session_is_written_continued_resumed_and_listed() {
    let sb = Sandbox::new();
    let first = sb.demo("what time is it", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let m1 = first.messages();
    let files = sb.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let id = session_id(&files[0]);
    let name = files[0]
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert!(name.ends_with(&format!("Z-{id}.jsonl")), "{name}");
    assert_eq!(load::read(&files[0]).expect("loads").messages, m1);

    let second = sb.demo("read notes.txt", &["--continue"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let m2 = second.messages();
    assert!(m2.len() > m1.len(), "{m2:?}");
    assert_eq!(
        m2[..m1.len()],
        m1[..],
        "the continued run carries the first run's history"
    );
    assert_eq!(
        sb.session_files(),
        files,
        "continue appends to the same file"
    );
    assert_eq!(load::read(&files[0]).expect("loads").messages, m2);

    let third = sb.demo("list the files here", &["--resume", &id]);
    assert_eq!(third.code, 0, "{}", third.stderr);
    let m3 = third.messages();
    assert_eq!(m3[..m2.len()], m2[..]);
    assert_eq!(load::read(&files[0]).expect("loads").messages, m3);

    // A plain run starts a new session; --continue now takes that one.
    let fourth = sb.demo("what time is it", &[]);
    assert_eq!(fourth.code, 0, "{}", fourth.stderr);
    let files = sb.session_files();
    assert_eq!(files.len(), 2);
    let new_id = session_id(&files[1]);
    let fifth = sb.demo("what time is it", &["-c"]);
    assert_eq!(fifth.code, 0, "{}", fifth.stderr);
    assert_eq!(
        fifth.messages()[..fourth.messages().len()],
        fourth.messages()[..]
    );
    assert_eq!(
        load::read(&files[0]).expect("loads").messages,
        m3,
        "old one untouched"
    );

    let list = sb.cmd().arg("sessions").output().expect("runs");
    assert!(list.status.success());
    let text = String::from_utf8_lossy(&list.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("ID"), "{text}");
    assert!(lines[1].starts_with(&new_id), "newest first: {text}");
    assert!(lines[2].starts_with(&id), "{text}");
    assert!(lines[2].contains("what time is it"), "{text}");
    let cols: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(cols[3], "3", "three prompts: {text}");
    let turns: u32 = [&first, &second, &third]
        .iter()
        .map(|r| r.result()["turns"].as_u64().expect("turns") as u32)
        .sum();
    assert_eq!(cols[4], turns.to_string(), "{text}");
}

#[test]
fn no_session_writes_nothing() {
    let sb = Sandbox::new();
    let run = sb.demo("what time is it", &["--no-session"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!sb.path("data").exists(), "nothing under the data dir");
    let listed = sb.cmd().arg("sessions").output().expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout),
        "no saved sessions\n"
    );
}

#[test]
fn continue_without_a_session_and_an_unknown_id_are_clear_errors() {
    let sb = Sandbox::new();
    let run = sb.demo("hi", &["--continue"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no saved session for workspace"),
        "{}",
        run.stderr
    );
    let run = sb.demo("hi", &["--resume", "nope"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no session \"nope\""), "{}", run.stderr);
    let run = sb.demo("hi", &["--resume", "x", "--no-session"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--no-session cannot be combined"),
        "{}",
        run.stderr
    );
}

#[cfg(unix)]
#[test]
fn files_are_owner_only_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    // The sandbox's environment on a shell that loosens the umask before exec'ing tooloop.
    let base = sb.cmd();
    let mut cmd = std::process::Command::new("sh");
    cmd.current_dir(&sb.workspace);
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = cmd
        .args([
            "-c",
            "umask 000; exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_tooloop"),
        ])
        .args([
            "--provider",
            "demo",
            "--output-format",
            "json",
            "-p",
            "what time is it",
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("exists").permissions().mode() & 0o777;
    let files = sb.session_files();
    assert_eq!(files.len(), 1);
    assert_eq!(mode(&files[0]), 0o600, "transcript");
    assert_eq!(mode(&sb.sessions_dir()), 0o700, "sessions dir");
    assert_eq!(mode(&sb.path("data/tooloop")), 0o700, "data dir");
    assert_eq!(mode(&sb.path("state/tooloop")), 0o700, "log dir");
}
