//! Background jobs belong to the session, not the turn (issue 26): Ctrl+C (Abort) stops the
//! turn and leaves the job running, `/new` keeps the job list, and the registry names the
//! running jobs for the compaction summary. The engine the TUI uses, over the mock model.

use crate::support;

use std::path::Path;
use std::time::Duration;

use clap::Parser;
use serde_json::json;
use tokio::sync::mpsc;
use tooloop::background::types::{Change as JobChange, JobState};
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::engine::{self, Engine, FrontEnd, Overrides};
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal};

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
        "--no-session",
    ];
    let cli = Cli::try_parse_from(args).expect("cli");
    Config::resolve_with(&cli, &KeyEnv, &FileConfig::default()).expect("config")
}

/// Events until the prompt's Done; returns its reason and the background events seen.
async fn until_done(
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
) -> (Terminal, Vec<tooloop::background::types::JobEvent>) {
    let mut jobs = Vec::new();
    while let Some(e) = rx.recv().await {
        match e {
            AgentEvent::Done(s) => return (s.reason, jobs),
            AgentEvent::Background(j) => jobs.push(j),
            _ => {}
        }
    }
    panic!("the agent stopped before Done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_and_new_conversation_leave_jobs_running() {
    let tmp = tempfile::tempdir().expect("tmp");
    let server = MockServer::start();
    let cfg = config(tmp.path(), &server);
    let Engine {
        events: mut rx,
        control,
        jobs,
        ..
    } = engine::start_with(&cfg, FrontEnd::Interactive, Overrides::default()).expect("engine");

    server.enqueue(tool_reply(&[(
        "toolu_1",
        "bash",
        json!({"command": "while true; do echo tick; sleep 0.05; done", "run_in_background": true}),
    )]));
    server.enqueue(text_reply("started"));
    control.send(AgentCommand::Submit {
        text: "start a ticker".into(),
    });
    let (reason, events) = until_done(&mut rx).await;
    assert_eq!(reason, Terminal::Completed);
    assert_eq!(events[0].change, JobChange::Started);
    assert_eq!(events[0].job.shell_id, "b1");

    // A turn that is aborted while it waits for the model.
    server.enqueue(Reply::hang());
    control.send(AgentCommand::Submit {
        text: "wait forever".into(),
    });
    server.wait_for_requests_async(3).await;
    control.send(AgentCommand::Abort);
    let (reason, _) = until_done(&mut rx).await;
    assert!(reason.is_aborted(), "{reason:?}");
    assert_eq!(
        jobs.running(),
        vec![(
            "b1".to_string(),
            "while true; do echo tick; sleep 0.05; done".to_string(),
            JobState::Running
        )],
        "the abort stopped the turn, not the job"
    );

    control.send(AgentCommand::NewConversation);
    server.enqueue(tool_reply(&[(
        "toolu_2",
        "bash_output",
        json!({"shell_id": "b1"}),
    )]));
    server.enqueue(text_reply("still ticking"));
    control.send(AgentCommand::Submit {
        text: "how is b1?".into(),
    });
    let (reason, _) = until_done(&mut rx).await;
    assert_eq!(reason, Terminal::Completed);
    let requests = server.accepted();
    let last = requests.last().expect("a request");
    let results = tool_results(last);
    let text = results[0].1.as_str().unwrap_or_default();
    assert!(text.contains("tick\n"), "{text}");
    assert!(text.ends_with("[b1: running]"), "{text}");
    // The new conversation's first request is the new prompt alone.
    assert_eq!(
        requests[requests.len() - 2].body["messages"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Quitting ends it.
    let pid = jobs.list()[0].pid.expect("pid") as i32;
    control.stop(Duration::from_secs(5)).await;
    assert!(jobs.running().is_empty());
    assert_eq!(jobs.list()[0].state, JobState::Killed);
    assert!(
        !tooloop::process::group_alive(pid),
        "the job's group outlived the session"
    );
}
