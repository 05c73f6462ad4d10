//! Issue 41, item 3: twelve prompts, `/compact`, a denied bash and a list_dir, another
//! prompt, `/undo`. The rows keep their tool names, outcomes and prompt groups, and the
//! groups before the compaction stay listed (they read `✗ read_file ls -la denied` under
//! "prompt 1" and the older groups vanished: the demo model numbers its ids from the
//! history it is sent, so after the compaction it used the first ids again). A real
//! engine on the demo model, every event applied to the App.

use crate::support;

use crossterm::event::KeyCode;
use support::tui::demo_engine::{config, start, until};
use support::tui::*;
use tokio::time::Instant;
use tooloop::message::validate_history;
use tooloop::protocol::approval::Decision;
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::session::load;
use tooloop::tui::app::App;
use tooloop::tui::tool_calls::ToolState;

const PROMPTS: [&str; 3] = ["read big.txt", "list files", "what time is it"];

/// Sends `text` and applies the events to `app` until the turn ends; a bash question is
/// denied.
async fn turn(engine: &mut tooloop::engine::Engine, app: &mut App, text: &str, now: Instant) {
    engine
        .control
        .send(AgentCommand::Submit { text: text.into() });
    loop {
        let events = until(&mut engine.events, |e| {
            matches!(
                e,
                AgentEvent::Done(_) | AgentEvent::PermissionRequest { .. }
            )
        })
        .await;
        let last = events.last().cloned();
        for e in events {
            app.on_agent(e, now);
        }
        match last {
            Some(AgentEvent::PermissionRequest { id, tool, .. }) => {
                assert_eq!(tool, "bash");
                engine.control.send(AgentCommand::PermissionReply {
                    id,
                    decision: Decision::Deny { reason: None },
                });
            }
            _ => return,
        }
    }
}

/// (name, summary, state) of each row the tools pane lists, in order.
fn rows(app: &App) -> Vec<(String, String, ToolState)> {
    app.panes
        .tools
        .ids()
        .iter()
        .map(|id| {
            let c = app.panes.tool_calls.get(id).expect("a listed row is known");
            (c.name.clone(), c.summary.clone(), c.state)
        })
        .collect()
}

#[tokio::test]
async fn rows_keep_their_names_outcomes_and_groups_after_compact_and_undo() {
    let tmp = tempfile::tempdir().expect("tmp");
    let big: String = (1..=300)
        .map(|i| format!("line {i} of a long file\n"))
        .collect();
    std::fs::write(tmp.path().join("big.txt"), big).expect("write");
    let cfg = config(tmp.path(), &[]);
    let mut engine = start(&cfg, &tmp.path().join("sessions"));
    let session = engine.session.clone().expect("sessions on");
    let mut app = app();
    app.info.workspace = tmp.path().to_path_buf();
    app.info.session = Some(session.id.clone());
    app.info.session_handle = Some(session.handle.clone());
    let now = Instant::now();
    for i in 0..12 {
        turn(&mut engine, &mut app, PROMPTS[i % 3], now).await;
    }
    engine
        .control
        .send(AgentCommand::Compact { instructions: None });
    let events = until(&mut engine.events, |e| {
        matches!(
            e,
            AgentEvent::Compacted { .. } | AgentEvent::Error { .. } | AgentEvent::Notice { .. }
        )
    })
    .await;
    assert!(
        matches!(events.last(), Some(AgentEvent::Compacted { .. })),
        "{events:?}"
    );
    for e in events {
        app.on_agent(e, now);
    }
    turn(&mut engine, &mut app, "run `ls -la` and list files", now).await;
    let live = rows(&app);
    turn(&mut engine, &mut app, "what time is it", now).await;

    // /undo, typed: the agent rewinds to before the last prompt and resets the history.
    type_text(&mut app, "/undo", now);
    app.on_key(key(KeyCode::Enter), now);
    let commands = app.take_commands();
    assert!(
        matches!(commands.as_slice(), [AgentCommand::Rewind(r)] if r.to == 14),
        "{commands:?}"
    );
    for c in commands {
        engine.control.send(c);
    }
    let events = until(&mut engine.events, |e| {
        matches!(e, AgentEvent::HistoryReset { .. })
    })
    .await;
    for e in events {
        app.on_agent(e, now);
    }

    // The history sent is the kept one, and valid.
    let loaded = load::read(&session.handle.path()).expect("transcript");
    validate_history(&loaded.messages).expect("valid history");
    assert!(
        !loaded.earlier.is_empty(),
        "the compaction replaced messages"
    );
    let ids: Vec<&str> = loaded
        .earlier
        .iter()
        .chain(&loaded.messages)
        .flat_map(|m| m.tool_uses().map(|(id, _, _)| id))
        .collect();
    let unique: std::collections::HashSet<&&str> = ids.iter().collect();
    assert_eq!(
        unique.len(),
        ids.len(),
        "no id used twice in the session: {ids:?}"
    );

    // Every row is the call it was live: 12 calls before the compaction, then the denied
    // bash and the list_dir.
    let rewound = rows(&app);
    assert_eq!(rewound.len(), 14, "{rewound:#?}");
    assert_eq!(rewound, live, "the rows before /undo are the rows after it");
    let names: Vec<&str> = rewound.iter().map(|r| r.0.as_str()).collect();
    let expected: Vec<&str> = (0..12)
        .map(|i| ["read_file", "list_dir", "get_current_time"][i % 3])
        .chain(["bash", "list_dir"])
        .collect();
    assert_eq!(names, expected);
    assert_eq!(
        (&rewound[12].1[..], rewound[12].2),
        ("ls -la", ToolState::Denied)
    );
    assert_eq!(rewound[13].2, ToolState::Ok);

    // The groups keep their numbers: the older ones listed, the last one is prompt 13.
    for (w, h) in [(80u16, 24u16), (200, 50)] {
        let s = render_text(&mut app, w, h, now);
        assert!(s.contains("▾ prompt 13 · run `ls -la`"), "{w}x{h}\n{s}");
        assert!(s.contains("✗ bash ls -la denied"), "{w}x{h}\n{s}");
        assert!(!s.contains("read_file ls -la"), "{w}x{h}\n{s}");
        // The first group is above, at 80x24 once the list is scrolled to its top.
        focus_tools(&mut app, now);
        app.on_key(key(KeyCode::Home), now);
        let top = render_text(&mut app, w, h, now);
        assert!(
            top.contains("▸ prompt 1 · read big.txt · 1 tool"),
            "{w}x{h}\n{top}"
        );
        app.on_key(key(KeyCode::Esc), now);
    }
    engine
        .control
        .stop(std::time::Duration::from_secs(10))
        .await
        .expect("the agent stops");
}

