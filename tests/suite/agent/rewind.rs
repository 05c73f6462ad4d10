//! Rewind and fork on the live agent (what the TUI sends), in process: a prompt merged into
//! an interrupted turn is cut out of its message, the files come back, the transcript
//! replays to the same history, the next request passes the scripted provider's
//! validation, and the TUI's Esc Esc → list → choice sends the right command. Resumed and
//! rewound, the session's facts (the state block) are those of the kept history.

use std::path::Path;
use std::sync::Arc;

use clap::Parser;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tooloop::agent::Agent;
use tooloop::agent::attach::attach_in;
use tooloop::agent::context::facts::SessionFacts;
use tooloop::agent::context::{live, state_block};
use tooloop::cli::Cli;
use tooloop::config::SessionMode;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::message::markers::interrupt_block;
use tooloop::message::{ContentBlock, Message, validate_history};
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{AgentCommand, Terminal, TurnSummary};
use tooloop::provider::scripted::{ReplyBuilder, ScriptedProvider};
use tooloop::session::load;
use tooloop::session::rewind::Request;
use tooloop::tui::app::{App, RunInfo};

/// The agent the engine would build for `cfg` (interactive), over `provider`.
fn agent_for(
    cfg: &Config,
    provider: Arc<dyn tooloop::provider::Provider>,
    sink: EventSink,
) -> Agent {
    let exec = tooloop::engine::exec_env(
        cfg,
        tooloop::engine::FrontEnd::Interactive,
        tooloop::tools::ToolRegistry::builtin(),
        sink,
    )
    .expect("exec env");
    Agent::new(provider, exec, tooloop::engine::loop_settings(cfg))
}

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _: &str) -> Option<String> {
        None
    }
}

fn config(workspace: &Path) -> Config {
    let ws = workspace.to_string_lossy().into_owned();
    let args = [
        "tooloop",
        "--provider",
        "demo",
        "--approval",
        "yolo",
        "--workspace",
        &ws,
    ];
    let cli = Cli::try_parse_from(args).expect("cli");
    Config::resolve_with(&cli, &NoEnv, &FileConfig::default()).expect("config")
}

fn write(id: &str, path: &str, content: &str) -> tooloop::provider::scripted::Reply {
    ReplyBuilder::new()
        .tool(
            1,
            2,
            id,
            "write_file",
            json!({"path": path, "content": content}),
        )
        .end(3, "tool_use")
}

