//! A new conversation (`/new` in the TUI, AgentCommand::NewConversation) starts a new
//! session file without restarting tooloop, and the live handle follows it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use tokio::sync::mpsc;
use tooloop::agent::Agent;
use tooloop::agent::events::EventSink;
use tooloop::agent::protocol::{AgentCommand, AgentEvent};
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::provider::demo::{DemoProvider, Pace};
use tooloop::session::{attach_in, load};

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
    let (sink, mut rx) = EventSink::channel();
    let mut agent = Agent::from_config(&cfg, fast(), sink, true).expect("agent");
    let info = attach_in(&dir, &cfg, &mut agent)
        .expect("attach")
        .expect("on");
    assert!(!info.resumed);
    assert!(
        !info.path.exists(),
        "nothing is written before the first prompt"
    );

    let (tx, commands) = mpsc::unbounded_channel();
    let task = tooloop::agent::task::spawn(agent, commands);
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
    tx.send(AgentCommand::Shutdown).expect("send");
    let agent = task.await.expect("task");

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
    let mut agent = Agent::from_config(&cfg, fast(), EventSink::null(), false).expect("agent");
    let info = attach_in(&dir, &cfg, &mut agent)
        .expect("attach")
        .expect("on");
    let cancel = tokio_util::sync::CancellationToken::new();
    agent.run_prompt("what time is it", &cancel).await;
    let before = agent.history.clone();
    drop(agent);

    let cfg = config(tmp.path(), &["--resume", &info.id]);
    let (sink, mut rx) = EventSink::channel();
    let mut agent = Agent::from_config(&cfg, fast(), sink, false).expect("agent");
    let again = attach_in(&dir, &cfg, &mut agent)
        .expect("attach")
        .expect("on");
    assert!(again.resumed);
    assert_eq!(again.id, info.id);
    assert_eq!(again.notice, None);
    assert_eq!(agent.history, before);
    match rx.try_recv() {
        Ok(AgentEvent::HistoryReset { messages, .. }) => assert_eq!(messages, before),
        other => panic!("expected HistoryReset, got {other:?}"),
    }
}
