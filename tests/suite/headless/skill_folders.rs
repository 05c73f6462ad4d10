//! A skill folder as its author laid it out (tests/fixtures/skills, written for this project in
//! the shapes public skills use): only names and descriptions are offered, the `skill` call
//! brings the body and the folder's path, and a script in the folder runs as the body tells
//! the model to run it.

use crate::support;

use std::path::Path;
use std::process::Command;

use serde_json::json;
use support::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/skills");

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn git(ws: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[test]
fn a_skill_is_offered_lazily_and_its_script_runs() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for name in ["changelog-writer", "commit-helper", "release-notes-style"] {
        copy_dir(
            &Path::new(FIXTURES).join(name),
            &ws.join(".claude/skills").join(name),
        );
    }
    git(&ws, &["init", "-q"]);
    std::fs::write(ws.join("notes.txt"), "one\n").unwrap();
    git(&ws, &["add", "notes.txt"]);
    git(&ws, &["commit", "-qm", "Add the release notes file"]);
    let folder = ws.join(".claude/skills/changelog-writer");
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "skill", json!({"name": "changelog-writer"}))
            .usage(10, 5)
            .build(),
    );
    // What the body says to do first: run the folder's script.
    let script = format!("bash {}/scripts/commits.sh", folder.display());
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_2", "bash", json!({"command": script}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("written").usage(10, 5).build());
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "").unwrap();
    let r = headless_with_config(
        &server,
        "write the changelog",
        &cfg,
        &ws,
        &["--allow-tool", "bash"],
    )
    .run();
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let reqs = server.accepted();
    let listing = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "skill")
        .expect("the skill tool")["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        listing.contains("- changelog-writer: Writes a CHANGELOG entry"),
        "{listing}"
    );
    assert!(listing.contains("- release-notes-style: "), "{listing}");
    assert!(
        !listing.contains("commit-helper"),
        "disable-model-invocation keeps it out: {listing}"
    );
    assert!(
        !reqs[0].body_text.contains("Keep a Changelog"),
        "no body before the call"
    );
    let second = &reqs[1].body_text;
    assert!(second.contains("Keep a Changelog"), "the body");
    assert!(second.contains(&folder.display().to_string()), "the folder");
    let ends = r.of_type("tool_end");
    assert_eq!(ends[0]["is_error"], false, "{}", ends[0]);
    assert_eq!(ends[1]["is_error"], false, "{}", ends[1]);
    assert!(
        ends[1]["output"]
            .as_str()
            .unwrap()
            .contains("Add the release notes file"),
        "the skill's own script ran: {}",
        ends[1]
    );
    assert_valid_history(r.result());
}
