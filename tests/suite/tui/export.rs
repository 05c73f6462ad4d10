//! `/export` after a compaction keeps the messages before the summary, as `tooloop export`
//! does: with a transcript the two write the same Markdown; without one (`--no-session`)
//! the TUI keeps what the compaction replaced itself. A real engine on the demo model.

use crate::support;

use crossterm::event::KeyCode;
use support::tui::demo_engine::{config, start, until};
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::App;

/// The first prompt as an export shows it: a user message of its own.
const FIRST: &str = "## User\n\n列出文件 list files\n";

/// Three prompts, then `/compact`, every event applied to `app`.
async fn talk_then_compact(engine: &mut tooloop::engine::Engine, app: &mut App) {
    let now = Instant::now();
    // A large file read makes the conversation worth compacting.
    let big: String = (1..=400)
        .map(|i| format!("line {i} of a long file\n"))
        .collect();
    std::fs::write(app.info.workspace.join("big.txt"), big).expect("write");
    for prompt in ["列出文件 list files", "read big.txt", "what time is it"] {
        engine.control.send(AgentCommand::Submit {
            text: prompt.into(),
        });
        for e in until(&mut engine.events, |e| matches!(e, AgentEvent::Done(_))).await {
            app.on_agent(e, now);
        }
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
    // The summary replaced the first prompt in what the model sees.
    let sent: Vec<String> = app.panes.json.history().iter().map(|m| m.text()).collect();
    assert!(!sent.iter().any(|t| t == "列出文件 list files"), "{sent:?}");
}

fn export(app: &mut App, file: &str) -> String {
    let now = Instant::now();
    type_text(app, &format!("/export {file}"), now);
    app.on_key(key(KeyCode::Enter), now);
    std::fs::read_to_string(app.info.workspace.join(file)).expect("/export wrote the file")
}

#[tokio::test]
async fn export_after_a_compaction_is_what_tooloop_export_writes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = config(tmp.path(), &[]);
    let mut engine = start(&cfg, &tmp.path().join("sessions"));
    let session = engine.session.clone().expect("sessions on");
    let mut a = app();
    a.info.workspace = tmp.path().to_path_buf();
    a.info.session = Some(session.id.clone());
    a.info.session_handle = Some(session.handle.clone());
    talk_then_compact(&mut engine, &mut a).await;
    let md = export(&mut a, "out.md");
    assert!(md.contains(FIRST), "{md}");
    let cli = tooloop::export::command::render_transcript(
        &session.handle.path(),
        None,
        tooloop::cli::ExportFormat::Md,
    )
    .expect("tooloop export");
    assert_eq!(md, cli, "/export and `tooloop export` agree");
}

#[tokio::test]
async fn export_without_a_session_keeps_what_the_compaction_replaced() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = config(tmp.path(), &["--no-session"]);
    let mut engine = start(&cfg, &tmp.path().join("sessions"));
    assert!(engine.session.is_none());
    let mut a = app();
    a.info.workspace = tmp.path().to_path_buf();
    talk_then_compact(&mut engine, &mut a).await;
    let md = export(&mut a, "out.md");
    let first = md.find(FIRST).expect("the first prompt is kept");
    let divider = md.find("*Compacted:").expect("the compaction divider");
    assert!(first < divider, "{md}");
    assert!(md.contains("what time is it"), "{md}");
}
