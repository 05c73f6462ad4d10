//! A resumed session (`--resume`, `/sessions`) shows its tool calls as they ran: the
//! transcript keeps each call's duration and outcome beside its result, and the TUI's
//! rows show them. Old transcripts (without them) still load.

use crate::support;

use std::path::Path;
use std::time::Duration;

use support::tui::demo_engine::{config, start, until};
use support::tui::*;
use tokio::time::Instant;
use tooloop::message::validate_history;
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::session::load;
use tooloop::tui::app::App;
use tooloop::tui::tool_calls::ToolState;

#[tokio::test]
async fn a_resumed_session_shows_each_calls_recorded_duration_and_outcome() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(tmp.path(), &[]);
    let mut first = start(&cfg, &dir);
    let info = first.session.clone().expect("sessions on");
    first.control.send(AgentCommand::Submit {
        text: "list files and tell me the time".into(),
    });
    let live = until(&mut first.events, |e| matches!(e, AgentEvent::Done(_))).await;
    first
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops");
    let ended: Vec<(String, u64)> = live
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolEnd {
                id, duration_ms, ..
            } => Some((id.clone(), *duration_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(ended.len(), 2, "two calls ran: {live:?}");

    // The transcript keeps what the live events said.
    let loaded = load::read(&info.path).expect("transcript");
    validate_history(&loaded.messages).expect("valid history");
    for (id, ms) in &ended {
        let t = loaded.timings.get(id).expect("a timing per call");
        assert_eq!(t.duration_ms, *ms);
        assert_eq!(t.outcome, tooloop::protocol::ToolOutcome::Ok);
        assert!(t.started.as_deref().is_some_and(|s| s.ends_with('Z')));
    }

    // Resumed: the rows carry those durations.
    let (app, _) = resumed(tmp.path(), &dir, &info.id).await;
    assert_eq!(app.panes.tools.ids().len(), 2);
    for (id, ms) in &ended {
        let r = app.panes.tool_calls.get(id).expect("a row per call");
        assert!(app.panes.tools.shows(id));
        assert_eq!(r.duration_ms, Some(*ms), "{id}");
        assert_eq!(r.state, ToolState::Ok);
    }
}

/// The TUI right after `--resume ID` in `workspace`: a fresh demo engine's events up to the
/// history reset, fed to a new app at the instant returned.
async fn resumed(workspace: &Path, dir: &Path, id: &str) -> (App, Instant) {
    let cfg = config(workspace, &["--resume", id]);
    let mut engine = start(&cfg, dir);
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
    (app, now)
}

fn header(id: &str) -> String {
    serde_json::json!({"type":"header","id":id,"created":"2026-12-01T06:30:12Z",
        "workspace":"/w","tooloop_version":"0.1.0","format":1})
    .to_string()
}

/// A transcript with one bash call answered by `result_line`.
fn transcript(dir: &Path, id: &str, result_line: serde_json::Value) {
    use serde_json::json;
    let lines = [
        header(id),
        json!({"type":"prompt_start","time":"2026-12-01T06:30:13Z","prompt":"sleep",
               "model":"m"})
        .to_string(),
        json!({"type":"message","index":0,"message":{"role":"user",
               "content":[{"type":"text","text":"sleep"}]}})
        .to_string(),
        json!({"type":"message","index":1,"message":{"role":"assistant","content":[
               {"type":"tool_use","id":"b1","name":"bash","input":{"command":"sleep 9"}}]}})
        .to_string(),
        result_line.to_string(),
    ];
    std::fs::create_dir_all(dir).expect("dir");
    std::fs::write(
        dir.join(format!("20261201T063012Z-{id}.jsonl")),
        lines.join("\n") + "\n",
    )
    .expect("write");
}

#[tokio::test]
async fn a_cancelled_call_keeps_its_outcome_and_an_old_transcript_still_loads() {
    use serde_json::json;
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let result = json!({"type":"user","content":[{"type":"tool_result","tool_use_id":"b1",
        "content":"interrupted by user","is_error":true}]});
    let result = json!({"role": "user", "content": result["content"]});
    transcript(
        &dir,
        "aaaa0001",
        json!({"type":"message","index":2,"message":result,
               "tools":[{"id":"b1","started":"2026-12-01T06:30:14.250Z","duration_ms":700,
                         "outcome":"cancelled"}]}),
    );
    transcript(
        &dir,
        "bbbb0002",
        json!({"type":"message","index":2,"message":result}),
    );
    for (id, state, duration, shown) in [
        ("aaaa0001", ToolState::Cancelled, Some(700), "0.7s"),
        ("bbbb0002", ToolState::Error, None, "✗ bash"),
    ] {
        let (mut app, now) = resumed(tmp.path(), &dir, id).await;
        let r = row(&app, 0);
        assert_eq!((r.state, r.duration_ms), (state, duration), "{id}");
        for (w, h) in [(80, 24), (200, 50)] {
            let screen = render_text(&mut app, w, h, now);
            assert!(screen.contains(shown), "{id} {w}x{h}:\n{screen}");
        }
    }
}

#[tokio::test]
async fn a_denied_call_is_still_denied_when_resumed() {
    use tooloop::protocol::approval::Decision;
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(tmp.path(), &[]);
    let mut first = start(&cfg, &dir);
    let info = first.session.clone().expect("sessions on");
    first.control.send(AgentCommand::Submit {
        text: "run ls -la".into(),
    });
    let asked = until(&mut first.events, |e| {
        matches!(e, AgentEvent::PermissionRequest { .. })
    })
    .await;
    let Some(AgentEvent::PermissionRequest { id, .. }) = asked.last() else {
        panic!("no question: {asked:?}");
    };
    first.control.send(AgentCommand::PermissionReply {
        id: id.clone(),
        decision: Decision::Deny { reason: None },
    });
    until(&mut first.events, |e| matches!(e, AgentEvent::Done(_))).await;
    first
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops");
    let loaded = load::read(&info.path).expect("transcript");
    assert_eq!(
        loaded.timings[id].outcome,
        tooloop::protocol::ToolOutcome::Denied
    );
    assert_eq!(loaded.timings[id].started, None, "it never ran");

    let (mut app, now) = resumed(tmp.path(), &dir, &info.id).await;
    assert_eq!(
        app.panes.tool_calls.get(id).map(|c| c.state),
        Some(ToolState::Denied)
    );
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("denied"), "{screen}");
}