fn text(t: &str) -> tooloop::provider::scripted::Reply {
    ReplyBuilder::new().text(1, t).end(2, "end_turn")
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[tokio::test]
async fn a_prompt_merged_into_an_interrupted_turn_is_rewound_cleanly() {
    let tmp = tempfile::tempdir().expect("tmp");
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).expect("mkdir");
    std::fs::write(ws.join("a.txt"), "original\n").expect("write");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(&ws);
    let provider = Arc::new(ScriptedProvider::new(vec![
        write("t1", "a.txt", "first\n"),
        text("wrote a"),
        write("t3", "a.txt", "third\n"),
        text("wrote a again"),
        text("after the rewind"),
    ]));
    let (sink, _rx) = EventSink::channel();
    let mut agent = agent_for(&cfg, provider.clone(), sink);
    let info = attach_in(
        &dir,
        &cfg.session.mode,
        &cfg.workspace,
        cfg.session.fork,
        &mut agent,
    )
    .expect("attach")
    .expect("on");
    let cancel = CancellationToken::new();
    assert_eq!(
        agent.run_prompt("one", &cancel).await.reason,
        Terminal::Completed
    );

    // Prompt two ends interrupted: the history ends in a user message.
    let r = agent.observer.as_mut().expect("observer");
    r.prompt_start("two", "m");
    agent.push(Message::user_text("two"));
    agent.push(Message::assistant(vec![ContentBlock::ToolUse {
        id: "t2".into(),
        name: "list_dir".into(),
        input: json!({}),
    }]));
    agent.push(Message::user(vec![
        ContentBlock::tool_result("t2", "interrupted by user", true),
        interrupt_block(),
    ]));
    agent
        .observer
        .as_mut()
        .expect("observer")
        .prompt_end(&TurnSummary {
            reason: Terminal::AbortedTools,
            turns: 1,
            usage: Default::default(),
            cost_usd: None,
            context_tokens: 0,
            text: String::new(),
            transitions: vec![],
            error: None,
        });
    let before_three = agent.history.clone();
    // Prompt three is merged into that user message, and writes a.txt again.
    assert_eq!(
        agent.run_prompt("three", &cancel).await.reason,
        Terminal::Completed
    );
    assert!(
        agent.history[before_three.len() - 1]
            .text()
            .contains("three")
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).expect("read"),
        "third\n"
    );

    // The TUI: Esc Esc on the empty input, newest prompt, conversation and files.
    let mut app = App::new(RunInfo {
        session_handle: Some(info.handle.clone()),
        ..Default::default()
    });
    let now = tokio::time::Instant::now();
    app.on_key(key(KeyCode::Esc), now);
    assert!(app.overlays.rewind.is_none());
    app.on_key(key(KeyCode::Esc), now);
    assert!(app.overlays.rewind.is_some(), "Esc Esc opens the list");
    app.on_key(key(KeyCode::Enter), now);
    // A digit only chooses, as in the approval box (issue 41, item 8); Enter acts.
    app.on_key(key(KeyCode::Char('1')), now);
    assert_eq!(app.take_commands(), vec![], "a digit acted at once");
    assert!(app.overlays.rewind.is_some());
    app.on_key(key(KeyCode::Enter), now);
    let sent = app.take_commands();
    let req = Request {
        to: 3,
        files: true,
        conversation: true,
        overwrite_conflicts: false,
    };
    assert_eq!(sent, vec![AgentCommand::Rewind(req)]);
    assert_eq!(app.input.text(), "three", "the prompt is back in the input");
    assert!(app.overlays.rewind.is_none());

    let outcome = agent.rewind(&req).expect("rewinds");
    assert_eq!(outcome.restored, vec!["a.txt".to_string()]);
    assert_eq!(outcome.conversation_truncated_to, Some(before_three.len()));
    assert_eq!(
        agent.history, before_three,
        "the merged prompt's text is cut out"
    );
    validate_history(&agent.history).expect("valid");
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).expect("read"),
        "first\n"
    );
    let loaded = load::read(&info.handle.path()).expect("loads");
    assert_eq!(
        loaded.messages, agent.history,
        "the transcript replays to the same"
    );
    assert_eq!(loaded.prompts, vec!["one".to_string(), "two".to_string()]);

    // The next prompt is accepted (the scripted provider validates like the API) and is
    // prompt 3 again: its edits are checkpointed under that number.
    assert_eq!(
        agent.run_prompt("three again", &cancel).await.reason,
        Terminal::Completed
    );
    let last = provider.requests().pop().expect("a request");
    validate_history(&last).expect("valid request");
    assert_eq!(
        load::read(&info.handle.path())
            .expect("loads")
            .prompts
            .len(),
        3
    );

    // /undo now rewinds "three again", which changed no file: conversation only.
    let out = agent
        .rewind(&Request {
            to: 3,
            files: true,
            conversation: true,
            overwrite_conflicts: false,
        })
        .expect("undo");
    assert!(out.restored.is_empty() && out.deleted.is_empty());
    assert_eq!(agent.history, before_three);

    // Fork: a new id, the parent file unchanged from here on.
    let parent = info.handle.path();
    let parent_bytes = std::fs::read(&parent).expect("read");
    let child = agent.fork().await.expect("forks");
    assert_ne!(child, info.id);
    assert_eq!(info.handle.id(), child, "the live handle follows the fork");
    assert_eq!(std::fs::read(&parent).expect("read"), parent_bytes);
    let forked = load::read(&info.handle.path()).expect("loads");
    assert_eq!(forked.messages, agent.history);
    assert_eq!(forked.header.forked_from.as_deref(), Some(info.id.as_str()));
}

