//! `/sessions`: a picker of this workspace's saved sessions (newest first), Enter resumes the
//! chosen one in the running TUI through AgentCommand::Resume (the `--resume` loading), Esc
//! closes. State tests on the App, and the agent side through the real engine.

use crate::support;

use std::path::Path;
use std::time::Duration;

use crossterm::event::KeyCode;
use support::tui::demo_engine::{config, start, until};
use support::tui::*;
use tokio::time::Instant;
use tooloop::message::validate_history;
use tooloop::protocol::events::EventSink;
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal};
use tooloop::session::{Transcript, load};
use tooloop::tui::app::App;

/// An App whose live session is a new one in `dir`, in workspace "/w".
fn app_in(dir: &Path) -> App {
    let mut a = app();
    let t = Transcript::create(dir, "/w", EventSink::null());
    a.info.session_handle = Some(t.handle());
    a.info.workspace = "/w".into();
    a
}

/// Types `text` and Enter; an opened picker has read the sessions when this returns.
fn command(a: &mut App, text: &str, now: Instant) {
    type_text(a, text, now);
    a.on_key(key(KeyCode::Enter), now);
    let wakes = a.next_wakeup(now).is_some();
    if let Some(picker) = a.overlays.sessions.as_mut() {
        assert!(
            picker.loading() && wakes,
            "the loop wakes up to show the listing"
        );
        picker.wait();
        assert!(!picker.loading());
    }
}

