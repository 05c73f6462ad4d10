//! Issue 41, item 19 (last clause): a session whose `task` call ran a subagent shows, once
//! resumed (`--resume ID`, `--continue`), the rows it showed live: the `task` row names the
//! agent with its number, task and end (`explore #1 · find the parser · completed · 2 tools
//! · 30 tokens`) and the child's two calls are listed under it with how they ended. Before,
//! the row fell back to the task's input and the child's calls were gone. A real engine on
//! a scripted model; the transcript it writes is what the resumed engine reads.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use support::harness::first_prompt;
use support::tui::demo_engine::{config, start_on, until};
use support::tui::*;
use tokio::time::Instant;
use tooloop::message::validate_history;
use tooloop::protocol::{AgentCommand, AgentEvent, ToolOutcome};
use tooloop::provider::scripted::{Reply, ReplyBuilder, ScriptedProvider};
use tooloop::session::load;
use tooloop::tui::app::App;
use tooloop::tui::tool_calls::ToolState;

/// The parent asks one `explore` child to look; the child lists the workspace and globs
/// for Rust files, then answers.
fn provider() -> ScriptedProvider {
    let parent = vec![
        ReplyBuilder::new()
            .tool(
                1,
                2,
                "t1",
                "task",
                json!({"description": "find the parser", "agent": "explore",
                       "prompt": "child: find the parser"}),
            )
            .end(3, "tool_use"),
        ReplyBuilder::new()
            .text(1, "The parser is in src/parser.rs.")
            .end(2, "end_turn"),
    ];
    let child = Arc::new(|_system: &str, messages: &[tooloop::message::Message]| {
        if !first_prompt(messages).contains("child: find the parser") {
            return None;
        }
        Some(match messages.len() {
            1 => ReplyBuilder::new()
                .tool(1, 2, "c1", "list_dir", json!({"path": "."}))
                .tool(3, 4, "c2", "glob", json!({"pattern": "**/*.rs"}))
                .end(5, "tool_use"),
            _ => ReplyBuilder::new()
                .text(1, "src/parser.rs")
                .end(2, "end_turn"),
        })
    });
    ScriptedProvider::new(parent).with_responder(child)
}

/// (id, name, state) of each listed row, and the task row's line.
fn rows(app: &App) -> (Vec<(String, String, ToolState)>, String) {
    let rows = app
        .panes
        .tools
        .ids()
        .iter()
        .map(|id| {
            let c = app.panes.tool_calls.get(id).expect("a listed row is known");
            (id.clone(), c.name.clone(), c.state)
        })
        .collect();
    let task = app.panes.tool_calls.get("t1").expect("the task row");
    (rows, task.summary.clone())
}

/// The app after the events of an engine started with `args` up to its history reset.
async fn reopened(workspace: &std::path::Path, dir: &std::path::Path, args: &[&str]) -> App {
    let cfg = config(workspace, args);
    let mut engine = start_on(
        &cfg,
        dir,
        Arc::new(ScriptedProvider::new(Vec::<Reply>::new())),
    );
    let events = until(&mut engine.events, |e| {
        matches!(e, AgentEvent::HistoryReset { .. })
    })
    .await;
    engine
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops");
    let mut app = app();
    let now = Instant::now();
    for e in events {
        app.on_agent(e, now);
    }
    app
}

