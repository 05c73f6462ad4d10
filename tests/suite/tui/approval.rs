//! The approval modal as a user meets it: keys typed for the input never answer it, session
//! grants are visible and revocable, a denial can carry a reason and reads "denied".

use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;
use tokio::time::Instant;
use tooloop::protocol::approval::Decision;
use tooloop::protocol::{AgentCommand, AgentEvent, ToolOutcome};
use tooloop::tui::app::{App, Focus};
use tooloop::tui::panes::cells::CellKind;
use tooloop::tui::tool_calls::ToolState;

use crate::support;
use support::tui::*;

fn ask(app: &mut App, id: &str, now: Instant) {
    app.on_agent(tool_use(id, "bash", json!({"command": "ls -la"})), now);
    app.on_agent(
        permission_request(id, "bash", json!({"command": "ls -la"})),
        now,
    );
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn last_notice(app: &App) -> String {
    match app.panes.conversation.cells().last().map(|c| &c.kind) {
        Some(CellKind::Notice(t) | CellKind::Error(t)) => t.clone(),
        _ => panic!("the last cell is not a notice"),
    }
}

#[tokio::test(start_paused = true)]
async fn keys_typed_as_the_modal_opens_go_to_the_input_not_the_question() {
    let mut app = app();
    let t0 = Instant::now();
    start_turn(&mut app, t0);
    // The user is typing "and say yes" at ~10 keys a second; the question opens mid-word.
    ask(&mut app, "b1", t0 + ms(50));
    let mut t = t0;
    for c in "an".chars() {
        app.on_key(key(KeyCode::Char(c)), t);
        t += ms(100);
    }
    assert_eq!(
        app.take_commands(),
        vec![],
        "an `a` or `n` mid-word answers nothing"
    );
    // Past the guard time but still typing in a burst: still not an answer.
    for c in "d say y".chars() {
        app.on_key(key(KeyCode::Char(c)), t);
        t += ms(100);
    }
    assert_eq!(app.take_commands(), vec![]);
    assert!(app.overlays.approvals.is_open());
    assert_eq!(
        app.input.text(),
        "and say y",
        "the typing went to the input"
    );
    // A letter never answers, even after a pause (a lone `h`): it is typing.
    app.on_key(key(KeyCode::Char('h')), t + ms(600));
    assert_eq!(app.take_commands(), vec![]);
    assert_eq!(
        app.input.text(),
        "and say yh",
        "the lone letter is not lost"
    );
    // Enter after those letters, even after a pause, does not confirm "1. Yes": the box
    // asks for an explicit choice (issue 41, item 0).
    app.on_key(key(KeyCode::Enter), t + ms(1200));
    assert_eq!(app.take_commands(), vec![], "Enter after letters approved");
    let screen = render_text(&mut app, 100, 30, t + ms(1200));
    assert!(screen.contains("choose with ↑/↓ or 1–3"), "{screen}");
    // A deliberate choice (the digit 1), then Enter: approved.
    app.on_key(key(KeyCode::Char('1')), t + ms(1800));
    app.on_key(key(KeyCode::Enter), t + ms(2400));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::PermissionReply {
            id: "b1".into(),
            decision: Decision::AllowOnce
        }]
    );
    let t = t + ms(2400);
    // The second question in the queue gets its own guard time.
    let t = t + ms(600);
    ask(&mut app, "b2", t + ms(700));
    ask(&mut app, "b3", t + ms(700));
    app.on_key(key(KeyCode::Enter), t + ms(1400));
    assert_eq!(app.take_commands().len(), 1);
    app.on_key(key(KeyCode::Enter), t + ms(1500));
    // Not an answer: the typed text went into the running turn (steering).
    let cmds = app.take_commands();
    assert!(
        cmds.iter().all(|c| matches!(c, AgentCommand::Steer { .. })),
        "b3 just appeared: {cmds:?}"
    );
    app.on_key(key(KeyCode::Esc), t + ms(2000));
    assert_eq!(app.take_commands().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_session_grant_shows_in_the_status_bar_and_permissions_revokes_it() {
    let mut app = app();
    let t0 = Instant::now();
    start_turn(&mut app, t0);
    ask(&mut app, "b1", t0);
    app.on_key(key(KeyCode::Char('2')), t0 + ms(1000));
    app.on_key(key(KeyCode::Enter), t0 + ms(1500));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::PermissionReply {
            id: "b1".into(),
            decision: Decision::AllowForSession
        }]
    );
    let screen = render_text(&mut app, 100, 20, t0 + ms(1000));
    assert!(screen.contains("allowed: bash"), "{screen}");
    app.on_agent(done(tooloop::protocol::Terminal::Completed), t0);
    let t = t0 + ms(3000);
    type_text(&mut app, "/permissions", t);
    app.on_key(key(KeyCode::Enter), t);
    assert!(last_notice(&app).contains("bash"), "{}", last_notice(&app));
    assert_eq!(
        app.take_commands(),
        vec![],
        "a command never goes to the model"
    );
    type_text(&mut app, "/permissions revoke bash", t);
    app.on_key(key(KeyCode::Enter), t);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::RevokeSessionGrant {
            tool: "bash".into()
        }]
    );
    assert!(last_notice(&app).contains("bash will ask again"));
    let screen = render_text(&mut app, 100, 20, t);
    assert!(!screen.contains("allowed: bash"), "{screen}");
}