/// Issue 41, item 4: a prompt that failed ("not sent"), then the TUI closed, then
/// `--resume`: the prompt is not an ordinary prompt of the history; it is back in the
/// input, marked not sent, as in a live session.
#[tokio::test]
async fn a_failed_prompt_comes_back_into_the_input_when_resumed() {
    use serde_json::json;
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let id = "cccc0003";
    let usage = json!({"input_tokens": 0, "output_tokens": 0});
    let lines = [
        header(id),
        json!({"type":"prompt_start","time":"2026-12-01T06:30:13Z","prompt":"hello","model":"m"})
            .to_string(),
        json!({"type":"message","index":0,"message":{"role":"user",
               "content":[{"type":"text","text":"hello"}]}})
        .to_string(),
        json!({"type":"message","index":1,"message":{"role":"assistant",
               "content":[{"type":"text","text":"Hi."}]}})
        .to_string(),
        json!({"type":"prompt_end","time":"2026-12-01T06:30:14Z","reason":"completed",
               "turns":1,"usage":usage})
        .to_string(),
        json!({"type":"prompt_start","time":"2026-12-01T06:30:15Z","prompt":"写个测试 please",
               "model":"m"})
        .to_string(),
        json!({"type":"message","index":2,"message":{"role":"user",
               "content":[{"type":"text","text":"写个测试 please"}]}})
        .to_string(),
        json!({"type":"prompt_end","time":"2026-12-01T06:30:16Z","reason":"model_error",
               "turns":1,"usage":usage,"error":"connection refused"})
        .to_string(),
    ];
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join(format!("20261201T063012Z-{id}.jsonl")),
        lines.join("\n") + "\n",
    )
    .expect("write");
    let cfg = config(tmp.path(), &["--resume", id]);
    let mut engine = start(&cfg, &dir);
    let events = until(&mut engine.events, |e| {
        matches!(e, AgentEvent::PromptNotSent { .. })
    })
    .await;
    engine
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops");
    let reset = events.iter().find_map(|e| match e {
        AgentEvent::HistoryReset { messages, .. } => Some(messages.len()),
        _ => None,
    });
    assert_eq!(reset, Some(2), "the failed prompt is not in the history");
    let mut app = app();
    let now = Instant::now();
    for e in events {
        app.on_agent(e, now);
    }
    assert_eq!(app.input.text(), "写个测试 please");
    for (w, h) in [(80, 24), (200, 50)] {
        let screen = render_text(&mut app, w, h, now);
        assert!(screen.contains("not sent"), "{w}x{h}:\n{screen}");
    }
}
