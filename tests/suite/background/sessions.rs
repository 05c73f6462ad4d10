//! Background jobs belong to the session that started them (issue 41): leaving a session
//! with `/fork` or `/sessions` (AgentCommand::Fork / Resume) stops its running jobs, and
//! the jobs pane and `/jobs` then list only the new session's jobs. The engine the TUI uses
//! over the mock model, with sessions on; its events fed to the App.

use crate::support;

use std::path::Path;

use clap::Parser;
use serde_json::json;
use tokio::time::Instant;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::engine::{self, Engine, FrontEnd, Overrides};
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::App;
use tooloop::tui::panes::cells::CellKind;

use support::tui::demo_engine::until;
use support::tui::{app, key, render_text, type_text};
use support::*;

struct KeyEnv;

impl Env for KeyEnv {
    fn var(&self, name: &str) -> Option<String> {
        (name == "ANTHROPIC_API_KEY").then(|| "test-key".to_string())
    }
}

fn config(workspace: &Path, server: &MockServer) -> Config {
    let ws = workspace.to_string_lossy().into_owned();
    let base = server.anthropic_base();
    let args = [
        "tooloop",
        "--provider",
        "anthropic",
        "--base-url",
        base.as_str(),
        "--workspace",
        ws.as_str(),
        "--approval",
        "yolo",
        "--sandbox",
        "off",
    ];
    let cli = Cli::try_parse_from(args).expect("cli");
    Config::resolve_with(&cli, &KeyEnv, &FileConfig::default()).expect("config")
}

/// The model starts `command` in the background, then says so.
async fn start_job(run: &mut Engine, a: &mut App, server: &MockServer, command: &str) {
    server.enqueue(tool_reply(&[(
        "toolu_bg",
        "bash",
        json!({"command": command, "run_in_background": true}),
    )]));
    server.enqueue(text_reply("started"));
    run.control.send(AgentCommand::Submit {
        text: format!("start {command}"),
    });
    feed(run, a, |e| matches!(e, AgentEvent::Done(_))).await;
}

async fn feed(run: &mut Engine, a: &mut App, stop: impl Fn(&AgentEvent) -> bool) {
    for e in until(&mut run.events, stop).await {
        a.on_agent(e, Instant::now());
    }
}

fn notice_starting(prefix: &'static str) -> impl Fn(&AgentEvent) -> bool {
    move |e| matches!(e, AgentEvent::Notice { text } if text.starts_with(prefix))
}

/// The jobs pane's rows: (id, state).
fn rows(a: &App) -> Vec<(String, String)> {
    a.panes
        .tools
        .jobs
        .rows
        .iter()
        .map(|r| (r.info.shell_id.clone(), r.info.state.as_str().to_string()))
        .collect()
}

fn jobs_command(a: &mut App) -> String {
    let now = Instant::now();
    type_text(a, "/jobs", now);
    a.on_key(key(crossterm::event::KeyCode::Enter), now);
    match &a.panes.conversation.cells().last().expect("a cell").kind {
        CellKind::Notice(t) => t.clone(),
        _ => panic!("/jobs answers with a notice"),
    }
}

fn notices(a: &App) -> Vec<String> {
    a.panes
        .conversation
        .cells()
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::Notice(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_a_session_stops_its_jobs_and_the_next_lists_only_its_own() {
    let tmp = tempfile::tempdir().expect("tmp");
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).expect("ws");
    let server = MockServer::start();
    let cfg = config(&ws, &server);
    let overrides = Overrides {
        sessions_dir: Some(tmp.path().join("sessions")),
        ..Overrides::default()
    };
    let mut run = engine::start_with(&cfg, FrontEnd::Interactive, overrides).expect("engine");
    let first = run.session.clone().expect("sessions on").id;
    let mut a = app();

    // Session 1 starts b1; it runs.
    start_job(&mut run, &mut a, &server, "while true; do sleep 0.05; done").await;
    assert_eq!(rows(&a), [("b1".to_string(), "running".to_string())]);
    let b1 = run.jobs.list()[0].pid.expect("pid") as i32;
    assert!(tooloop::process::group_alive(b1));

    // /fork: b1 stays with session 1 and ends; the fork lists it as its copy records it.
    run.control.send(AgentCommand::Fork);
    feed(&mut run, &mut a, notice_starting("forked:")).await;
    let n = notices(&a);
    assert!(
        n[n.len() - 2].starts_with("stopped background job b1"),
        "{n:?}"
    );
    let fork = a.info.session.clone().expect("the fork's id");
    assert_ne!(fork, first);
    assert!(
        !tooloop::process::group_alive(b1),
        "b1 outlived its session"
    );
    assert_eq!(rows(&a), [("b1".to_string(), "killed".to_string())]);
    assert_eq!(a.panes.tools.jobs.running(), 0);
    let said = notices(&a);
    assert!(
        said.iter().any(|n| n.starts_with(&format!(
            "stopped background job b1 (while true; do sleep 0.05; done) of session {first}"
        ))),
        "{said:?}"
    );

    // The fork starts its own job: a new id, the only one running.
    start_job(&mut run, &mut a, &server, "sleep 300").await;
    assert_eq!(
        rows(&a),
        [
            ("b1".to_string(), "killed".to_string()),
            ("b2".to_string(), "running".to_string())
        ]
    );
    let b2 = run.jobs.list()[1].pid.expect("pid") as i32;

    // /sessions back to session 1: the fork's b2 stops, and session 1's list is its own:
    // b1 as its transcript recorded it, no b2.
    run.control.send(AgentCommand::Resume { id: first.clone() });
    feed(&mut run, &mut a, notice_starting("stopped background job")).await;
    assert_eq!(a.info.session.as_deref(), Some(first.as_str()));
    assert!(
        !tooloop::process::group_alive(b2),
        "b2 outlived its session"
    );
    assert_eq!(rows(&a), [("b1".to_string(), "killed".to_string())]);
    let listed = jobs_command(&mut a);
    assert!(listed.contains("b1") && !listed.contains("b2"), "{listed}");
    assert!(!listed.contains("sleep 300"), "{listed}");
    for (w, h) in [(80, 24), (200, 50)] {
        let s = render_text(&mut a, w, h, Instant::now());
        assert!(!s.contains("b2 sleep 300"), "no row for b2: {w}x{h}\n{s}");
        assert!(s.contains("⊘ b1 while true"), "{w}x{h}\n{s}");
        assert!(!s.contains("bg 1"), "nothing runs: {w}x{h}\n{s}");
    }
    let said = notices(&a);
    assert!(
        said.iter().any(|n| n.starts_with(&format!(
            "stopped background job b2 (sleep 300) of session {fork}"
        ))),
        "{said:?}"
    );
    run.control
        .stop(std::time::Duration::from_secs(10))
        .await
        .expect("stops");
}