#[tokio::test(start_paused = true)]
async fn deny_with_a_typed_reason_and_the_row_says_denied() {
    let mut app = app();
    let t0 = Instant::now();
    start_turn(&mut app, t0);
    ask(&mut app, "b1", t0);
    let t = t0 + ms(1000);
    // The last answer: "No, tell the model what to do differently".
    app.on_key(key(KeyCode::Down), t);
    app.on_key(key(KeyCode::Down), t + ms(10));
    app.on_key(key(KeyCode::Enter), t + ms(500));
    assert_eq!(app.take_commands(), vec![]);
    // The reason is typed in the modal: letters that would answer are text now.
    let mut k = t + ms(1000);
    for c in "use ynot".chars() {
        app.on_key(key(KeyCode::Char(c)), k);
        k += ms(100);
    }
    app.on_key(key(KeyCode::Backspace), k);
    app.on_key(key(KeyCode::Char('t')), k + ms(100));
    let screen = render_text(&mut app, 80, 24, k);
    assert!(screen.contains("what to do differently"), "{screen}");
    app.on_key(key(KeyCode::Enter), k + ms(200));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::PermissionReply {
            id: "b1".into(),
            decision: Decision::Deny {
                reason: Some("use ynot".into())
            }
        }]
    );
    assert!(app.input.is_empty());
    app.on_agent(
        AgentEvent::Permission {
            id: "b1".into(),
            name: "bash".into(),
            allowed: false,
            rule: None,
        },
        k,
    );
    app.on_agent(
        tool_end("b1", "bash", ToolOutcome::Error, 0, "The user declined"),
        k,
    );
    assert_eq!(row(&app, 0).state, ToolState::Denied);
    let screen = render_text(&mut app, 80, 24, k);
    assert!(screen.contains("denied"), "{screen}");
    assert!(!screen.contains(" error"), "{screen}");
}

#[tokio::test(start_paused = true)]
async fn a_long_preview_scrolls_and_says_how_much_is_unseen() {
    let mut app = app();
    let t0 = Instant::now();
    start_turn(&mut app, t0);
    let content: String = (1..=119).map(|i| format!("line {i}\n")).collect();
    let input = json!({"path": "big.txt", "content": content});
    app.on_agent(tool_use("w1", "write_file", input.clone()), t0);
    app.on_agent(permission_request("w1", "write_file", input), t0);
    let screen = render_text(&mut app, 80, 24, t0);
    assert!(screen.contains("more lines"), "{screen}");
    // ↑/↓ choose an answer here: the hint names only the keys that scroll (issue 41,
    // item 12).
    assert!(
        screen.contains("(PgUp/PgDn scroll)") && !screen.contains("↑/↓ PgUp"),
        "{screen}"
    );
    assert!(!screen.contains("line 119"), "{screen}");
    let t = t0 + ms(1000);
    for i in 0..12 {
        app.on_key(key(KeyCode::PageDown), t + ms(300 * i));
    }
    let screen = render_text(&mut app, 80, 24, t + ms(5000));
    assert!(screen.contains("line 119"), "{screen}");
    assert!(screen.contains("above"), "{screen}");
    assert!(screen.contains("❯ 1. Yes"), "{screen}");
    assert_eq!(app.take_commands(), vec![], "scrolling answers nothing");
}

#[tokio::test(start_paused = true)]
async fn esc_in_a_focused_pane_returns_focus_and_does_not_abort() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    render_text(&mut app, 80, 24, now);
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(app.panes.focus, Focus::Conversation);
    app.on_key(key(KeyCode::Esc), now);
    assert_eq!(app.panes.focus, Focus::Input);
    assert_eq!(app.take_commands(), vec![], "Esc in a pane only goes back");
    app.on_key(key(KeyCode::Esc), now);
    assert_eq!(app.take_commands(), vec![AgentCommand::Abort]);
}

