//! `/model` in the TUI without a terminal: the list, a switch (sent to the agent, shown in
//! the status bar once the agent confirms), a switch typed during a turn, and prompts that
//! only start with "/model".

use crate::support;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal as End};
use tooloop::tui::panes::cells::CellKind;
use tooloop::tui::view;

fn enter(app: &mut tooloop::tui::app::App, text: &str, now: Instant) {
    type_text(app, text, now);
    app.on_key(key(KeyCode::Enter), now);
}

fn screen(app: &mut tooloop::tui::app::App, w: u16, h: u16, now: Instant) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| view::draw(app, f, now)).expect("draw");
    t.backend().to_string()
}

fn notices(app: &tooloop::tui::app::App) -> Vec<String> {
    app.panes
        .conversation
        .cells()
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::Notice(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn model_alone_lists_the_table_and_sends_nothing() {
    let mut app = app();
    app.info.model = "claude-sonnet-4-5".into();
    let now = Instant::now();
    enter(&mut app, "/model", now);
    assert_eq!(app.take_commands(), vec![]);
    let list = notices(&app).pop().expect("a notice");
    assert!(list.contains("/model NAME switches"), "{list}");
    assert!(list.contains("* claude-sonnet-4-5"), "{list}");
    assert!(list.contains("gpt-4.1"), "{list}");
    // The table is drawn one row per line.
    let shown = screen(&mut app, 120, 40, now);
    assert!(shown.contains("* claude-sonnet-4-5"), "{shown}");
    assert!(shown.contains("claude-haiku-4-5"), "{shown}");
}

#[tokio::test(start_paused = true)]
async fn model_name_switches_and_the_status_bar_follows_the_agent() {
    let mut app = app();
    let now = Instant::now();
    enter(&mut app, "/model claude-haiku-4-5", now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::SetModel {
            model: "claude-haiku-4-5".into()
        }]
    );
    assert_eq!(
        app.info.model, "tooloop-demo",
        "not before the agent says so"
    );
    app.on_agent(
        AgentEvent::ModelChanged {
            model: "claude-haiku-4-5".into(),
        },
        now,
    );
    assert_eq!(app.info.model, "claude-haiku-4-5");
    assert!(
        notices(&app)
            .iter()
            .any(|n| n.contains("model: claude-haiku-4-5")),
        "{:?}",
        notices(&app)
    );
    let shown = screen(&mut app, 100, 20, now);
    assert!(shown.contains("demo/claude-haiku-4-5"), "{shown}");
}

#[tokio::test(start_paused = true)]
async fn a_switch_during_a_turn_says_it_waits() {
    let mut app = app();
    let now = Instant::now();
    start_turn(&mut app, now);
    enter(&mut app, "/model gpt-4.1", now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::SetModel {
            model: "gpt-4.1".into()
        }]
    );
    assert!(
        notices(&app)
            .iter()
            .any(|n| n.contains("from the next prompt")),
        "{:?}",
        notices(&app)
    );
    assert!(
        app.outbox.queued.is_empty(),
        "a command is not queued as a prompt"
    );
    app.on_agent(done(End::Completed), now);
}

/// Slash-table rule: a `/word` line never goes to the model. "/models" is an unknown
/// command, "/model" with more than one word is a usage error; neither is sent.
#[tokio::test(start_paused = true)]
async fn lines_that_only_look_like_model_are_not_sent() {
    let mut app = app();
    let now = Instant::now();
    enter(&mut app, "/models", now);
    assert_eq!(app.take_commands(), vec![]);
    enter(&mut app, "/model which one is best?", now);
    assert_eq!(app.take_commands(), vec![]);
    let screen = screen(&mut app, 100, 30, now);
    assert!(
        screen.contains("unknown command /models") && screen.contains("usage: /model"),
        "{screen}"
    );
}
