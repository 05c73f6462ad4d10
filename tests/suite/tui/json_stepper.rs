//! The JSON pane's request stepper, drawn (issues 25 and 29): without a recording an older
//! request says it was not recorded instead of showing another request's body; subagents'
//! requests are listed among the main agent's in the order they were sent, labelled with
//! the agent, with their own bodies and raw events.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use tokio::time::Instant;
use tooloop::protocol::AgentEvent;
use tooloop::protocol::subagent::AgentInfo;
use tooloop::provider::RequestBody;
use tooloop::tui::app::{App, Focus};
use tooloop::tui::panes::json::JsonView;

use crate::support;
use support::tui::*;

fn body(marker: &str, messages: usize) -> Arc<RequestBody> {
    let mut m: Vec<_> = (1..messages)
        .map(|i| json!({"role": if i % 2 == 1 { "user" } else { "assistant" }, "content": format!("earlier {i}")}))
        .collect();
    m.push(json!({"role": "user", "content": marker}));
    Arc::new(RequestBody::from(
        json!({"model": "claude-mock", "messages": m}),
    ))
}

fn request(marker: &str, turn: u32, messages: usize) -> AgentEvent {
    AgentEvent::RequestStart {
        turn,
        attempt: 1,
        model: "claude-mock".into(),
        body: body(marker, messages),
    }
}

fn sse(data: &str) -> AgentEvent {
    AgentEvent::RawSse {
        event: "content_block_delta".into(),
        data: data.into(),
    }
}

fn child(agent_id: &str, event: AgentEvent) -> AgentEvent {
    AgentEvent::Subagent {
        agent_id: agent_id.into(),
        parent_tool_use_id: format!("toolu_task_{agent_id}").into(),
        event: Box::new(event),
    }
}

fn agent_start(agent_id: &str, agent: &str) -> AgentEvent {
    AgentEvent::AgentStart(AgentInfo {
        agent_id: agent_id.into(),
        parent_tool_use_id: format!("toolu_task_{agent_id}"),
        parent_agent_id: None,
        agent: agent.into(),
        description: "look around".into(),
        model: "claude-mock".into(),
    })
}

/// The whole frame at 120×40 with the JSON pane focused on `view`.
fn draw(app: &mut App, view: JsonView, now: Instant) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    app.panes.json_open = true;
    app.panes.focus = Focus::Json;
    app.panes.json.view = view;
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    terminal
        .draw(|f| tooloop::tui::view::draw(app, f, now))
        .expect("draw");
    let buf = terminal.backend().buffer().clone();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                + "\n"
        })
        .collect()
}

fn step(app: &mut App, back: bool, now: Instant) {
    let c = if back { '[' } else { ']' };
    app.panes.json_open = true;
    app.panes.focus = Focus::Json;
    app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE), now);
}

#[tokio::test(start_paused = true)]
async fn without_a_recording_an_older_request_says_so_and_shows_no_other_body() {
    let now = Instant::now();
    let mut app = app();
    start_turn(&mut app, now);
    for i in 1..=6 {
        feed(
            &mut app,
            now,
            vec![
                request(&format!("BODY-OF-REQUEST-{i}"), i, 1),
                sse(&format!("EVENT-OF-{i}")),
                AgentEvent::StreamEnd {
                    turn: 1,
                    stop_reason: Some("tool_use".into()),
                    usage: None,
                },
            ],
        );
    }
    let screen = draw(&mut app, JsonView::Request, now);
    assert!(screen.contains("request 6 of 6"), "{screen}");
    assert!(screen.contains("BODY-OF-REQUEST-6"), "{screen}");

    step(&mut app, true, now);
    assert_eq!(app.panes.json.requests.current(), Some(4));
    for view in [JsonView::Request, JsonView::Sse] {
        let screen = draw(&mut app, view, now);
        assert!(screen.contains("request 5 of 6"), "{screen}");
        assert!(
            screen.contains("// not recorded: run tooloop with --record"),
            "says why it cannot show it:\n{screen}"
        );
        assert!(
            !screen.contains("BODY-OF-REQUEST-6") && !screen.contains("EVENT-OF-6"),
            "request 6's body or events shown as request 5's:\n{screen}"
        );
    }
    // Back to the latest: the live body again.
    step(&mut app, false, now);
    let screen = draw(&mut app, JsonView::Request, now);
    assert!(screen.contains("BODY-OF-REQUEST-6"), "{screen}");
}

