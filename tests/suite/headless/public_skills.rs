//! Public skills as their authors wrote them (tests/fixtures/public_skills, from
//! anthropics/skills, Apache-2.0): they load, only their names and descriptions are
//! offered, the `skill` call brings the body and folder, and a script in the folder runs
//! as the body tells the model to run it. A typed `/NAME` brings the same body.

use crate::support;

use std::path::Path;

use serde_json::json;
use support::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/public_skills");

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

fn workspace(dir: &Path) -> std::path::PathBuf {
    let ws = dir.join("ws");
    for name in ["brand-guidelines", "internal-comms", "webapp-testing"] {
        copy_dir(
            &Path::new(FIXTURES).join(name),
            &ws.join(".claude/skills").join(name),
        );
    }
    ws
}

fn run(server: &MockServer, dir: &Path, ws: &Path, prompt: &str, extra: &[&str]) -> Run {
    let cfg = dir.join("config.toml");
    std::fs::write(&cfg, "").unwrap();
    headless_with_config(server, prompt, &cfg, ws, extra).run()
}

#[test]
fn public_skills_are_offered_lazily_and_their_scripts_run() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let folder = ws.join(".claude/skills/webapp-testing");
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "skill", json!({"name": "webapp-testing"}))
            .usage(10, 5)
            .build(),
    );
    // What the body says to do first: run the helper with --help.
    let help = format!("python3 {}/scripts/with_server.py --help", folder.display());
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_2", "bash", json!({"command": help}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("tested").usage(10, 5).build());
    let r = run(
        &server,
        dir.path(),
        &ws,
        "test the web app",
        &["--allow-tool", "bash"],
    );
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
    for name in ["brand-guidelines", "internal-comms", "webapp-testing"] {
        assert!(listing.contains(&format!("- {name}: ")), "{listing}");
    }
    assert!(listing.contains("Toolkit for interacting with and testing local web applications"));
    assert!(
        !reqs[0].body_text.contains("Helper Scripts Available"),
        "no body before the call"
    );
    let second = &reqs[1].body_text;
    assert!(second.contains("Helper Scripts Available"), "the body");
    assert!(second.contains(&folder.display().to_string()), "the folder");
    let ends = r.of_type("tool_end");
    assert_eq!(ends[0]["is_error"], false, "{}", ends[0]);
    assert_eq!(ends[1]["is_error"], false, "{}", ends[1]);
    assert!(
        ends[1]["output"]
            .as_str()
            .unwrap()
            .contains("Run command with one or more servers"),
        "the skill's own script ran: {}",
        ends[1]
    );
    assert_valid_history(r.result());
}

#[test]
fn a_public_skill_typed_as_a_command_brings_the_same_body() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("drafted").usage(10, 5).build());
    let r = run(
        &server,
        dir.path(),
        &ws,
        "/internal-comms a 3P update for the platform team",
        &[],
    );
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let first = &server.accepted()[0].body_text;
    assert!(first.contains("<command-name>/internal-comms</command-name>"));
    assert!(first.contains("When to use this skill"), "{first}");
    assert!(first.contains("Arguments: a 3P update for the platform team"));
    assert!(
        first.contains(".claude/skills/internal-comms"),
        "its folder, for examples/"
    );
    assert_valid_history(r.result());
}
