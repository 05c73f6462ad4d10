//! `-p "/NAME args"` for a skill: used the way the model's `skill` call uses it. The body
//! (with its folder) reaches the first request on the user's side after the prompt as
//! typed, `allowed-tools` are granted, and the skill's `model` is used for the prompt's
//! requests. A `/word` that names no skill is sent as typed.

use crate::support;

use std::path::Path;

use serde_json::json;
use support::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/skills");

fn install(ws: &Path, name: &str) {
    let to = ws.join(".claude/skills").join(name);
    std::fs::create_dir_all(to.join("scripts")).unwrap();
    let from = Path::new(FIXTURES).join(name);
    for e in walk(&from) {
        let target = to.join(e.strip_prefix(&from).unwrap());
        std::fs::copy(&e, target).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

fn run(server: &MockServer, ws: &Path, prompt: &str) -> Run {
    let cfg = ws.parent().unwrap().join("config.toml");
    std::fs::write(&cfg, "").unwrap();
    headless_with_config(server, prompt, &cfg, ws, &[]).run()
}

#[test]
fn a_typed_skill_expands_grants_its_tools_and_uses_its_model() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    install(&ws, "changelog-writer");
    // The same skill, asking for another model for the turns it is active.
    let md = ws.join(".claude/skills/changelog-writer/SKILL.md");
    let text = std::fs::read_to_string(&md).unwrap();
    std::fs::write(
        &md,
        text.replacen("---\n", "---\nmodel: claude-mock-small\n", 1),
    )
    .unwrap();
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use(
                "toolu_1",
                "bash",
                json!({"command": "git log --oneline -3"}),
            )
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("done").usage(10, 5).build());
    let r = run(&server, &ws, "/changelog-writer API changes only");
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let reqs = server.accepted();
    let first = &reqs[0];
    let messages = first.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "one user message: {}", first.body_text);
    let blocks = messages[0]["content"].as_array().unwrap();
    assert_eq!(blocks[0]["text"], "/changelog-writer API changes only");
    let skill = blocks[1]["text"].as_str().unwrap();
    assert!(
        skill.starts_with("<command-name>/changelog-writer</command-name>\n"),
        "{skill}"
    );
    assert!(skill.contains("Keep a Changelog"), "{skill}");
    assert!(skill.contains("Focus: API changes only"), "{skill}");
    assert!(
        skill.contains(".claude/skills/changelog-writer"),
        "the folder: {skill}"
    );
    // Its model, for every request of the prompt.
    for req in &reqs {
        assert_eq!(req.body["model"], "claude-mock-small");
    }
    // allowed-tools: Bash(git log:*) was granted by the typed command, as by the tool.
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
fn a_slash_word_that_is_no_skill_is_sent_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    install(&ws, "changelog-writer");
    let server = MockServer::start();
    server.enqueue(ReplyBuilder::new().text("ok").usage(10, 5).build());
    let r = run(&server, &ws, "/nosuch thing");
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let first = &server.accepted()[0];
    let blocks = first.body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{}", first.body_text);
    assert_eq!(blocks[0]["text"], "/nosuch thing");
    assert_eq!(first.body["model"], "claude-mock");
    assert!(!first.body_text.contains("Keep a Changelog"));
    assert_valid_history(r.result());
}

#[test]
fn a_skill_the_model_calls_switches_the_model_from_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let d = ws.join(".claude/skills/quick");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("SKILL.md"),
        "---\nname: quick\ndescription: Quick answers.\nmodel: claude-mock-small\n---\nBe brief.\n",
    )
    .unwrap();
    let server = MockServer::start();
    server.enqueue(
        ReplyBuilder::new()
            .tool_use("toolu_1", "skill", json!({"name": "quick"}))
            .usage(10, 5)
            .build(),
    );
    server.enqueue(ReplyBuilder::new().text("brief").usage(10, 5).build());
    let r = run(&server, &ws, "answer quickly");
    assert_eq!(r.code, Some(0), "stderr:\n{}", r.stderr);
    let reqs = server.accepted();
    assert_eq!(reqs[0].body["model"], "claude-mock");
    assert_eq!(reqs[1].body["model"], "claude-mock-small");
    assert_valid_history(r.result());
}
