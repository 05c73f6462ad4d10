//! Skills end to end: the real binary, headless, against the mock model, with SKILL.md
//! files in the shapes public skills use (tests/fixtures/skills). Only names and
//! descriptions reach the request; the body joins the history as the `skill` tool's result;
//! allowed-tools are granted for the turn; 50 skills stay within 2 % of the window; a skill
//! written during the session is offered from the next request on.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
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

fn config(dir: &Path) -> PathBuf {
    let p = dir.join("config.toml");
    std::fs::write(&p, "").unwrap();
    p
}

fn skill_tool(req: &Value) -> Option<&Value> {
    req["tools"]
        .as_array()?
        .iter()
        .find(|t| t["name"] == "skill")
}

fn run(server: &MockServer, ws: &Path, extra: &[&str]) -> Run {
    let cfg = config(ws.parent().unwrap());
    headless_with_config(server, "write the changelog", &cfg, ws, extra).run()
}

#[test]
fn the_body_reaches_the_history_only_through_the_skill_call() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    // One skill folder is a symlink (followed), the others copied.
    let shared = dir.path().join("shared");
    copy_dir(Path::new(FIXTURES), &shared);
    std::fs::create_dir_all(ws.join(".claude/skills")).unwrap();
    std::os::unix::fs::symlink(
        shared.join("changelog-writer"),
        ws.join(".claude/skills/changelog-writer"),
    )
    .unwrap();
    copy_dir(
        &shared.join("release-notes-style"),
        &ws.join(".claude/skills/release-notes-style"),
    );
    copy_dir(
        &shared.join("commit-helper"),
        &ws.join(".agents/skills/commit-helper"),
    );
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_1",
                "skill",
                json!({"name": "changelog-writer", "arguments": "API changes only"}),
            )
            .usage(10, 5)
            .build(),
    );
    // allowed-tools has Bash(git log:*): granted for this turn, headless included.
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_2",
                "bash",
                json!({"command": "git log --oneline -3"}),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let r = run(&server, &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let reqs = server.accepted();
    let first = &reqs[0];
    let tool = skill_tool(&first.body).expect("the skill tool is offered");
    let listing = tool["description"].as_str().unwrap();
    assert!(
        listing.contains("- changelog-writer: Writes a CHANGELOG entry"),
        "{listing}"
    );
    assert!(
        listing.contains("- release-notes-style: House style for user-facing release notes"),
        "{listing}"
    );
    assert!(
        !listing.contains("commit-helper"),
        "disable-model-invocation keeps it out: {listing}"
    );
    assert!(
        !first.body_text.contains("Keep a Changelog"),
        "no body before the call"
    );
    let second = &reqs[1].body_text;
    assert!(second.contains("Keep a Changelog"), "{second}");
    assert!(second.contains("Focus: API changes only"), "{second}");
    assert!(
        second.contains(&shared.join("changelog-writer").display().to_string())
            || second.contains(".claude/skills/changelog-writer"),
        "the folder's path: {second}"
    );
    let perms = r.of_type("permission");
    assert_eq!(perms.len(), 1, "{}", r.stdout);
    assert_eq!(perms[0]["decision"], "allow", "{}", r.stdout);
    assert!(
        perms[0]["source"]
            .as_str()
            .unwrap_or("")
            .contains("skill changelog-writer"),
        "{}",
        perms[0]
    );
    assert_valid_history(r.result());
}

#[test]
fn without_the_skill_the_same_command_is_refused() {
    // The grant above really came from allowed-tools: a skill without it gets nothing.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_dir(
        &Path::new(FIXTURES).join("release-notes-style"),
        &ws.join(".tooloop/skills/release-notes-style"),
    );
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "skill", json!({"name": "release-notes-style"}))
            .tool_use(
                "toolu_2",
                "bash",
                json!({"command": "git log --oneline -3"}),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let r = run(&server, &ws, &[]);
    assert_eq!(
        r.of_type("permission")[0]["decision"],
        "deny",
        "{}",
        r.stdout
    );
    assert_valid_history(r.result());
}

#[test]
fn fifty_skills_keep_the_first_request_within_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for i in 0..50 {
        let d = ws.join(format!(".claude/skills/skill-{i:02}"));
        std::fs::create_dir_all(&d).unwrap();
        let description = format!(
            "Skill number {i}: {}",
            "handles one kind of task well. ".repeat(12)
        );
        std::fs::write(
            d.join("SKILL.md"),
            format!("---\nname: skill-{i:02}\ndescription: {description}\n---\nBODY-{i:02}\n"),
        )
        .unwrap();
    }
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
    let r = run(&server, &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let first = &server.accepted()[0];
    let listing = skill_tool(&first.body).unwrap()["description"]
        .as_str()
        .unwrap();
    // claude-mock has the default 200k window: 2 % is 4,000 tokens, 16,000 bytes.
    let list_part = listing.split("Available skills:\n").nth(1).unwrap();
    assert!(list_part.len() <= 16_000, "{} bytes", list_part.len());
    assert!(list_part.contains("- skill-00:"));
    assert!(list_part.contains("left out for room"), "{list_part}");
    assert!(!first.body_text.contains("BODY-"), "no body in the request");
}

#[test]
fn a_skill_written_during_the_session_is_offered_from_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_1",
                "write_file",
                json!({
                    "path": ".claude/skills/fresh/SKILL.md",
                    "content": "---\nname: fresh\ndescription: Appeared mid-session.\n---\nFresh body.\n"
                }),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let r = run(&server, &ws, &["--allow-tool", "write_file"]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let reqs = server.accepted();
    assert!(skill_tool(&reqs[0].body).is_none(), "no skills, no tool");
    let tool = skill_tool(&reqs[1].body).expect("offered from the next request");
    assert!(
        tool["description"]
            .as_str()
            .unwrap()
            .contains("- fresh: Appeared mid-session.")
    );
    assert_valid_history(r.result());
}

#[test]
fn a_bad_skill_file_is_a_notice_with_its_line_and_the_rest_still_load() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_dir(
        &Path::new(FIXTURES).join("release-notes-style"),
        &ws.join(".claude/skills/release-notes-style"),
    );
    std::fs::create_dir_all(ws.join(".claude/skills/broken")).unwrap();
    std::fs::write(
        ws.join(".claude/skills/broken/SKILL.md"),
        "# no front matter here\n",
    )
    .unwrap();
    std::fs::create_dir_all(ws.join(".claude/skills/bad-yaml")).unwrap();
    std::fs::write(
        ws.join(".claude/skills/bad-yaml/SKILL.md"),
        "---\nname: bad-yaml\ndescription: [never closed\n---\nbody\n",
    )
    .unwrap();
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
    let r = run(&server, &ws, &[]);
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let all = format!("{}\n{}", r.stdout, r.stderr);
    assert!(all.contains("broken/SKILL.md:1: no front matter"), "{all}");
    assert!(all.contains("bad-yaml/SKILL.md:"), "{all}");
    let listing = skill_tool(&server.accepted()[0].body).unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(listing.contains("release-notes-style"));
    assert!(!listing.contains("bad-yaml"));
}
