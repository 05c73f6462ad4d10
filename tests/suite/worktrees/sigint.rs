//! SIGINT at seeded random points of a real `--worktree -p` run whose model starts two
//! isolated children (each writes a file, then waits on a slow reply) and writes a file
//! itself: whenever it lands (while worktrees are made, while children run, while they are
//! committed or removed), git is left clean: no worktree without its branch, no lock,
//! nothing for `git worktree prune`.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{MockServer, ReplyBuilder, Tooloop};

use super::{assert_git_clean, repo};

const POINTS: u64 = 20;

fn first_prompt(req: &support::Recorded) -> String {
    match &req.body["messages"][0]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(b) => b.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => String::new(),
    }
}

#[test]
fn sigint_at_random_points_leaves_git_clean() {
    let repo = repo();
    let r = repo.path();
    std::fs::write(r.join("draft.txt"), "uncommitted\n").expect("write");
    let server = MockServer::start();
    server.respond_with(|req| {
        let turn = req.body["messages"].as_array().map_or(0, Vec::len);
        let prompt = first_prompt(req);
        if let Some(n) = prompt.strip_prefix("child-") {
            return match turn {
                1 => ReplyBuilder::new()
                    .tool_use(
                        "toolu_w",
                        "write_file",
                        json!({"path": format!("child{n}.txt"), "content": "x\n"}),
                    )
                    .build(),
                _ => ReplyBuilder::new()
                    .text("done")
                    .build()
                    .head_delay(Duration::from_millis(300)),
            };
        }
        match turn {
            1 => ReplyBuilder::new()
                .tool_use(
                    "toolu_p",
                    "write_file",
                    json!({"path": "parent.txt", "content": "p\n"}),
                )
                .tool_use(
                    "toolu_1",
                    "task",
                    json!({"description": "one", "prompt": "child-1", "isolation": "worktree"}),
                )
                .tool_use(
                    "toolu_2",
                    "task",
                    json!({"description": "two", "prompt": "child-2", "isolation": "worktree"}),
                )
                .build()
                .head_delay(Duration::from_millis(100)),
            _ => ReplyBuilder::new().text("all done").build(),
        }
    });
    let base = server.anthropic_base();
    // A fixed seed: the same points on every run of the suite.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut codes = Vec::new();
    for i in 0..POINTS {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let at = Duration::from_millis((state >> 33) % 1_500);
        let name = format!("s{i}");
        let spawned = Tooloop::new(&[
            "--provider",
            "anthropic",
            "--base-url",
            &base,
            "--approval",
            "yolo",
            "--no-session",
            "--output-format",
            "json",
            "--worktree",
            &name,
            "-p",
            "go",
        ])
        .env("ANTHROPIC_API_KEY", "test-key")
        .workspace(r)
        .timeout(Duration::from_secs(30))
        .spawn();
        std::thread::sleep(at);
        // SAFETY: a signal to the child this test started (one that lands before exec kills
        // it outright: code None, nothing made).
        unsafe { libc::kill(spawned.pid() as i32, libc::SIGINT) };
        let run = spawned.wait();
        assert!(
            matches!(run.code, Some(0 | 2 | 130) | None),
            "SIGINT at {at:?}: exit {:?}\n{}",
            run.code,
            run.stderr
        );
        codes.push(run.code);
        assert_git_clean(r);
    }
    // The points reach both ends: some runs were stopped, some (late ones) had finished,
    // and some stopped ones had work to keep (a branch per kept worktree, children's too).
    let branches = super::tooloop_branches(r);
    eprintln!(
        "SIGINT points: exits {codes:?}; {} tooloop branches kept",
        branches.len()
    );
    assert!(codes.contains(&Some(130)), "{codes:?}");
    assert!(codes.contains(&Some(0)), "{codes:?}");
    assert!(!branches.is_empty());
}