#[tokio::test]
async fn a_resumed_subagent_keeps_its_number_and_its_calls() {
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tmp.path().join("src")).expect("src");
    std::fs::write(tmp.path().join("src/parser.rs"), "fn parse() {}\n").expect("write");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(tmp.path(), &[]);
    let mut engine = start_on(&cfg, &dir, Arc::new(provider()));
    let info = engine.session.clone().expect("sessions on");
    engine.control.send(AgentCommand::Submit {
        text: "find the parser".into(),
    });
    let events = until(&mut engine.events, |e| matches!(e, AgentEvent::Done(_))).await;
    engine
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops");
    let mut live = app();
    let now = Instant::now();
    for e in events {
        live.on_agent(e, now);
    }
    let (live_rows, live_task) = rows(&live);
    assert_eq!(
        live_rows,
        [
            ("t1".into(), "task".into(), ToolState::Ok),
            ("a1/c1".into(), "list_dir".into(), ToolState::Ok),
            ("a1/c2".into(), "glob".into(), ToolState::Ok),
        ],
        "live"
    );
    assert!(
        live_task.starts_with("explore #1 · find the parser · "),
        "{live_task}"
    );

    // The transcript keeps the child's conversation and how its calls ran.
    let loaded = load::read(&info.path).expect("transcript");
    validate_history(&loaded.messages).expect("valid history");
    let [child] = loaded.agents.as_slice() else {
        panic!("one child: {:?}", loaded.agents);
    };
    validate_history(&child.messages).expect("the child's history is valid");
    let end = child.end.as_ref().expect("how the child ended is kept");
    assert_eq!(end.reason, tooloop::protocol::Terminal::Completed);
    for id in ["c1", "c2"] {
        assert_eq!(
            child.timings.get(id).map(|t| t.outcome),
            Some(ToolOutcome::Ok),
            "{id}"
        );
    }

    for args in [&["--resume", info.id.as_str()][..], &["--continue"]] {
        let mut app = reopened(tmp.path(), &dir, args).await;
        let (resumed_rows, task) = rows(&app);
        assert_eq!(resumed_rows, live_rows, "{args:?}");
        // How it ended and its tokens too: the line it had live.
        assert_eq!(task, live_task, "{args:?}");
        for id in ["a1/c1", "a1/c2"] {
            let live_ms = live.panes.tool_calls.get(id).and_then(|c| c.duration_ms);
            let ms = app.panes.tool_calls.get(id).and_then(|c| c.duration_ms);
            assert_eq!(ms, live_ms, "{args:?} {id}: the recorded duration");
        }
        assert_eq!(
            app.history.subagents.running(),
            0,
            "nothing runs after a resume"
        );
        for (w, h) in [(80u16, 24u16), (200, 50)] {
            let s = render_text(&mut app, w, h, now);
            assert!(s.contains("explore #1 · find the parser"), "{w}x{h}\n{s}");
            assert!(s.contains("list_dir ."), "{w}x{h}\n{s}");
            assert!(s.contains("glob **/*.rs"), "{w}x{h}\n{s}");
        }
    }
}

/// A transcript written before child timings were kept (`agent_message` lines without
/// `tools`) still loads, and its child still gets its number and calls (outcomes from
/// `is_error`, no durations).
#[tokio::test]
async fn an_older_transcripts_child_still_gets_its_rows() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let id = "dddd0004";
    let user = |content: serde_json::Value| json!({"role": "user", "content": content});
    let assistant = |content: serde_json::Value| json!({"role": "assistant", "content": content});
    let child = |index: usize, message: serde_json::Value| {
        json!({"type": "agent_message", "agent_id": "a1", "parent_tool_use_id": "t1",
               "agent": "explore", "index": index, "message": message})
    };
    let lines = [
        json!({"type":"header","id":id,"created":"2026-12-01T06:30:12Z",
               "workspace":tmp.path(),"tooloop_version":"0.1.0","format":1}),
        json!({"type":"prompt_start","time":"2026-12-01T06:30:13Z","prompt":"find it",
               "model":"m"}),
        json!({"type":"message","index":0,"message":user(json!([{"type":"text","text":"find it"}]))}),
        json!({"type":"message","index":1,"message":assistant(json!([{"type":"tool_use",
               "id":"t1","name":"task","input":{"description":"find the parser",
               "prompt":"child: find it","agent":"explore"}}]))}),
        child(0, user(json!([{"type":"text","text":"child: find it"}]))),
        child(
            1,
            assistant(json!([
            {"type":"tool_use","id":"c1","name":"list_dir","input":{"path":"."}},
            {"type":"tool_use","id":"c2","name":"read_file","input":{"path":"nope.rs"}}])),
        ),
        child(
            2,
            user(json!([
            {"type":"tool_result","tool_use_id":"c1","content":"src/"},
            {"type":"tool_result","tool_use_id":"c2","content":"no such file",
             "is_error":true}])),
        ),
        child(
            3,
            assistant(json!([{"type":"text","text":"src/parser.rs"}])),
        ),
        json!({"type":"message","index":2,"message":user(json!([{"type":"tool_result",
               "tool_use_id":"t1","content":"src/parser.rs"}]))}),
        json!({"type":"message","index":3,"message":assistant(json!([{"type":"text",
               "text":"In src/parser.rs."}]))}),
    ];
    std::fs::create_dir_all(&dir).expect("dir");
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(
        dir.join(format!("20261201T063012Z-{id}.jsonl")),
        text.join("\n") + "\n",
    )
    .expect("write");
    let app = reopened(tmp.path(), &dir, &["--resume", id]).await;
    let (rows, task) = rows(&app);
    assert_eq!(
        rows,
        [
            ("t1".into(), "task".into(), ToolState::Ok),
            ("a1/c1".into(), "list_dir".into(), ToolState::Ok),
            ("a1/c2".into(), "read_file".into(), ToolState::Error),
        ]
    );
    assert_eq!(task, "explore #1 · find the parser · 2 tools");
    assert_eq!(
        app.panes
            .tool_calls
            .get("a1/c1")
            .and_then(|c| c.duration_ms),
        None
    );
}
