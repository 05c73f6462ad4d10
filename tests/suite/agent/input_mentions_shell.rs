//! What the input's shortcuts send (issue 29): `@file` puts the file's content in the
//! request as a text block headed with its path, `@dir` its listing, and a `!command`'s
//! command and output reach the model with the next prompt (history stays valid: the
//! mock checks every request as the API would). The engine the TUI uses, over the mock.

use crate::support;

use std::path::Path;

use clap::Parser;
use serde_json::Value;
use tokio::sync::mpsc;
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
        "--sandbox",
        "off",
        "--no-session",
    ];
    let cli = Cli::try_parse_from(args).expect("cli");
    Config::resolve_with(&cli, &KeyEnv, &FileConfig::default()).expect("config")
}

/// Events until Done: its reason, and the tool output the front end was shown, and a
/// line for each notice.
async fn until_done(rx: &mut mpsc::UnboundedReceiver<AgentEvent>) -> (Terminal, String) {
    let mut shown = String::new();
    while let Some(e) = rx.recv().await {
        match e {
            AgentEvent::Done(s) => return (s.reason, shown),
            AgentEvent::ToolEnd { output, .. } => shown.push_str(&output),
            AgentEvent::Notice { text } => shown.push_str(&format!("\nnotice: {text}\n")),
            _ => {}
        }
    }
    panic!("the agent stopped before Done");
}

/// The texts of the last user message of a request.
fn last_user_texts(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().expect("messages");
    let last = messages.last().expect("a message");
    assert_eq!(last["role"], "user");
    last["content"]
        .as_array()
        .expect("content blocks")
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_files_and_shell_output_reach_the_model() {
    let tmp = tempfile::tempdir().expect("tmp");
    let ws = tmp.path();
    std::fs::write(ws.join("notes.md"), "the secret word is 柠檬\n").expect("w");
    std::fs::create_dir(ws.join("src")).expect("dir");
    std::fs::write(ws.join("src/lib.rs"), "").expect("w");
    let server = MockServer::start();
    let cfg = config(ws, &server);
    let Engine {
        events: mut rx,
        control,
        ..
    } = engine::start_with(&cfg, FrontEnd::Interactive, Overrides::default()).expect("engine");

    // `!command` before any prompt: it runs at once (no approval, the user typed it).
    control.send(AgentCommand::Shell {
        command: "echo shell-said-$((6*7))".into(),
    });
    let (reason, shown) = until_done(&mut rx).await;
    assert_eq!(reason, Terminal::Completed);
    assert!(shown.contains("shell-said-42"), "{shown}");
    assert!(
        server.requests().is_empty(),
        "a !command asks the model nothing"
    );

    server.enqueue(text_reply("I see them."));
    control.send(AgentCommand::Submit {
        text: "what does @notes.md say, and what is in @src?".into(),
    });
    let (reason, shown) = until_done(&mut rx).await;
    assert_eq!(reason, Terminal::Completed);
    // The user sees what was attached, as a resumed session shows it (issue #41 item 17).
    assert!(
        shown.contains("notice: attached notes.md (1 line)\n")
            && shown.contains("notice: attached src/ (1 entry)\n"),
        "{shown}"
    );
    let sent = server.accepted();
    assert_eq!(sent.len(), 1);
    let body = &sent[0].body;
    assert_eq!(
        body["messages"].as_array().map(Vec::len),
        Some(1),
        "one user message"
    );
    let texts = last_user_texts(body);
    assert_eq!(
        texts[0],
        "[The user ran a shell command in the workspace]\n$ echo shell-said-$((6*7))\n\
         shell-said-42\nexit code 0"
    );
    assert_eq!(texts[1], "what does @notes.md say, and what is in @src?");
    assert_eq!(
        texts[2],
        "File notes.md (1 line), attached by the user:\n\nthe secret word is 柠檬"
    );
    assert_eq!(
        texts[3],
        "Directory src/ (1 entry), attached by the user:\n\nlib.rs"
    );

    // Ctrl+C stops a long command: what it printed so far reaches the model, marked.
    control.send(AgentCommand::Shell {
        command: "echo started; sleep 30".into(),
    });
    loop {
        match rx.recv().await.expect("events") {
            AgentEvent::ToolProgress { chunk, .. } if chunk.contains("started") => break,
            AgentEvent::Done(_) => panic!("ended before it was stopped"),
            _ => {}
        }
    }
    control.send(AgentCommand::Abort);
    let (reason, _) = until_done(&mut rx).await;
    assert!(reason.is_aborted(), "{reason:?}");
    server.enqueue(text_reply("ok"));
    control.send(AgentCommand::Submit {
        text: "and now?".into(),
    });
    until_done(&mut rx).await;
    let sent = server.accepted();
    assert_eq!(
        sent.len(),
        2,
        "{:?}",
        server.requests().last().map(|r| &r.rejected)
    );
    let texts = last_user_texts(&sent[1].body);
    assert!(
        texts[0].starts_with(
            "[The user ran a shell command in the workspace]\n$ echo started; sleep 30\n"
        ),
        "{texts:?}"
    );
    assert!(texts[0].contains("started"), "{texts:?}");
    assert!(texts[0].ends_with("[stopped by the user]"), "{texts:?}");
    assert_eq!(texts[1], "and now?");
}

/// A deny rule for read_file keeps an `@file` out of the request, whichever way it is
/// named: directly, or through a symlink elsewhere in the workspace.
#[test]
fn a_denied_path_is_never_attached() {
    let tmp = tempfile::tempdir().expect("tmp");
    let ws = tmp.path();
    std::fs::write(ws.join(".env"), "API_TOKEN=hunter2\n").expect("w");
    std::fs::create_dir(ws.join(".tooloop")).expect("dir");
    std::fs::write(
        ws.join(".tooloop/settings.toml"),
        "[permissions]\ndeny = [\"read_file(.env)\"]\n",
    )
    .expect("w");
    #[cfg(unix)]
    std::os::unix::fs::symlink(ws.join(".env"), ws.join("env-link")).expect("link");
    let server = MockServer::start();
    server.enqueue(text_reply("ok"));
    let base = server.anthropic_base();
    let run = Tooloop::new(&[
        "-p",
        "what is in @.env and @env-link?",
        "--base-url",
        &base,
        "--output-format",
        "json",
    ])
    .env("ANTHROPIC_API_KEY", "k")
    .workspace(ws)
    .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let sent = server.accepted();
    assert!(
        !sent[0].body_text.contains("hunter2"),
        "{}",
        sent[0].body_text
    );
    let texts = last_user_texts(&sent[0].body);
    // Words for the user as much as the model (they are its notice too): the rule, not
    // "read_file was not run" (issue #41 item 19).
    assert!(
        texts[1]
            .starts_with("[@.env was not attached: the permission rule deny `read_file(.env)` in ")
            && texts[1].ends_with(" forbids reading it]"),
        "{texts:?}"
    );
    #[cfg(unix)]
    assert!(
        texts[2].starts_with("[@env-link was not attached:"),
        "{texts:?}"
    );
}
