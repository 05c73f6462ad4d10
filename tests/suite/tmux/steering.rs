//! Steering in the real TUI (tmux) against the mock model (issue 27): Shift+Tab cycles the
//! approval mode shown in the status bar, the todo list shows above the input (Chinese items,
//! one line at 80×24, a list at 200×50), the plan box scrolls a long plan and approving it
//! switches the mode, and "always allow" writes a rule a later headless run obeys.
//! Skipped (with a message) when tmux is not installed.

use crate::support;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;
use support::tmux::Tmux;
use support::*;

const DEADLINE: Duration = Duration::from_secs(30);
/// The approval box ignores keys for 400 ms after it opens (typed-ahead keys never answer).
const PAST_GUARD: Duration = Duration::from_millis(600);

struct Screen {
    t: Tmux,
    _dir: tempfile::TempDir,
    workspace: PathBuf,
}

impl std::ops::Deref for Screen {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.t
    }
}

impl Screen {
    fn start(name: &str, w: u16, h: u16, server: &MockServer, args: &str) -> Option<Screen> {
        if !support::tmux::available() {
            return None;
        }
        let dir = tempfile::tempdir().expect("dir");
        let home = dir.path().join("home");
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&workspace).expect("ws");
        let script = format!(
            "cd '{ws}' && '{bin}' --workspace '{ws}' --provider anthropic --base-url '{base}' \
             --model claude-mock --no-session {args}; echo EXITED:\\$?; sleep 600",
            ws = workspace.display(),
            bin = env!("CARGO_BIN_EXE_tooloop"),
            base = server.anthropic_base(),
        );
        let command = format!(
            "env ANTHROPIC_API_KEY=sk-ant-tmux {} bash -c \"{script}\"",
            support::tmux::isolated_home(&home)
        );
        let t = Tmux::start(&format!("steer-{name}"), w, h, &command)
            .with_timing(DEADLINE, Duration::from_millis(100));
        Some(Screen {
            t,
            _dir: dir,
            workspace,
        })
    }
}

fn todos() -> serde_json::Value {
    json!({"todos": [
        {"content": "读代码", "status": "completed"},
        {"content": "写测试用例", "status": "in_progress"},
        {"content": "提交修改", "status": "pending"}
    ]})
}

#[test]
fn shift_tab_cycles_and_a_long_plan_scrolls_and_approving_switches_the_mode_at_80x24() {
    let server = MockServer::start();
    let plan: String = std::iter::once("# 计划 Plan".to_string())
        .chain((1..=40).map(|i| format!("{i}. step number {i}")))
        .collect::<Vec<_>>()
        .join("\n");
    server.enqueue(tool_reply(&[
        ("toolu_t", "todo_write", todos()),
        ("toolu_p", "exit_plan_mode", json!({ "plan": plan })),
    ]));
    server.enqueue(text_reply("carrying it out"));
    let Some(s) = Screen::start("plan", 80, 24, &server, "--approval ask") else {
        return;
    };
    s.wait_for("the mode in the status bar", |x| {
        Tmux::status_line(x).contains("⏵ ask")
    });
    s.keys(&["BTab"]);
    s.wait_for("auto-edit", |x| {
        Tmux::status_line(x).contains("⏵ auto-edit")
    });
    s.keys(&["BTab"]);
    s.wait_for("plan", |x| Tmux::status_line(x).contains("⏵ plan"));
    s.keys(&["BTab"]);
    s.wait_for("back to ask", |x| Tmux::status_line(x).contains("⏵ ask"));
    s.send_line("/approval plan");
    s.wait_for("plan again", |x| Tmux::status_line(x).contains("⏵ plan"));
    s.send_line("plan the change");
    // The plan is longer than the box: a "more" line, and ↓ moves it.
    let boxed = s.wait_for("the plan box, its keys and a more line", |x| {
        x.contains("the plan: approve?") && x.contains("more lines") && x.contains("keep planning")
    });
    eprintln!("80x24 plan box:\n{boxed}");
    assert!(!boxed.contains("step number 30"), "{boxed}");
    std::thread::sleep(PAST_GUARD);
    for _ in 0..3 {
        s.keys(&["PageDown"]);
    }
    let scrolled = s.wait_for("the end of the plan", |x| x.contains("step number 40"));
    eprintln!("80x24 scrolled:\n{scrolled}");
    std::thread::sleep(PAST_GUARD);
    s.keys(&["Enter"]);
    let after = s.wait_for("approved: auto-edit and the answer", |x| {
        Tmux::status_line(x).contains("⏵ auto-edit") && x.contains("carrying it out")
    });
    eprintln!("80x24 after approval:\n{after}");
    // The todo list: one line above the input on a small terminal.
    let todo_lines: Vec<&str> = after.lines().filter(|l| l.contains("Ctrl+T")).collect();
    assert_eq!(todo_lines.len(), 1, "{after}");
    assert!(todo_lines[0].contains("▸ 写测试用例 · 1/3 done"), "{after}");
    assert!(
        !after.contains("○ 提交修改"),
        "one line only at 80x24: {after}"
    );
    let requests = server.accepted();
    assert_eq!(requests.len(), 2);
    let results = tool_results(&requests[1]);
    let plan_result = results
        .iter()
        .find(|r| r.0 == "toolu_p")
        .expect("plan result");
    assert!(!plan_result.2, "{plan_result:?}");
    assert!(
        plan_result.1.as_str().unwrap_or("").contains("auto-edit"),
        "{plan_result:?}"
    );
    // The first request offered exit_plan_mode (plan mode), the second did not.
    let names = |i: usize| requests[i].body["tools"].to_string();
    assert!(names(0).contains("exit_plan_mode"));
    assert!(!names(1).contains("exit_plan_mode"));
}

