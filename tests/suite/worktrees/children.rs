//! Three `task` children with `"isolation": "worktree"` side by side, each writing the same
//! file differently: three branches with their own change, the parent's checkout (with its
//! uncommitted changes) untouched, git clean after the run; `tooloop worktrees` lists them.

use crate::support;

use serde_json::{Value, json};
use support::{MockServer, Recorded, ReplyBuilder, Tooloop, assert_valid_history};

use super::{assert_git_clean, git, repo, tooloop_branches};

fn first_prompt(req: &Recorded) -> String {
    match &req.body["messages"][0]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

fn turns(req: &Recorded) -> usize {
    req.body["messages"].as_array().map_or(0, Vec::len)
}

/// Children write `child N` into shared.txt, then report; the parent starts three.
pub fn script(server: &MockServer) {
    server.respond_with(|req| {
        let prompt = first_prompt(req);
        if let Some(rest) = prompt.strip_prefix("child-") {
            let n = &rest[..1];
            return match turns(req) {
                1 => ReplyBuilder::new()
                    .tool_use(
                        "toolu_w",
                        "write_file",
                        json!({"path": "shared.txt", "content": format!("child {n}\n")}),
                    )
                    .build(),
                _ => ReplyBuilder::new().text(&format!("wrote {n}")).build(),
            };
        }
        match turns(req) {
            1 => {
                let mut b = ReplyBuilder::new();
                for n in 1..=3 {
                    b = b.tool_use(
                        &format!("toolu_{n}"),
                        "task",
                        json!({"description": format!("edit {n}"),
                               "prompt": format!("child-{n}: write shared.txt"),
                               "isolation": "worktree"}),
                    );
                }
                b.build()
            }
            _ => ReplyBuilder::new().text("three branches").build(),
        }
    });
}

#[test]
fn three_isolated_children_edit_the_same_file_on_three_branches() {
    let repo = repo();
    let r = repo.path();
    // The parent's uncommitted state: a changed tracked file and a new one.
    std::fs::write(r.join("notes.txt"), "notes, edited by hand\n").expect("write");
    std::fs::write(r.join("draft.txt"), "a draft\n").expect("write");
    let server = MockServer::start();
    script(&server);
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--approval",
        "yolo",
        "--output-format",
        "stream-json",
        "-p",
        "three edits",
    ])
    .env("ANTHROPIC_API_KEY", "test-key")
    .workspace(r)
    .run();
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let result = run.result();
    assert_valid_history(result);
    assert!(server.requests().iter().all(|q| q.rejected.is_none()));

    // The parent's checkout: as it was, uncommitted changes included.
    assert_eq!(
        std::fs::read_to_string(r.join("shared.txt")).unwrap(),
        "base\n"
    );
    assert_eq!(
        std::fs::read_to_string(r.join("notes.txt")).unwrap(),
        "notes, edited by hand\n"
    );
    assert!(r.join("draft.txt").is_file());
    assert_eq!(
        git(r, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "main"
    );
    assert_eq!(git(r, &["log", "--oneline"]).lines().count(), 1);

    // Each tool result names its worktree and branch; each branch holds its child's text
    // and what the parent had uncommitted (the first commit after main).
    let messages = result["messages"].as_array().expect("messages");
    let results: Vec<&Value> = messages[2]["content"]
        .as_array()
        .expect("results")
        .iter()
        .collect();
    assert_eq!(results.len(), 3);
    let mut branches = Vec::new();
    for (i, res) in results.iter().enumerate() {
        let n = i + 1;
        let text = res["content"].as_str().expect("text");
        assert_ne!(res["is_error"], true, "{text}");
        assert!(
            text.starts_with(&format!("wrote {n}\n(agent general · ")),
            "{text}"
        );
        let branch = text
            .split(" · branch ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .unwrap_or_else(|| panic!("no branch in {text}"))
            .to_string();
        assert!(text.contains(" · worktree .tooloop/worktrees/a"), "{text}");
        assert!(text.ends_with(" · 1 file changed)"), "{text}");
        assert_eq!(
            git(r, &["show", &format!("{branch}:shared.txt")]),
            format!("child {n}\n")
        );
        assert_eq!(
            git(r, &["show", &format!("{branch}:notes.txt")]),
            "notes, edited by hand\n"
        );
        assert_eq!(
            git(r, &["show", &format!("{branch}:draft.txt")]),
            "a draft\n"
        );
        // Carried changes first, then the child's own commit.
        assert_eq!(
            git(r, &["rev-list", "--count", &format!("main..{branch}")]).trim(),
            "2"
        );
        let own = git(r, &["diff", "--name-only", &format!("{branch}~1"), &branch]);
        assert_eq!(own.trim(), "shared.txt");
        branches.push(branch);
    }
    branches.sort();
    let mut listed = tooloop_branches(r);
    listed.sort();
    assert_eq!(listed, branches);
    assert_git_clean(r);

    // Each child's requests name its own worktree as the workspace; the parent's do not.
    for q in server
        .accepted()
        .iter()
        .filter(|q| q.path.ends_with("/v1/messages"))
    {
        let system = q.body["system"].to_string();
        let child = first_prompt(q).starts_with("child-");
        assert_eq!(system.contains(".tooloop/worktrees/a"), child, "{system}");
    }

    // `tooloop worktrees` lists the three with their change and session.
    let list = Tooloop::new(&["worktrees"]).workspace(r).run();
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    for b in &branches {
        let line = list
            .stdout
            .lines()
            .find(|l| l.contains(b.as_str()))
            .unwrap_or_else(|| panic!("{b} not listed:\n{}", list.stdout));
        assert!(line.contains("1 file"), "{line}");
        assert!(line.contains("(agent a"), "{line}");
    }
    // `clean` keeps them: each has a change.
    let clean = Tooloop::new(&["worktrees", "clean"]).workspace(r).run();
    assert_eq!(clean.code, Some(0), "{}", clean.stderr);
    assert_eq!(tooloop_branches(r).len(), 3, "{}", clean.stdout);
    assert_git_clean(r);
}
