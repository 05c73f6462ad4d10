//! Subagents in the real TUI (tmux) against the mock: three `task` calls side by side, their
//! rows and lanes in the tools pane, a child's approval titled with the agent, the child's
//! read-only conversation (`/agents 1`, its keys), and Ctrl+C stopping the tree.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::tmux::Tmux;
use support::{MockServer, Recorded, ReplyBuilder};

fn prompt_of(req: &Recorded) -> String {
    let first = &req.body["messages"][0]["content"];
    match first {
        Value::String(s) => s.clone(),
        Value::Array(b) => b.iter().filter_map(|x| x["text"].as_str()).collect(),
        _ => String::new(),
    }
}

fn turn_of(req: &Recorded) -> usize {
    req.body["messages"].as_array().map_or(0, Vec::len)
}

/// The parent asks for three agents (two explore, one general that runs a slow command);
/// each child makes one call and answers.
fn serve(server: &MockServer) {
    server.respond_with(|req| {
        let prompt = prompt_of(req);
        if let Some(rest) = prompt.strip_prefix("child-") {
            let n = rest.chars().next().unwrap_or('0');
            return match (turn_of(req), n) {
                (1, '2') => ReplyBuilder::new()
                    .text("Running the tests.")
                    .tool_use("toolu_c", "bash", json!({"command": "sleep 3; echo passed"}))
                    .delay_ms(40)
                    .build(),
                (1, _) => ReplyBuilder::new()
                    .text("Searching.")
                    .tool_use("toolu_c", "glob", json!({"pattern": "**/*.rs"}))
                    .delay_ms(40)
                    .build(),
                _ => ReplyBuilder::new()
                    .text(&format!("Report {n}: the parser is in src/parse.rs:{n}0."))
                    .delay_ms(60)
                    .build(),
            };
        }
        if turn_of(req) == 1 {
            let task = |n: u32, agent: &str, d: &str| {
                json!({"description": d, "prompt": format!("child-{n}: {d}"), "agent": agent})
            };
            return ReplyBuilder::new()
                .text("I will split this in three.")
                .tool_use("toolu_1", "task", task(1, "explore", "find the parser"))
                .tool_use("toolu_2", "task", task(2, "general", "run the tests"))
                .tool_use("toolu_3", "task", task(3, "explore", "find the lexer"))
                .delay_ms(30)
                .build();
        }
        ReplyBuilder::new().text("All three reported back.").build()
    });
}

fn command(server: &MockServer, home: &std::path::Path) -> String {
    format!(
        "cd '{}' && {} ANTHROPIC_API_KEY=test-key {} --provider anthropic --base-url {} \
         --no-session",
        home.display(),
        support::tmux::isolated_home(home),
        env!("CARGO_BIN_EXE_tooloop"),
        server.anthropic_base()
    )
}

#[test]
fn three_children_their_approval_and_rows_at_200x50() {
    if !support::tmux::available() {
        return;
    }
    let server = MockServer::start();
    serve(&server);
    let home = tempfile::tempdir().expect("home");
    let t = Tmux::start("subagents-200", 200, 50, &command(&server, home.path()))
        .with_timing(Duration::from_secs(30), Duration::from_millis(100));
    t.wait_for("the TUI", |s| s.contains("tools"));
    t.send_line("split the work");
    let asked = t.wait_for("the child's approval", |s| s.contains("wants to run bash"));
    assert!(asked.contains("general #"), "{asked}");
    // While it asks, the other two children finish: their rows sit under their task rows.
    // (The list's rows, with their summary: the timeline's lanes say "↳ glob" too.)
    let screen = t.wait_for("the children's rows", |s| {
        s.matches("↳ glob **/*.rs").count() == 2
    });
    assert!(screen.contains("explore #"), "{screen}");
    std::thread::sleep(Duration::from_millis(500));
    t.keys(&["Enter"]);
    let done = t.wait_for("the end", |s| s.contains("All three reported back."));
    assert!(done.contains("↳ bash"), "{done}");
    // A lane per child, labelled with its agent's number (issue 41, item 1).
    for agent in ["explore #1", "general #2", "explore #3"] {
        assert!(lane(&done, agent), "no lane for {agent}:\n{done}");
    }
    assert!(!lane(&done, "task"), "{done}");
    println!("{done}");

    // The first child's conversation, read-only (`/agents 1`); it answers the key table's
    // keys for its scope: scrolling stays in it, q closes it.
    t.send_line("/agents 1");
    let view = t.wait_for("the child's conversation", |s| {
        s.contains("read-only · Esc back")
    });
    assert!(view.contains("child-1: find the parser"), "{view}");
    t.keys(&["PageDown", "Home"]);
    t.wait_for("still open after scrolling", |s| {
        s.contains("read-only · Esc back") && s.contains("child-1: find the parser")
    });
    t.keys(&["q"]);
    t.wait_for("the view closed", |s| !s.contains("read-only · Esc back"));

    // The JSON pane's request stepper (F2 opens, F3 request view, Tab to focus it) lists
    // the children's six requests between the parent's two, labelled with their agent.
    t.keys(&["F2", "F3", "Tab", "Tab", "Tab"]);
    t.wait_for("the parent's last request", |s| {
        s.contains("request 8 of 8 · turn 2")
    });
    t.keys(&["["]);
    let child = t.wait_for("a child's request", |s| s.contains("request 7 of 8 · "));
    assert!(
        ["explore #1", "general #2", "explore #3"]
            .iter()
            .any(|a| child.contains(&format!("{a} request 2 · turn 2"))),
        "{child}"
    );
    // Only what it added to its agent's first request: its own call and result.
    t.keys(&["d"]);
    // Waited for whole: under load a capture can catch the pane mid-redraw (half of one
    // frame's line over the last one's), so the three parts are awaited together.
    t.wait_for("the child's new messages: its own call and result", |s| {
        s.contains("new since the request before (1 messages)")
            && s.contains("\"tool_result\"")
            && s.contains("sleep 3; echo passed")
    });
    t.keys(&["d"]);
    for _ in 0..6 {
        t.keys(&["["]);
    }
    t.wait_for("the parent's first", |s| {
        s.contains("request 1 of 8 · turn 1 · attempt 1")
    });
}