#[tokio::test]
async fn undo_asks_before_overwriting_a_file_changed_by_hand() {
    let tmp = tempfile::tempdir().expect("tmp");
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).expect("mkdir");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(&ws);
    let provider = Arc::new(ScriptedProvider::new(vec![
        write("t1", "made.txt", "by the tool\n"),
        text("made it"),
    ]));
    let (sink, _rx) = EventSink::channel();
    let mut agent = agent_for(&cfg, provider, sink);
    let info = attach_in(
        &dir,
        &cfg.session.mode,
        &cfg.workspace,
        cfg.session.fork,
        &mut agent,
    )
    .expect("attach")
    .expect("on");
    let cancel = CancellationToken::new();
    agent.run_prompt("make a file", &cancel).await;
    std::fs::write(ws.join("made.txt"), "mine now\n").expect("write");

    let mut app = App::new(RunInfo {
        session_handle: Some(info.handle.clone()),
        ..Default::default()
    });
    let now = tokio::time::Instant::now();
    for c in "/undo".chars() {
        app.on_key(key(KeyCode::Char(c)), now);
    }
    app.on_key(key(KeyCode::Enter), now);
    assert!(app.take_commands().is_empty(), "asks first");
    assert!(
        app.overlays.rewind.is_some(),
        "the conflict question is open"
    );
    app.on_key(key(KeyCode::Char('n')), now);
    let req = Request {
        to: 1,
        files: true,
        conversation: true,
        overwrite_conflicts: false,
    };
    assert_eq!(app.take_commands(), vec![AgentCommand::Rewind(req)]);
    assert_eq!(app.input.text(), "make a file");

    let out = agent.rewind(&req).expect("rewinds");
    assert_eq!(out.conflicts, vec!["made.txt".to_string()]);
    assert_eq!(out.conversation_truncated_to, Some(0));
    assert!(agent.history.is_empty());
    assert_eq!(
        std::fs::read_to_string(ws.join("made.txt")).expect("read"),
        "mine now\n",
        "left alone"
    );
    let loaded = load::read(&info.handle.path()).expect("loads");
    assert!(loaded.messages.is_empty() && loaded.prompts.is_empty());
}

/// A reply calling `calls` (id, tool, input) in order.
fn calls(calls: &[(&str, &str, serde_json::Value)]) -> tooloop::provider::scripted::Reply {
    let mut b = ReplyBuilder::new();
    for (i, (id, name, input)) in calls.iter().enumerate() {
        let at = 1 + 2 * i as u64;
        b = b.tool(at, at + 1, id, name, input.clone());
    }
    b.end(2 * calls.len() as u64 + 1, "tool_use")
}

fn block(agent: &Agent, ws: &Path) -> String {
    let exists = |p: &str| ws.join(p).exists();
    state_block::build(
        &agent.facts,
        &live::read(agent),
        &exists,
        state_block::Latest::Quote { max_chars: 2_000 },
    )
    .text
}

/// (request texts, changed paths, read paths, command lines) of `facts`.
type Lists = (Vec<String>, Vec<String>, Vec<String>, Vec<String>);

fn lists(facts: &SessionFacts) -> Lists {
    (
        facts.requests.iter().map(|r| r.text.clone()).collect(),
        facts.files_changed.iter().map(|f| f.path.clone()).collect(),
        facts.files_read.clone(),
        facts.commands.iter().map(|c| c.command.clone()).collect(),
    )
}