#[test]
fn always_allow_sticks_for_a_later_headless_run_and_todos_list_at_200x50() {
    let server = MockServer::start();
    server.enqueue(tool_reply(&[("toolu_t", "todo_write", todos())]));
    server.enqueue(tool_reply(&[(
        "toolu_b",
        "bash",
        json!({"command": "cargo test --help > /dev/null && echo ran-it"}),
    )]));
    server.enqueue(text_reply("tests ran"));
    let Some(s) = Screen::start("always", 200, 50, &server, "--approval ask") else {
        return;
    };
    s.wait_for("ready", |x| Tmux::status_line(x).contains("⏵ ask"));
    s.send_line("run the tests");
    // One rule per part of the command (issue 41, item 2): `bash(cargo test:*)` alone
    // would never let the whole command run.
    let asked = s.wait_for("the approval box proposing the prefixes", |x| {
        x.contains(
            "3. Yes, and always allow bash(cargo test:*), bash(echo ran-it:*) in this project",
        )
    });
    eprintln!("200x50 approval:\n{asked}");
    // The todo list, unfolded on a tall terminal, with its marks.
    assert!(
        asked.contains("✓ 读代码")
            && asked.contains("▸ 写测试用例")
            && asked.contains("○ 提交修改"),
        "{asked}"
    );
    std::thread::sleep(PAST_GUARD);
    s.keys(&["3"]);
    s.keys(&["Enter"]);
    s.wait_for("the editable rule", |x| x.contains("bash(cargo test:*"));
    s.keys(&["Enter"]);
    s.wait_for("the answer", |x| x.contains("tests ran"));
    let local = s.workspace.join(".tooloop/settings.local.toml");
    let text = std::fs::read_to_string(&local).expect("settings.local.toml written");
    assert!(text.contains("bash(cargo test:*)"), "{text}");
    s.send_line("/permissions");
    let listed = s.wait_for("the rule listed by file", |x| {
        x.contains(".tooloop/settings.local.toml:") && x.contains("allow bash(cargo test:*)")
    });
    eprintln!("200x50 /permissions:\n{listed}");
    s.keys(&["C-t"]);
    s.wait_for("the list folded to one line", |x| {
        x.contains("▸ 写测试用例 · 1/3 done") && !x.contains("○ 提交修改")
    });

    // A later headless run in the same workspace obeys the rule without asking.
    let later = MockServer::start();
    later.enqueue(tool_reply(&[(
        "toolu_h",
        "bash",
        json!({"command": "cargo test --version"}),
    )]));
    later.enqueue(text_reply("ok"));
    let base = later.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "again",
        "--output-format",
        "stream-json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--no-session",
    ])
    .workspace(&s.workspace)
    .env("ANTHROPIC_API_KEY", "test-key")
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let perm = run
        .of_type("permission")
        .into_iter()
        .find(|p| p["id"] == "toolu_h")
        .cloned()
        .expect("a permission line");
    assert_eq!(perm["decision"], "allow", "{perm}");
    assert_eq!(perm["rule"], "bash(cargo test:*)");
    assert_eq!(perm["source"], ".tooloop/settings.local.toml");
}
