//! `/cost` and `/model` read one price table (issue 41): after `/model gpt-4o` the cost that
//! is unknown names the model without prices, not gpt-4o, which `/model` lists with prices;
//! a gateway's vendor-prefixed id (`openai/gpt-4o`) has gpt-4o's prices in both. The real
//! engine on the demo model, its events fed to the App.

use crate::support;

use std::time::Duration;

use crossterm::event::KeyCode;
use support::tui::demo_engine::{config, start, until};
use support::tui::*;
use tokio::time::Instant;
use tooloop::engine::Engine;
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::App;
use tooloop::tui::panes::cells::CellKind;

fn command(app: &mut App, text: &str) -> String {
    let now = Instant::now();
    type_text(app, text, now);
    app.on_key(key(KeyCode::Enter), now);
    match &app.panes.conversation.cells().last().expect("a cell").kind {
        CellKind::Notice(t) => t.clone(),
        _ => panic!("{text}: the last cell is not a notice"),
    }
}

/// Sends a prompt and shows the App everything the agent says until it is done.
async fn prompt(run: &mut Engine, app: &mut App, text: &str) {
    run.control.send(AgentCommand::Submit { text: text.into() });
    for e in until(&mut run.events, |e| matches!(e, AgentEvent::Done(_))).await {
        app.on_agent(e, Instant::now());
    }
}

fn row<'a>(table: &'a str, model: &str) -> &'a str {
    table
        .lines()
        .find(|l| {
            l.trim_start_matches(['*', ' '])
                .starts_with(&format!("{model} "))
        })
        .unwrap_or_else(|| panic!("no row for {model}: {table}"))
}

#[tokio::test]
async fn cost_names_the_model_without_prices_not_the_one_model_lists_prices_for() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = config(tmp.path(), &["--no-session"]);
    let mut run = start(&cfg, &tmp.path().join("sessions"));
    let mut a = app();
    prompt(&mut run, &mut a, "hello").await;
    run.control.send(AgentCommand::SetModel {
        model: "gpt-4o".into(),
    });
    for e in until(&mut run.events, |e| {
        matches!(e, AgentEvent::ModelChanged { .. })
    })
    .await
    {
        a.on_agent(e, Instant::now());
    }
    prompt(&mut run, &mut a, "hello").await;
    assert_eq!(a.info.model, "gpt-4o");
    let models = command(&mut a, "/model");
    assert!(row(&models, "gpt-4o").starts_with("* gpt-4o "), "{models}");
    assert!(row(&models, "gpt-4o").contains("2.5/10"), "{models}");
    let cost = command(&mut a, "/cost");
    assert!(
        cost.contains("unknown (no prices for tooloop-demo)"),
        "{cost}"
    );
    assert!(!cost.contains("no prices for gpt-4o"), "{cost}");
    assert!(
        cost.contains("gpt-4o: $0.0"),
        "the split prices gpt-4o: {cost}"
    );
    run.control
        .stop(Duration::from_secs(10))
        .await
        .expect("stops");
}

#[tokio::test]
async fn a_vendor_prefixed_model_has_the_same_prices_in_cost_and_model() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = config(tmp.path(), &["--no-session", "--model", "openai/gpt-4o"]);
    let mut run = start(&cfg, &tmp.path().join("sessions"));
    let mut a = app();
    a.info.model = "openai/gpt-4o".into();
    prompt(&mut run, &mut a, "hello").await;
    let cost = command(&mut a, "/cost");
    assert!(cost.contains(" this session"), "{cost}");
    assert!(!cost.contains("unknown"), "{cost}");
    let models = command(&mut a, "/model");
    assert!(row(&models, "gpt-4o").starts_with("* gpt-4o "), "{models}");
    assert!(
        !models.contains("openai/gpt-4o"),
        "no row of unknowns: {models}"
    );
    run.control
        .stop(Duration::from_secs(10))
        .await
        .expect("stops");
}