fn owned(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// `SessionFacts::rebuild`: resumed, then rewound, the state block (what a compaction hands
/// the model) lists exactly the facts of the kept history — the requests, files changed,
/// files read and commands of the kept prompts, none of a rewound one.
#[tokio::test]
async fn resume_and_rewind_rebuild_exactly_the_kept_historys_facts_and_state_block() {
    let tmp = tempfile::tempdir().expect("tmp");
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).expect("mkdir");
    std::fs::write(ws.join("notes.txt"), "a note\n").expect("write");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(&ws);
    let cancel = CancellationToken::new();

    // Three prompts: the first writes alpha.txt; the second reads notes.txt, writes
    // beta.txt and runs a command; the third writes gamma.txt and reads alpha.txt.
    let provider = Arc::new(ScriptedProvider::new(vec![
        calls(&[(
            "t1",
            "write_file",
            json!({"path": "alpha.txt", "content": "a\n"}),
        )]),
        text("wrote alpha"),
        calls(&[
            ("t2", "read_file", json!({"path": "notes.txt"})),
            (
                "t3",
                "write_file",
                json!({"path": "beta.txt", "content": "b\n"}),
            ),
            ("t4", "bash", json!({"command": "echo beta-command"})),
        ]),
        text("wrote beta"),
        calls(&[
            (
                "t5",
                "write_file",
                json!({"path": "gamma.txt", "content": "c\n"}),
            ),
            ("t6", "read_file", json!({"path": "alpha.txt"})),
        ]),
        text("wrote gamma"),
    ]));
    let (sink, _rx) = EventSink::channel();
    let mut first = agent_for(&cfg, provider, sink);
    let info = attach_in(&dir, &SessionMode::New, &ws, false, &mut first)
        .expect("attach")
        .expect("sessions on");
    for p in ["make alpha", "make beta", "make gamma"] {
        let s = first.run_prompt(p, &cancel).await;
        assert_eq!(s.reason, Terminal::Completed, "{p}: {:?}", s.error);
    }
    let live_facts = lists(&first.facts);
    assert_eq!(
        live_facts,
        (
            owned(&["make alpha", "make beta", "make gamma"]),
            owned(&["alpha.txt", "beta.txt", "gamma.txt"]),
            owned(&["notes.txt", "alpha.txt"]),
            owned(&["echo beta-command"]),
        ),
        "the live session's facts"
    );
    let live_block = block(&first, &ws);
    let history = first.history.clone();
    drop(first);

    // Resumed in a fresh agent: the facts rebuilt from the transcript are the live ones,
    // and so is the state block.
    let (sink, _rx) = EventSink::channel();
    let mut resumed = agent_for(
        &cfg,
        Arc::new(ScriptedProvider::new(vec![text("again")])),
        sink,
    );
    attach_in(
        &dir,
        &SessionMode::Resume(info.id.clone()),
        &ws,
        false,
        &mut resumed,
    )
    .expect("resume")
    .expect("sessions on");
    assert_eq!(resumed.history, history);
    assert_eq!(lists(&resumed.facts), live_facts, "rebuilt on resume");
    assert_eq!(block(&resumed, &ws), live_block, "the same state block");

    // Rewound to before the third prompt (conversation and files): gamma.txt, its read of
    // alpha.txt and the request are gone from the facts and from the block.
    resumed
        .rewind(&Request {
            to: 3,
            files: true,
            conversation: true,
            overwrite_conflicts: false,
        })
        .expect("rewinds");
    validate_history(&resumed.history).expect("valid");
    assert!(!ws.join("gamma.txt").exists(), "the file came back out");
    assert_eq!(
        lists(&resumed.facts),
        (
            owned(&["make alpha", "make beta"]),
            owned(&["alpha.txt", "beta.txt"]),
            owned(&["notes.txt"]),
            owned(&["echo beta-command"]),
        ),
        "rebuilt on rewind: the kept history's facts, exactly"
    );
    let kept = block(&resumed, &ws);
    for present in [
        "make alpha",
        "make beta",
        "alpha.txt",
        "beta.txt",
        "notes.txt",
        "echo beta-command",
    ] {
        assert!(kept.contains(present), "{present} missing from:\n{kept}");
    }
    for gone in ["make gamma", "gamma.txt"] {
        assert!(!kept.contains(gone), "{gone} still in:\n{kept}");
    }
    // Request numbers follow the kept prompts: the next one is 3 again.
    assert_eq!(resumed.facts.request_count, 2);
}