#[test]
fn ctrl_c_stops_every_child_at_80x24() {
    if !support::tmux::available() {
        return;
    }
    let server = MockServer::start();
    serve(&server);
    let home = tempfile::tempdir().expect("home");
    let t = Tmux::start("subagents-80", 80, 24, &command(&server, home.path()))
        .with_timing(Duration::from_secs(30), Duration::from_millis(100));
    t.wait_for("the TUI", |s| s.contains("tools"));
    t.send_line("split the work");
    t.wait_for("the child's approval", |s| s.contains("wants to run bash"));
    t.keys(&["C-c"]);
    let screen = t.wait_for("the interruption", |s| s.contains("interrupted"));
    println!("{screen}");
}

/// A timeline row labelled `label` (the label column is padded, list rows have " · ").
fn lane(screen: &str, label: &str) -> bool {
    screen.lines().any(|l| l.contains(&format!("{label}  ")))
}

/// Issue 41, item 1 at 80×24: the child waiting for approval keeps its lane and its call on
/// the timeline; approved and running, its rows are in the tools list above its finished
/// siblings' newer ones; at the end the lanes that do not fit are counted.
#[test]
fn a_running_child_keeps_its_lane_and_rows_at_80x24() {
    if !support::tmux::available() {
        return;
    }
    let server = MockServer::start();
    serve(&server);
    let home = tempfile::tempdir().expect("home");
    let t = Tmux::start("subagents-lanes-80", 80, 24, &command(&server, home.path()))
        .with_timing(Duration::from_secs(30), Duration::from_millis(100));
    t.wait_for("the TUI", |s| s.contains("tools"));
    t.send_line("split the work");
    let asking = t.wait_for("the child's lane while it asks", |s| {
        s.contains("wants to run bash") && lane(s, "general #2") && lane(s, "↳ bash")
    });
    println!("{asking}");
    std::thread::sleep(Duration::from_millis(500));
    t.keys(&["Enter"]);
    let running = t.wait_for("its rows in the list while bash runs", |s| {
        let list = s.split_once(" tools ─").map_or("", |(_, p)| p);
        list.contains("task general #2") && list.contains("↳ bash sleep 3")
    });
    println!("{running}");
    let done = t.wait_for("the end", |s| s.contains("All three reported back."));
    assert!(done.contains("… 4 more"), "{done}");
    println!("{done}");
}

/// Issue 41, item 19: after `--continue` (and `--resume ID`) a session that ran a subagent
/// lists it as it did live: the task row names `explore #1`, its two calls under it.
#[test]
fn a_resumed_childs_rows_keep_its_number_and_calls_at_80x24() {
    if !support::tmux::available() {
        return;
    }
    let server = MockServer::start();
    server.respond_with(|req| {
        if prompt_of(req).starts_with("child-1") {
            return match turn_of(req) {
                1 => ReplyBuilder::new()
                    .text("Looking.")
                    .tool_use("toolu_c1", "list_dir", json!({"path": "."}))
                    .tool_use("toolu_c2", "glob", json!({"pattern": "**/*.rs"}))
                    .build(),
                _ => ReplyBuilder::new().text("Report: src/parse.rs:10.").build(),
            };
        }
        if turn_of(req) == 1 {
            let task = json!({"description": "find the parser", "agent": "explore",
                              "prompt": "child-1: find the parser"});
            return ReplyBuilder::new()
                .tool_use("toolu_1", "task", task)
                .build();
        }
        ReplyBuilder::new()
            .text("The parser is in src/parse.rs.")
            .build()
    });
    let home = tempfile::tempdir().expect("home");
    let sessions_on = |extra: &str| command(&server, home.path()).replace(" --no-session", extra);
    let live = Tmux::start("subagent-resume-live", 80, 24, &sessions_on(""))
        .with_timing(Duration::from_secs(30), Duration::from_millis(100));
    live.wait_for("the TUI", |s| s.contains("tools"));
    live.send_line("find the parser");
    let screen = live.wait_for("the end", |s| s.contains("The parser is in src/parse.rs."));
    println!("{screen}");
    assert!(screen.contains("explore #1 · find the parser"), "{screen}");
    live.keys(&["C-c", "C-c"]);
    drop(live);
    let mut id = String::new();
    for name in ["continue", "resume"] {
        let extra = match name {
            "continue" => " --continue".to_string(),
            _ => format!(" --resume {id}"),
        };
        let t = Tmux::start(&format!("subagent-{name}"), 80, 24, &sessions_on(&extra))
            .with_timing(Duration::from_secs(30), Duration::from_millis(100));
        let s = t.wait_for("the resumed rows", |s| {
            s.contains("explore #1 · find the parser") && s.contains("↳ glob **/*.rs")
        });
        println!("{s}");
        assert!(s.contains("↳ list_dir ."), "{s}");
        assert!(s.contains("▾ prompt 1 · find the parser · 3 tools"), "{s}");
        assert!(s.contains("find the parser · completed · 2 tools"), "{s}");
        // The status bar names the session: `--resume` opens it by that id.
        id = s
            .split("session ")
            .last()
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_default()
            .to_string();
    }
}
