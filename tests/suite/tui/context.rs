//! The TUI's side of context management: the status bar's ctx % / cost / cache share, the
//! compacted divider (expandable), `/compact` and aborting it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::time::Instant;
use tooloop::message::Message;
use tooloop::protocol::compaction::Kept;
use tooloop::protocol::compaction::{Compaction, ContextStatus, Trigger};
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::{App, Focus, RunInfo};
use tooloop::tui::view;

fn app() -> App {
    App::new(RunInfo {
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        save_dir: std::env::temp_dir(),
        ..Default::default()
    })
}

fn screen(app: &mut App, w: u16, h: u16, now: Instant) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| view::draw(app, f, now)).expect("draw");
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect()
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn compacted(summary: &str) -> AgentEvent {
    AgentEvent::Compacted {
        info: Compaction {
            trigger: Trigger::Auto,
            pre_tokens: 16000,
            post_tokens: 5280,
            messages_before: 40,
            messages_after: 3,
            summary: summary.into(),
            state: "## The user's requests\nRequest 1 (latest, in full):\n\"\"\"\n重构解析器\n\"\"\"\n\
                    ## Files changed by tools since the session began\n- src/parser.rs: edited (3 edits)"
                .into(),
            kept: Kept {
                requests: 4,
                files_changed: 12,
                commands: 0,
                todos: 3,
            },
        },
        messages: vec![Message::user_text("[Summary of an earlier part…]")],
    }
}

#[tokio::test(start_paused = true)]
async fn status_bar_shows_context_cost_and_cache_share() {
    let now = Instant::now();
    let mut a = app();
    a.on_agent(
        AgentEvent::Context(ContextStatus {
            context_tokens: 126_000,
            window: 200_000,
            cost_usd: Some(0.4213),
            cache_read_share: Some(0.92),
            tools: Default::default(),
        }),
        now,
    );
    let s = screen(&mut a, 200, 50, now);
    let status = s.last().unwrap();
    for want in ["ctx 63%", "$0.42", "cache 92%"] {
        assert!(status.contains(want), "{want} missing: {status}");
    }
    a.on_agent(
        AgentEvent::Context(ContextStatus {
            context_tokens: 10,
            window: 200_000,
            cost_usd: None,
            cache_read_share: None,
            tools: Default::default(),
        }),
        now,
    );
    let s = screen(&mut a, 80, 24, now);
    assert!(
        s.last().unwrap().contains("ctx 0% │ $?"),
        "{}",
        s.last().unwrap()
    );
}

#[tokio::test(start_paused = true)]
async fn a_resumed_session_shows_the_replaced_messages_dimmed_above_the_divider() {
    let now = Instant::now();
    for (w, h) in [(80, 24), (200, 50)] {
        let mut a = app();
        a.on_agent(
            AgentEvent::EarlierHistory {
                messages: vec![
                    Message::user_text("重构解析器 please"),
                    Message::assistant(vec![tooloop::message::ContentBlock::text(
                        "Done: the parser is split.",
                    )]),
                ],
                summaries: Default::default(),
            },
            now,
        );
        let summary = format!(
            "{}<summary>\nThe user asked for a parser refactor.\n</summary>",
            tooloop::message::markers::summary::HEADER
        );
        a.on_agent(
            AgentEvent::HistoryReset {
                messages: vec![std::sync::Arc::new(Message::user_text(summary))],
                summaries: Default::default(),
            },
            now,
        );
        let lines = screen(&mut a, w, h, now);
        let find = |needle: &str| {
            lines
                .iter()
                .position(|l| l.replace(' ', "").contains(needle))
        };
        let earlier = find("重构解析器please").expect("the earlier prompt is shown");
        let reply = find("Done:theparserissplit.").expect("the earlier reply is shown");
        let divider = find("compacted").expect("the divider");
        assert!(earlier < reply && reply < divider, "{lines:#?}");
        // A later reset (a new conversation) does not bring them back.
        a.on_agent(
            AgentEvent::HistoryReset {
                messages: vec![],
                summaries: Default::default(),
            },
            now,
        );
        let s = screen(&mut a, w, h, now).join("\n");
        assert!(!s.contains("Done: the parser"), "{s}");
    }
}

#[tokio::test(start_paused = true)]
async fn the_compacted_divider_says_what_was_kept_and_expands_to_summary_and_state() {
    let now = Instant::now();
    for (w, h) in [(80, 24), (200, 50)] {
        let mut a = app();
        a.on_agent(compacted("用户要求重构解析器。Next: run the tests."), now);
        let s = screen(&mut a, w, h, now).join("\n");
        if w == 200 {
            assert!(
                s.contains(
                    "── compacted (auto): 16.0k → 5.3k tokens · kept 4 requests, 12 files, \
                     todo 3 open ──"
                ),
                "{s}"
            );
        } else {
            // Too long for one line at 80 columns: what was kept goes below the title.
            assert!(
                s.contains("── compacted (auto): 16.0k → 5.3k tokens ──"),
                "{s}"
            );
            assert!(
                s.contains("  kept 4 requests, 12 files, todo 3 open"),
                "{s}"
            );
        }
        assert!(!s.contains("用户要求"), "collapsed by default");
        assert!(!s.contains("src/parser.rs"), "collapsed by default");
        a.on_key(key(KeyCode::Tab), now);
        assert_eq!(a.panes.focus, Focus::Conversation);
        a.on_key(key(KeyCode::Enter), now);
        // Wide characters take two cells; compare without the filler.
        let s = screen(&mut a, w, h, now).join("\n").replace(' ', "");
        assert!(s.contains("用户要求重构解析器。Next:runthetests."), "{s}");
        assert!(
            s.contains("──stateblock(builtbytooloop,appendedtothesummary)──"),
            "{s}"
        );
        assert!(s.contains("-src/parser.rs:edited(3edits)"), "{s}");
    }
}

#[tokio::test(start_paused = true)]
async fn slash_compact_sends_the_instructions_and_ctrl_c_aborts_it() {
    let now = Instant::now();
    let mut a = app();
    for c in "/compact keep the test names".chars() {
        a.on_key(key(KeyCode::Char(c)), now);
    }
    a.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        a.take_commands(),
        vec![AgentCommand::Compact {
            instructions: Some("keep the test names".into())
        }]
    );
    assert!(a.turn.busy);
    a.on_key(
        KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
        now,
    );
    assert_eq!(a.take_commands(), vec![AgentCommand::Abort]);
    a.on_agent(
        AgentEvent::Error {
            message: "compaction aborted".into(),
        },
        now,
    );
    assert!(!a.turn.busy, "idle again after the abort");
    // Plain /compact has no instructions; "/compactly" is a prompt.
    for c in "/compact".chars() {
        a.on_key(key(KeyCode::Char(c)), now);
    }
    a.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        a.take_commands(),
        vec![AgentCommand::Compact { instructions: None }]
    );
    a.on_agent(compacted("s"), now);
    assert!(!a.turn.busy);
    // A conversation too short to compact: the notice ends the wait.
    a.on_key(key(KeyCode::Char('/')), now);
    for c in "compact".chars() {
        a.on_key(key(KeyCode::Char(c)), now);
    }
    a.on_key(key(KeyCode::Enter), now);
    assert!(a.turn.busy);
    a.on_agent(
        AgentEvent::Notice {
            text: "nothing to compact: the conversation is 812 tokens".into(),
        },
        now,
    );
    assert!(!a.turn.busy, "idle again after the notice");
    let s = screen(&mut a, 80, 24, now).join("\n");
    assert!(
        s.contains("nothing to compact: the conversation is 812 tokens"),
        "{s}"
    );
}
