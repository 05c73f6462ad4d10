//! A new conversation (`/new` in the TUI, AgentCommand::NewConversation) starts a new
//! session file without restarting tooloop, and the live handle follows it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use tokio::sync::mpsc;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::engine::{self, Engine, FrontEnd, Overrides};
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::provider::demo::{DemoProvider, Pace};
use tooloop::session::load;

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

fn config(workspace: &Path, extra: &[&str]) -> Config {
    let ws = workspace.to_string_lossy().into_owned();
    let args = ["tooloop", "--provider", "demo", "--workspace", ws.as_str()];
    let cli = Cli::try_parse_from(args.iter().copied().chain(extra.iter().copied())).expect("cli");
    Config::resolve_with(&cli, &NoEnv, &FileConfig::default()).expect("config")
}

fn fast() -> Arc<DemoProvider> {
    Arc::new(DemoProvider::new(Pace {
        word: Duration::ZERO,
        json_chunk: Duration::ZERO,
        first_byte: Duration::ZERO,
    }))
}

/// The engine both front ends use, over the fast demo model and a sessions directory of
/// the test's own.
fn start(cfg: &Config, dir: &Path, front: FrontEnd) -> Engine {
    let overrides = Overrides {
        provider: Some(fast()),
        sessions_dir: Some(dir.to_path_buf()),
        tools: None,
    };
    engine::start_with(cfg, front, overrides).expect("engine starts")
}

async fn until_done(rx: &mut mpsc::UnboundedReceiver<AgentEvent>) {
    while let Some(e) = rx.recv().await {
        if matches!(e, AgentEvent::Done(_)) {
            return;
        }
    }
    panic!("the agent stopped before Done");
}

#[tokio::test]
async fn a_new_conversation_starts_a_new_session_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(tmp.path(), &[]);
    let Engine {
        events: mut rx,
        control,
        session,
        ..
    } = start(&cfg, &dir, FrontEnd::Interactive);
    let info = session.expect("on");
    assert!(!info.resumed);
    assert!(
        !info.path.exists(),
        "nothing is written before the first prompt"
    );

    let tx = control.commands().clone();
    tx.send(AgentCommand::Submit {
        text: "what time is it".into(),
    })
    .expect("send");
    until_done(&mut rx).await;
    let first_id = info.handle.id();
    assert_eq!(first_id, info.id);
    tx.send(AgentCommand::NewConversation).expect("send");
    tx.send(AgentCommand::Submit {
        text: "read the file x".into(),
    })
    .expect("send");
    until_done(&mut rx).await;
    let agent = control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops");

    assert_ne!(
        info.handle.id(),
        first_id,
        "the handle follows the new session"
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    let old = load::read(&info.path).expect("old");
    assert_eq!(old.prompts, vec!["what time is it".to_string()]);
    let new = load::read(&info.handle.path()).expect("new");
    assert_eq!(new.header.id, info.handle.id());
    assert_eq!(new.prompts, vec!["read the file x".to_string()]);
    assert_eq!(
        new.messages, agent.history,
        "the new file holds exactly the new history"
    );
}

#[tokio::test]
async fn resume_puts_the_history_back_and_emits_history_reset() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(tmp.path(), &[]);
    let mut first = start(&cfg, &dir, FrontEnd::Headless);
    let info = first.session.clone().expect("on");
    first.control.send(AgentCommand::Submit {
        text: "what time is it".into(),
    });
    until_done(&mut first.events).await;
    let before = first
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops")
        .history;
    assert!(before.len() >= 2, "{before:?}");

    // Each prompt records the provider it went to (a later resume compares).
    let file = std::fs::read_to_string(&info.path).expect("transcript");
    assert!(file.contains("\"provider\":\"demo\""), "{file}");
    let cfg = config(tmp.path(), &["--resume", &info.id]);
    let mut second = start(&cfg, &dir, FrontEnd::Headless);
    let again = second.session.clone().expect("on");
    assert!(again.resumed);
    assert_eq!(again.id, info.id);
    // Which session and which provider/model it now runs on (a session recorded on one
    // provider must not go on silently on another).
    let notice = again.notice.clone().expect("a resume says what it loaded");
    assert!(
        notice.starts_with(&format!("resumed session {} (1 prompt) on demo/", info.id)),
        "{notice}"
    );
    let mut first_event = second.events.recv().await;
    // How the resumed calls ran comes just before the history.
    if let Some(AgentEvent::ToolTimings { .. }) = first_event {
        first_event = second.events.recv().await;
    }
    match first_event {
        Some(AgentEvent::HistoryReset { messages, .. }) => assert_eq!(messages, before),
        other => panic!("expected HistoryReset, got {other:?}"),
    }
    let agent = second
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("the agent stops");
    assert_eq!(agent.history, before);
}
