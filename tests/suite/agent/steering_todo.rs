//! The todo list end to end (issue 27): the real binary against the mock Anthropic server.
//! `todo_write` never asks (headless ask = deny would refuse it otherwise), each change is a
//! `todo` line, a list with two items in progress is an error result that changes nothing,
//! `result.todos` holds the list, and a resumed session shows it again.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::*;

fn todos(items: &[(&str, &str)]) -> Value {
    json!({"todos": items.iter().map(|(c, s)| json!({"content": c, "status": s})).collect::<Vec<_>>()})
}

fn run_in(home: &Path, base: &str, prompt: &str, extra: &[&str]) -> Run {
    let workspace = home.join("workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let mut args = vec![
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--provider",
        "anthropic",
        "--base-url",
        base,
    ];
    args.extend_from_slice(extra);
    let run = Tooloop::new(&args)
        .workspace(&workspace)
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("XDG_DATA_HOME", home.join("data").to_str().expect("utf-8"))
        .env(
            "XDG_STATE_HOME",
            home.join("state").to_str().expect("utf-8"),
        )
        .run();
    assert_eq!(
        run.code,
        Some(0),
        "stderr: {}\nstdout: {}",
        run.stderr,
        run.stdout
    );
    assert_valid_history(run.result());
    run
}

#[test]
fn todo_lines_result_todos_and_resume() {
    let home = tempfile::tempdir().expect("home");
    let server = MockServer::start();
    let first = todos(&[
        ("读代码", "completed"),
        ("写测试", "in_progress"),
        ("ship it", "pending"),
    ]);
    server.enqueue(tool_reply(&[("toolu_1", "todo_write", first.clone())]));
    server.enqueue(tool_reply(&[(
        "toolu_2",
        "todo_write",
        todos(&[("a", "in_progress"), ("b", "in_progress")]),
    )]));
    server.enqueue(text_reply("planned"));
    let run = run_in(home.path(), &server.anthropic_base(), "plan the work", &[]);

    // Only the accepted list is a change.
    let lines = run.of_type("todo");
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert_eq!(lines[0]["todos"], first["todos"]);
    assert_eq!(run.result()["todos"], first["todos"]);
    // Never asked, never denied: no permission line says deny.
    assert!(
        run.of_type("permission")
            .iter()
            .all(|p| p["decision"] == "allow"),
        "{}",
        run.stdout
    );
    let requests = server.accepted();
    assert_eq!(requests.len(), 3);
    let r1 = tool_results(&requests[1]);
    assert!(!r1[0].2, "{:?}", r1);
    let r2 = tool_results(&requests[2]);
    assert!(r2[0].2, "two in progress is an error: {:?}", r2);
    assert!(
        r2[0]
            .1
            .as_str()
            .unwrap_or("")
            .contains("at most one item may be in_progress"),
        "{:?}",
        r2
    );
    // The tool is offered with its schema.
    let tools = requests[0].body["tools"].as_array().expect("tools");
    assert!(tools.iter().any(|t| t["name"] == "todo_write"));

    // A resumed session shows the list before anything else happens.
    let server2 = MockServer::start();
    server2.enqueue(text_reply("still there"));
    let resumed = run_in(
        home.path(),
        &server2.anthropic_base(),
        "go on",
        &["--continue"],
    );
    let lines = resumed.of_type("todo");
    assert_eq!(lines.len(), 1, "{}", resumed.stdout);
    assert_eq!(lines[0]["todos"], first["todos"]);
    assert_eq!(resumed.result()["todos"], first["todos"]);

    // A run that never touches the list has no `todos` in its result.
    let server3 = MockServer::start();
    server3.enqueue(text_reply("hi"));
    let plain = run_in(
        home.path(),
        &server3.anthropic_base(),
        "hi",
        &["--no-session"],
    );
    assert!(plain.of_type("todo").is_empty());
    assert!(plain.result().get("todos").is_none(), "{}", plain.stdout);
}