/// A digit chooses, Enter confirms, however quickly one follows the other; but the same keys
/// typed in a burst of writing go to the input (Enter then queues what was typed).
#[tokio::test(start_paused = true)]
async fn a_digit_then_a_quick_enter_answers_but_typed_ones_do_not() {
    let mut app = app();
    let t0 = Instant::now();
    start_turn(&mut app, t0);
    ask(&mut app, "b1", t0);
    let t = t0 + ms(2000);
    app.on_key(key(KeyCode::Char('2')), t);
    app.on_key(key(KeyCode::Enter), t + ms(30));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::PermissionReply {
            id: "b1".into(),
            decision: Decision::AllowForSession
        }]
    );
    ask(&mut app, "b2", t + ms(100));
    let mut k = t + ms(2000);
    for c in "yes 2".chars() {
        app.on_key(key(KeyCode::Char(c)), k);
        k += ms(80);
    }
    app.on_key(key(KeyCode::Enter), k);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Steer {
            text: "yes 2".into()
        }],
        "typing never answers: the typed Enter steers the turn"
    );
    assert!(app.overlays.approvals.is_open());
    assert_eq!(app.steer.waiting(), 1);
}

/// Issue 41, item 0: a person used to y/n prompts types `n` then Enter. The `n` goes to the
/// input, and the Enter must not confirm the highlighted "1. Yes": `n` Enter denies (and the
/// `n` leaves the input), `y` Enter asks for a choice, ↓ then ↑ then Enter approves.
#[tokio::test(start_paused = true)]
async fn n_then_enter_denies_and_no_typed_letter_leads_to_approval() {
    let mut app = app();
    let t0 = Instant::now();
    start_turn(&mut app, t0);
    ask(&mut app, "b1", t0);
    app.on_key(key(KeyCode::Char('n')), t0 + ms(1000));
    app.on_key(key(KeyCode::Enter), t0 + ms(1100));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::PermissionReply {
            id: "b1".into(),
            decision: Decision::Deny { reason: None }
        }],
        "n then Enter (a quick one too) denies"
    );
    assert_eq!(app.input.text(), "", "the n was an answer, not input");
    assert!(app.outbox.queued.is_empty());
    // `y` then Enter: never an approval, whatever the pauses.
    ask(&mut app, "b2", t0 + ms(2000));
    app.on_key(key(KeyCode::Char('y')), t0 + ms(3000));
    app.on_key(key(KeyCode::Enter), t0 + ms(4000));
    app.on_key(key(KeyCode::Enter), t0 + ms(5000));
    assert_eq!(app.take_commands(), vec![], "y Enter approved");
    assert!(app.overlays.approvals.is_open());
    // Letters, then a deliberate ↓ ↑ (back to 1. Yes), then Enter: approved.
    app.on_key(key(KeyCode::Down), t0 + ms(6000));
    app.on_key(key(KeyCode::Up), t0 + ms(6500));
    app.on_key(key(KeyCode::Enter), t0 + ms(7000));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::PermissionReply {
            id: "b2".into(),
            decision: Decision::AllowOnce
        }]
    );
    // A new question forgets the letters typed for the last one: a plain Enter approves.
    ask(&mut app, "b3", t0 + ms(8000));
    app.on_key(key(KeyCode::Enter), t0 + ms(9000));
    assert_eq!(app.take_commands().len(), 1);
    // `no` typed, then Enter: denied too.
    ask(&mut app, "b4", t0 + ms(10000));
    for (i, c) in "no".chars().enumerate() {
        app.on_key(key(KeyCode::Char(c)), t0 + ms(11000 + 100 * i as u64));
    }
    app.on_key(key(KeyCode::Enter), t0 + ms(12000));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::PermissionReply {
            id: "b4".into(),
            decision: Decision::Deny { reason: None }
        }]
    );
}

/// Issue 41, item 13: `/permissions` says what the approval mode does; in yolo it said
/// "tools that change things ask first".
#[tokio::test(start_paused = true)]
async fn permissions_says_what_the_approval_mode_does() {
    let mut app = app();
    let t = Instant::now();
    type_text(&mut app, "/permissions", t);
    app.on_key(key(KeyCode::Enter), t);
    assert!(
        last_notice(&app).contains("ask first"),
        "{}",
        last_notice(&app)
    );
    app.on_agent(
        AgentEvent::ApprovalChanged {
            mode: tooloop::protocol::approval_mode::ApprovalMode::Yolo,
        },
        t,
    );
    type_text(&mut app, "/permissions", t);
    app.on_key(key(KeyCode::Enter), t);
    let text = last_notice(&app);
    assert!(
        text.contains("yolo") && !text.contains("ask first"),
        "{text}"
    );
}