fn focus_tools(app: &mut App, now: Instant) {
    use tooloop::tui::app::Focus;
    for _ in 0..6 {
        if app.panes.focus == Focus::Tools {
            return;
        }
        app.on_key(key(KeyCode::Tab), now);
    }
    panic!("Tab never reached the tools pane");
}

/// A session recorded before the fix, where the model used an id again after the
/// compaction: resumed, each call keeps its own row (name, input, outcome) and its group.
#[tokio::test]
async fn an_id_used_again_after_a_compaction_in_an_old_transcript_keeps_both_rows() {
    use serde_json::json;
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let id = "eeee0005";
    let text = |t: &str| json!([{"type": "text", "text": t}]);
    let msg = |index: usize, role: &str, content: serde_json::Value| json!({"type": "message", "index": index, "message": {"role": role, "content": content}});
    let summary = tooloop::message::markers::summary::render("read big.txt", "");
    let lines = [
        json!({"type":"header","id":id,"created":"2026-12-01T06:30:12Z",
               "workspace":tmp.path(),"tooloop_version":"0.1.0","format":1}),
        json!({"type":"prompt_start","time":"2026-12-01T06:30:13Z","prompt":"read big.txt",
               "model":"m"}),
        msg(0, "user", text("read big.txt")),
        msg(
            1,
            "assistant",
            json!([{"type":"tool_use","id":"toolu_demo_001",
               "name":"read_file","input":{"path":"big.txt"}}]),
        ),
        msg(
            2,
            "user",
            json!([{"type":"tool_result","tool_use_id":"toolu_demo_001",
               "content":"1 line"}]),
        ),
        msg(3, "assistant", text("It has one line.")),
        json!({"type":"compaction","time":"2026-12-01T06:30:20Z","trigger":"manual",
               "summary":"read big.txt","replaced":4,"pre_tokens":100,"post_tokens":10,
               "messages":[{"role":"user","content":text(&summary)},
                           {"role":"assistant","content":text("Noted.")}]}),
        json!({"type":"prompt_start","time":"2026-12-01T06:30:21Z","prompt":"run ls -la",
               "model":"m"}),
        msg(2, "user", text("run ls -la")),
        msg(
            3,
            "assistant",
            json!([{"type":"tool_use","id":"toolu_demo_001","name":"bash",
               "input":{"command":"ls -la"}}]),
        ),
        json!({"type":"message","index":4,"message":{"role":"user","content":[
               {"type":"tool_result","tool_use_id":"toolu_demo_001",
                "content":"The user declined to run bash.","is_error":true}]},
               "tools":[{"id":"toolu_demo_001","duration_ms":0,"outcome":"denied"}]}),
        msg(5, "assistant", text("Not run.")),
    ];
    std::fs::create_dir_all(&dir).expect("dir");
    let body: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(
        dir.join(format!("20261201T063012Z-{id}.jsonl")),
        body.join("\n") + "\n",
    )
    .expect("write");
    let cfg = config(tmp.path(), &["--resume", id]);
    let mut engine = start(&cfg, &dir);
    let events = until(&mut engine.events, |e| {
        matches!(e, AgentEvent::HistoryReset { .. })
    })
    .await;
    engine
        .control
        .stop(std::time::Duration::from_secs(10))
        .await
        .expect("the agent stops");
    let mut app = app();
    let now = Instant::now();
    for e in events {
        app.on_agent(e, now);
    }
    assert_eq!(
        rows(&app),
        [
            ("read_file".into(), "big.txt".into(), ToolState::Ok),
            ("bash".into(), "ls -la".into(), ToolState::Denied),
        ]
    );
    let s = render_text(&mut app, 200, 50, now);
    assert!(s.contains("▸ prompt 1 · read big.txt · 1 tool"), "{s}");
    assert!(s.contains("▾ prompt 2 · run ls -la · 1 tool"), "{s}");
}