#[tokio::test(start_paused = true)]
async fn subagents_requests_are_stepped_through_labelled_with_their_agent() {
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut app = app();
    start_turn(&mut app, t0);
    feed(
        &mut app,
        at(1),
        vec![
            request("PARENT-1", 1, 1),
            sse("PARENT-EVENT-1"),
            AgentEvent::StreamEnd {
                turn: 1,
                stop_reason: Some("tool_use".into()),
                usage: None,
            },
            agent_start("a1", "explore"),
            agent_start("a2", "general"),
            child("a1", request("EXPLORE-1", 1, 1)),
            child("a2", request("GENERAL-1", 1, 1)),
            child("a1", sse("EXPLORE-EVENT-1")),
            child("a2", sse("GENERAL-EVENT-1")),
            child(
                "a1",
                AgentEvent::StreamEnd {
                    turn: 1,
                    stop_reason: Some("tool_use".into()),
                    usage: None,
                },
            ),
            child("a1", request("EXPLORE-2", 2, 3)),
            child("a1", sse("EXPLORE-EVENT-2")),
        ],
    );
    // Children's requests do not take the live view: it follows the main agent's.
    let screen = draw(&mut app, JsonView::Request, at(2));
    assert!(screen.contains("request 1 of 4"), "{screen}");
    assert!(screen.contains("PARENT-1"), "{screen}");

    step(&mut app, false, at(3));
    let screen = draw(&mut app, JsonView::Request, at(3));
    assert!(
        screen.contains("request 2 of 4 · explore #1 request 1 · turn 1"),
        "{screen}"
    );
    assert!(screen.contains("EXPLORE-1") && !screen.contains("PARENT-1"));
    let screen = draw(&mut app, JsonView::Sse, at(3));
    assert!(screen.contains("EXPLORE-EVENT-1"), "{screen}");
    assert!(!screen.contains("GENERAL-EVENT-1") && !screen.contains("PARENT-EVENT-1"));

    step(&mut app, false, at(4));
    let screen = draw(&mut app, JsonView::Request, at(4));
    assert!(screen.contains("general #2 request 1"), "{screen}");
    assert!(screen.contains("GENERAL-1"), "{screen}");

    step(&mut app, false, at(5));
    let screen = draw(&mut app, JsonView::Sse, at(5));
    assert!(screen.contains("explore #1 request 2 · turn 2"), "{screen}");
    assert!(screen.contains("EXPLORE-EVENT-2"), "{screen}");
    // `d`: what this request added to the same agent's previous one (two messages).
    app.panes.json.view = JsonView::Request;
    app.on_key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::NONE), at(5));
    let screen = draw(&mut app, JsonView::Request, at(5));
    assert!(
        screen.contains("messages[1..3]: new since the request before (1"),
        "{screen}"
    );
    assert!(screen.contains("EXPLORE-2"), "{screen}");
    assert!(
        !screen.contains("\"earlier 1\""),
        "the message both requests share is not repeated:\n{screen}"
    );
    app.on_key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::NONE), at(5));

    // The main agent's next request is live again and the list goes on in send order.
    feed(&mut app, at(6), vec![request("PARENT-2", 2, 3)]);
    step(&mut app, false, at(6));
    let screen = draw(&mut app, JsonView::Request, at(6));
    assert!(screen.contains("request 5 of 5 · turn 2"), "{screen}");
    assert!(screen.contains("PARENT-2"), "{screen}");
}

#[tokio::test(start_paused = true)]
async fn only_the_last_subagent_requests_are_kept_and_an_older_one_says_so() {
    use tooloop::tui::panes::json::stepper::MAX_CHILD_BODIES;
    let now = Instant::now();
    let mut app = app();
    start_turn(&mut app, now);
    feed(
        &mut app,
        now,
        vec![request("PARENT-1", 1, 1), agent_start("a1", "explore")],
    );
    for i in 1..=MAX_CHILD_BODIES + 2 {
        app.on_agent(
            child("a1", request(&format!("CHILD-{i}-"), i as u32, 1)),
            now,
        );
    }
    // The first child request is the second of the list.
    step(&mut app, false, now);
    let screen = draw(&mut app, JsonView::Request, now);
    assert!(screen.contains("explore #1 request 1"), "{screen}");
    assert!(screen.contains("not kept"), "{screen}");
    assert!(
        !screen.contains("CHILD-"),
        "no other request's body:\n{screen}"
    );
    for _ in 0..MAX_CHILD_BODIES + 1 {
        step(&mut app, false, now);
    }
    let screen = draw(&mut app, JsonView::Request, now);
    let last = MAX_CHILD_BODIES + 2;
    assert!(
        screen.contains(&format!("explore #1 request {last}")),
        "{screen}"
    );
    assert!(screen.contains(&format!("CHILD-{last}-")), "{screen}");
}

/// Issue 41, item 18: the SSE view of the latest request has the "request N of M" header
/// the request view and older requests' SSE views have.
#[tokio::test(start_paused = true)]
async fn the_latest_requests_sse_view_has_the_request_header() {
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut app = app();
    start_turn(&mut app, t0);
    feed(
        &mut app,
        at(1),
        vec![
            request("FIRST", 1, 1),
            sse("FIRST-EVENT"),
            AgentEvent::StreamEnd {
                turn: 1,
                stop_reason: Some("tool_use".into()),
                usage: None,
            },
            request("SECOND", 2, 3),
            sse("SECOND-EVENT"),
        ],
    );
    let screen = draw(&mut app, JsonView::Sse, at(2));
    assert!(screen.contains("SECOND-EVENT"), "{screen}");
    assert!(screen.contains("request 2 of 2"), "{screen}");
}
