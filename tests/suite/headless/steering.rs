//! Plan mode and permission rules through the real binary against the mock Anthropic server
//! (issue 27): plan mode refuses a write without asking and ends with `plan_ready` when the
//! model calls `exit_plan_mode`; rules from each of the three files decide, and their
//! `permission` lines name the rule and its file.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::*;

fn run_in(home: &Path, server: &MockServer, extra: &[&str]) -> Run {
    let workspace = home.join("workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let base = server.anthropic_base();
    let mut args = vec![
        "-p",
        "do the task",
        "--output-format",
        "stream-json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--no-session",
    ];
    args.extend_from_slice(extra);
    Tooloop::new(&args)
        .workspace(&workspace)
        .env("ANTHROPIC_API_KEY", "test-key")
        .env(
            "XDG_CONFIG_HOME",
            home.join("config").to_str().expect("utf-8"),
        )
        .run()
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn plan_mode_refuses_writes_and_ends_with_plan_ready() {
    let home = tempfile::tempdir().expect("home");
    let server = MockServer::start();
    server.enqueue(tool_reply(&[
        ("toolu_r", "list_dir", json!({})),
        (
            "toolu_w",
            "write_file",
            json!({"path": "x.txt", "content": "no\n"}),
        ),
    ]));
    let plan = "# Plan\n\n1. Write `x.txt`\n2. Run the tests";
    server.enqueue(tool_reply(&[(
        "toolu_p",
        "exit_plan_mode",
        json!({ "plan": plan }),
    )]));
    let run = run_in(home.path(), &server, &["--approval", "plan"]);
    assert_eq!(
        run.code,
        Some(0),
        "stderr: {}\nstdout: {}",
        run.stderr,
        run.stdout
    );
    let result = run.result();
    assert_eq!(result["reason"], "plan_ready");
    assert_eq!(result["plan"], plan);
    assert_valid_history(result);
    assert!(!home.path().join("workspace/x.txt").exists());
    let requests = server.accepted();
    assert_eq!(
        requests.len(),
        2,
        "the run ends at the plan: no third request"
    );
    assert!(tool_names(&requests[0].body).contains(&"exit_plan_mode".to_string()));
    let results = tool_results(&requests[1]);
    let write = results
        .iter()
        .find(|r| r.0 == "toolu_w")
        .expect("write result");
    assert_eq!(
        write.1,
        "plan mode: only read-only tools run until the plan is approved"
    );
    assert!(write.2);
    let read = results
        .iter()
        .find(|r| r.0 == "toolu_r")
        .expect("read result");
    assert!(!read.2, "read-only tools run in plan mode: {read:?}");
    // Refused without asking: a deny line, never a question.
    let perms = run.of_type("permission");
    assert!(
        perms
            .iter()
            .any(|p| p["name"] == "write_file" && p["decision"] == "deny")
    );
    // The exit_plan_mode call got its result before the run ended.
    let last = result["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned();
    assert_eq!(
        last.as_ref().map(|m| m["role"].clone()),
        Some(json!("user"))
    );
}

#[test]
fn exit_plan_mode_is_offered_only_in_plan_mode() {
    let home = tempfile::tempdir().expect("home");
    let server = MockServer::start();
    server.enqueue(tool_reply(&[(
        "toolu_p",
        "exit_plan_mode",
        json!({"plan": "x"}),
    )]));
    server.enqueue(text_reply("ok"));
    let run = run_in(home.path(), &server, &["--approval", "auto-edit"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(run.result()["reason"], "completed");
    let requests = server.accepted();
    assert!(!tool_names(&requests[0].body).contains(&"exit_plan_mode".to_string()));
    // A model that calls it anyway gets an error it can act on.
    let r = tool_results(&requests[1]);
    assert!(r[0].2, "{r:?}");
}

/// One bash call per command in one reply, then "done"; returns the run and the results.
fn commands(home: &Path, cmds: &[&str], extra: &[&str]) -> (Run, Vec<(String, Value, bool)>) {
    let server = MockServer::start();
    let calls: Vec<(String, &str, Value)> = cmds
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("toolu_{i}"), "bash", json!({ "command": c })))
        .collect();
    let refs: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(i, n, v)| (i.as_str(), *n, v.clone()))
        .collect();
    server.enqueue(tool_reply(&refs));
    server.enqueue(text_reply("done"));
    let run = run_in(home, &server, extra);
    assert_eq!(
        run.code,
        Some(0),
        "stderr: {}\nstdout: {}",
        run.stderr,
        run.stdout
    );
    assert_valid_history(run.result());
    let requests = server.accepted();
    (run, tool_results(&requests[1]))
}

#[test]
fn rules_from_each_file_decide_and_are_named() {
    let home = tempfile::tempdir().expect("home");
    let ws = home.path().join("workspace");
    std::fs::create_dir_all(ws.join(".tooloop")).expect("dirs");
    let user_dir = home.path().join("config/tooloop");
    std::fs::create_dir_all(&user_dir).expect("config dir");
    std::fs::write(
        user_dir.join("config.toml"),
        "[permissions]\nallow = [\"bash(echo user:*)\"]\n",
    )
    .expect("user config");
    std::fs::write(
        ws.join(".tooloop/settings.toml"),
        "[permissions]\nallow = [\"bash(echo project:*)\"]\ndeny = [\"bash(echo denied:*)\"]\n",
    )
    .expect("project settings");
    std::fs::write(
        ws.join(".tooloop/settings.local.toml"),
        "[permissions]\nallow = [\"bash(echo local)\", \"bash(echo denied too)\"]\n",
    )
    .expect("local settings");
    let (run, results) = commands(
        home.path(),
        &[
            "echo user one",
            "echo project two",
            "echo local",
            "echo denied too",
            "echo nobody",
            "echo user $(whoami)",
        ],
        &[],
    );
    let ok = |i: usize| !results[i].2;
    assert!(ok(0) && ok(1) && ok(2), "{results:?}");
    assert!(!ok(3) && !ok(4) && !ok(5), "{results:?}");
    assert!(
        results[3]
            .1
            .as_str()
            .unwrap_or("")
            .contains("bash(echo denied:*)"),
        "{:?}",
        results[3]
    );
    let perms = run.of_type("permission");
    let by_id = |id: &str| {
        perms
            .iter()
            .find(|p| p["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no permission line for {id}: {}", run.stdout))
    };
    let config_path = user_dir.join("config.toml").display().to_string();
    for (id, decision, rule, source) in [
        (
            "toolu_0",
            "allow",
            "bash(echo user:*)",
            config_path.as_str(),
        ),
        (
            "toolu_1",
            "allow",
            "bash(echo project:*)",
            ".tooloop/settings.toml",
        ),
        (
            "toolu_2",
            "allow",
            "bash(echo local)",
            ".tooloop/settings.local.toml",
        ),
        (
            "toolu_3",
            "deny",
            "bash(echo denied:*)",
            ".tooloop/settings.toml",
        ),
    ] {
        let p = by_id(id);
        assert_eq!(p["decision"], decision, "{p}");
        assert_eq!(p["rule"], rule, "{p}");
        assert_eq!(p["source"], source, "{p}");
    }
    let nobody = by_id("toolu_4");
    assert_eq!(nobody["decision"], "deny");
    assert!(nobody.get("rule").is_none(), "{nobody}");
}

#[test]
fn a_bad_rule_is_a_usage_error_naming_the_file() {
    let home = tempfile::tempdir().expect("home");
    let ws = home.path().join("workspace");
    std::fs::create_dir_all(ws.join(".tooloop")).expect("dirs");
    std::fs::write(
        ws.join(".tooloop/settings.toml"),
        "[permissions]\nallow = [\"bash(\"]\n",
    )
    .expect("settings");
    let server = MockServer::start();
    let run = run_in(home.path(), &server, &[]);
    assert_eq!(run.code, Some(2), "stderr: {}", run.stderr);
    assert!(run.stderr.contains("settings.toml"), "{}", run.stderr);
    assert!(server.accepted().is_empty());
}

#[test]
fn the_delete_guard_refuses_headless_even_in_yolo() {
    let home = tempfile::tempdir().expect("home");
    let outside = home.path().join("precious");
    std::fs::create_dir_all(&outside).expect("dir");
    std::fs::write(outside.join("f"), "x").expect("file");
    let cmd = format!("rm -rf {}", outside.display());
    let (run, results) = commands(
        home.path(),
        &[&cmd, "rm -rf build"],
        &["--approval", "yolo"],
    );
    assert!(
        outside.join("f").exists(),
        "the guard let it run: {results:?}"
    );
    assert!(results[0].2);
    assert!(
        results[0].1.as_str().unwrap_or("").contains("recursively"),
        "{:?}",
        results[0]
    );
    assert!(
        !results[1].2,
        "inside the workspace it runs: {:?}",
        results[1]
    );
    let _ = run;
}