#[tokio::test(start_paused = true)]
async fn the_picker_lists_this_workspaces_sessions_newest_first_and_resumes_the_chosen_one() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("sessions");
    write_session(&dir, "aaaa0001", "/w", "oldest prompt", 1, 1_000);
    write_session(&dir, "bbbb0002", "/w", "修复解析器 newest", 3, 3_000);
    write_session(&dir, "cccc0003", "/elsewhere", "other workspace", 1, 4_000);
    write_session(&dir, "dddd0004", "/w", "middle", 2, 2_000);
    let now = Instant::now();
    let mut a = app_in(&dir);
    command(&mut a, "/sessions", now);
    assert!(a.take_commands().is_empty(), "a slash command is not sent");
    let picker = a.overlays.sessions.as_ref().expect("the picker opens");
    let ids: Vec<&str> = picker.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["bbbb0002", "dddd0004", "aaaa0001"]);
    assert_eq!(picker.entries[0].turns, 3);
    assert_eq!(picker.entries[0].first_prompt, "修复解析器 newest");
    assert!(picker.entries[0].bytes > 0);
    // Tiny terminals draw something and never panic.
    for (w, h) in [(1, 1), (10, 3), (19, 5), (20, 5), (23, 6), (30, 4)] {
        render_text(&mut a, w, h, now);
    }
    for (w, h) in [(80, 24), (200, 50)] {
        let s = render_text(&mut a, w, h, now);
        assert!(s.contains("修复解析器 newest"), "{w}x{h}\n{s}");
        assert!(s.contains("Enter resume"), "{w}x{h}\n{s}");
        assert!(!s.contains("other workspace"), "{w}x{h}\n{s}");
    }
    // Esc closes without a command.
    a.on_key(key(KeyCode::Esc), now);
    assert!(a.overlays.sessions.is_none());
    assert!(a.take_commands().is_empty());
    // ↓ Enter resumes the second newest.
    command(&mut a, "/sessions", now);
    a.on_key(key(KeyCode::Down), now);
    a.on_key(key(KeyCode::Enter), now);
    assert!(a.overlays.sessions.is_none());
    assert_eq!(
        a.take_commands(),
        vec![AgentCommand::Resume {
            id: "dddd0004".into()
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn rows_show_each_sessions_id_and_mark_forks() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("sessions");
    write_session(&dir, "bbbb0002", "/w", "fix the parser", 3, 3_000);
    // A fork starts as a copy: same first prompt, same turns; only the id and the mark differ.
    let fork = write_session(&dir, "eeee0005", "/w", "fix the parser", 3, 3_500);
    let text = std::fs::read_to_string(&fork).expect("read");
    let text = text.replacen(
        "\"format\":1",
        "\"forked_from\":\"bbbb0002\",\"format\":1",
        1,
    );
    std::fs::write(&fork, text).expect("write");
    let now = Instant::now();
    let mut a = app_in(&dir);
    command(&mut a, "/sessions", now);
    for (w, h) in [(80, 24), (200, 50)] {
        let s = render_text(&mut a, w, h, now);
        let row = |id: &str| {
            s.lines()
                .find(|l| l.contains(id))
                .unwrap_or_else(|| panic!("no row names {id} at {w}x{h}:\n{s}"))
                .to_string()
        };
        assert!(
            row("eeee0005").contains("(fork of bbbb0002)"),
            "{w}x{h}\n{s}"
        );
        assert!(!row("bbbb0002 ").contains("fork of"), "{w}x{h}\n{s}");
    }
}

#[tokio::test(start_paused = true)]
async fn the_picker_waits_for_the_turn_and_says_when_there_is_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("sessions");
    let now = Instant::now();
    let mut a = app_in(&dir);
    command(&mut a, "/sessions", now);
    let s = render_text(&mut a, 80, 24, now);
    assert!(s.contains("no saved sessions in this workspace yet"), "{s}");
    a.on_key(key(KeyCode::Enter), now);
    assert!(a.take_commands().is_empty(), "nothing to resume");
    a.on_key(key(KeyCode::Esc), now);
    write_session(&dir, "aaaa0001", "/w", "one", 1, 1_000);
    start_turn(&mut a, now);
    command(&mut a, "/sessions", now);
    assert!(a.overlays.sessions.is_none(), "not while a turn runs");
    let s = render_text(&mut a, 80, 24, now);
    assert!(s.contains("before resuming a session"), "{s}");
    a.on_agent(done(Terminal::Completed), now);
    // Without a transcript there is nothing to list.
    let mut off = app();
    command(&mut off, "/sessions", now);
    assert!(off.overlays.sessions.is_none());
    assert!(render_text(&mut off, 80, 24, now).contains("--no-session"));
}

#[tokio::test]
async fn resume_continues_the_chosen_session_in_the_running_agent() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(tmp.path(), &[]);
    // An earlier run leaves a session with a tool call.
    let mut first = start(&cfg, &dir);
    let old = first.session.clone().expect("sessions on");
    first.control.send(AgentCommand::Submit {
        text: "what time is it".into(),
    });
    until(&mut first.events, |e| matches!(e, AgentEvent::Done(_))).await;
    let old_history = first
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("stops")
        .history;

    // This run talks a little, then resumes the earlier session.
    let mut run = start(&cfg, &dir);
    let info = run.session.clone().expect("sessions on");
    run.control.send(AgentCommand::Submit {
        text: "list files".into(),
    });
    until(&mut run.events, |e| matches!(e, AgentEvent::Done(_))).await;
    let left = info.handle.path();
    run.control.send(AgentCommand::Resume {
        id: "nosuchid".into(),
    });
    let refused = until(&mut run.events, |e| matches!(e, AgentEvent::Error { .. })).await;
    assert!(
        matches!(refused.last(), Some(AgentEvent::Error { message }) if message.contains("nosuchid")),
        "{refused:?}"
    );
    assert_eq!(info.handle.path(), left, "a failed resume changes nothing");

    run.control
        .send(AgentCommand::Resume { id: old.id.clone() });
    let events = until(&mut run.events, |e| matches!(e, AgentEvent::Session { .. })).await;
    let reset = events.iter().find_map(|e| match e {
        AgentEvent::HistoryReset { messages, .. } => Some(messages.clone()),
        _ => None,
    });
    assert_eq!(reset, Some(old_history.shared().to_vec()), "{events:?}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolTimings { timings } if timings.len() == 1)),
        "the resumed calls' durations come along: {events:?}"
    );
    // Then a notice says which session was loaded and what it runs on now.
    let told = until(&mut run.events, |e| matches!(e, AgentEvent::Notice { .. })).await;
    let notice = match told.last() {
        Some(AgentEvent::Notice { text }) => text.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        notice.starts_with(&format!("resumed session {} (1 prompt) on demo/", old.id)),
        "{notice}"
    );
    assert_eq!(info.handle.id(), old.id, "the live handle follows");
    assert_eq!(info.handle.path(), old.path);
    // The screen shows the resumed conversation and its call.
    let mut a = app();
    let now = Instant::now();
    for e in events {
        a.on_agent(e, now);
    }
    assert_eq!(a.info.session.as_deref(), Some(old.id.as_str()));
    assert_eq!(a.panes.tools.ids().len(), 1);
    assert!(row(&a, 0).duration_ms.is_some());

    // The next prompt continues the resumed session, in its own file.
    run.control.send(AgentCommand::Submit {
        text: "read Cargo.toml".into(),
    });
    until(&mut run.events, |e| matches!(e, AgentEvent::Done(_))).await;
    let agent = run
        .control
        .stop(Duration::from_secs(10))
        .await
        .expect("stops");
    validate_history(&agent.history).expect("valid history");
    assert!(agent.history.len() > old_history.len());
    assert_eq!(
        agent.history.shared()[..old_history.len()],
        old_history.shared()[..]
    );
    let resumed = load::read(&old.path).expect("resumed transcript");
    assert_eq!(resumed.prompts, ["what time is it", "read Cargo.toml"]);
    assert_eq!(resumed.messages, agent.history);
    let left_behind = load::read(&left).expect("the session left stays saved");
    assert_eq!(left_behind.prompts, ["list files"]);
}

#[tokio::test]
async fn a_session_recorded_on_another_provider_says_so_when_resumed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("tooloop/sessions");
    let cfg = config(tmp.path(), &[]);
    let workspace = tooloop::session::canonical_workspace(tmp.path());
    let path = write_session(&dir, "abcd1234", &workspace, "修复 the parser", 1, 1_000);
    // Its prompt went to Anthropic.
    let text = std::fs::read_to_string(&path).expect("read");
    let text = text.replacen(
        "\"model\":\"m\"",
        "\"model\":\"claude-sonnet-4-5\",\"provider\":\"anthropic\"",
        1,
    );
    std::fs::write(&path, text).expect("write");
    let mut run = start(&cfg, &dir);
    run.control.send(AgentCommand::Resume {
        id: "abcd1234".into(),
    });
    let told = until(&mut run.events, |e| matches!(e, AgentEvent::Notice { .. })).await;
    let notice = match told.last() {
        Some(AgentEvent::Notice { text }) => text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        notice,
        "resumed session abcd1234 (1 prompt) on demo/tooloop-demo; it last ran on \
         anthropic/claude-sonnet-4-5"
    );
}
