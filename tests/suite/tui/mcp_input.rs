//! MCP prompts in the `/` menu and resources in `@` completion (issue 39), without a
//! terminal: the servers' `mcp` reports in, keys in, what is drawn and sent out.

use crate::support;

use crossterm::event::KeyCode;
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::status::{PromptArg, PromptInfo, ResourceInfo, ServerState, ServerStatus};
use tooloop::protocol::{AgentCommand, AgentEvent};
use tooloop::tui::app::App;

fn prompt_info(name: &str, description: &str, required: &[&str]) -> PromptInfo {
    PromptInfo {
        name: name.into(),
        description: description.into(),
        arguments: required
            .iter()
            .map(|a| PromptArg {
                name: a.to_string(),
                required: true,
            })
            .collect(),
    }
}

fn resource(uri: &str, name: &str, template: bool) -> ResourceInfo {
    ResourceInfo {
        uri: uri.into(),
        name: name.into(),
        template,
    }
}

fn fx(prompts: Vec<PromptInfo>) -> AgentEvent {
    AgentEvent::Mcp(ServerStatus {
        server: "fx".into(),
        state: ServerState::Ready,
        tools: vec!["mcp__fx__slow_read".into()],
        error: None,
        prompts,
        resources: vec![
            resource("fixture://notes/readme", "readme", false),
            resource("fixture://image/dot", "dot", false),
            resource("fixture://notes/{topic}", "notes on a topic", true),
        ],
    })
}

fn labels(app: &App) -> Vec<String> {
    app.compose
        .menu
        .as_ref()
        .map(|m| m.items.iter().map(|i| i.label.clone()).collect())
        .unwrap_or_default()
}

fn two_prompts() -> Vec<PromptInfo> {
    vec![
        prompt_info("greet", "Greets someone by name", &["name"]),
        prompt_info("review", "Reviews the notes", &[]),
    ]
}

#[tokio::test(start_paused = true)]
async fn a_servers_prompts_are_listed_in_the_menu_with_their_descriptions() {
    let mut app = app();
    let now = Instant::now();
    feed(&mut app, now, vec![fx(two_prompts())]);
    type_text(&mut app, "/mcp__", now);
    assert_eq!(
        labels(&app),
        ["/mcp__fx__greet <name>", "/mcp__fx__review"],
        "prompts after the built-in commands"
    );
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("/mcp__fx__greet <name>"), "{screen}");
    assert!(
        screen.contains("Greets someone by name (MCP fx)"),
        "{screen}"
    );
    assert!(screen.contains("/mcp__fx__review"), "{screen}");
}

#[tokio::test(start_paused = true)]
async fn picking_a_prompt_sends_it_as_typed_and_one_with_arguments_waits_for_them() {
    let mut app = app();
    let now = Instant::now();
    feed(&mut app, now, vec![fx(two_prompts())]);
    type_text(&mut app, "/mcp__fx__g", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(app.input.text(), "/mcp__fx__greet ", "waits for <name>");
    assert!(app.take_commands().is_empty());
    type_text(&mut app, "Ada", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: "/mcp__fx__greet Ada".into()
        }]
    );
    // Not an "unknown command" either way.
    assert!(
        !render_text(&mut app, 80, 24, now).contains("unknown command"),
        "the prompt went to the agent"
    );
}

#[tokio::test(start_paused = true)]
async fn a_list_changed_report_refreshes_the_open_menu() {
    let mut app = app();
    let now = Instant::now();
    feed(&mut app, now, vec![fx(two_prompts())]);
    type_text(&mut app, "/mcp__fx", now);
    assert_eq!(labels(&app).len(), 2);
    let mut more = two_prompts();
    more.push(prompt_info("later", "Appeared later", &[]));
    feed(&mut app, now, vec![fx(more)]);
    assert_eq!(
        labels(&app),
        [
            "/mcp__fx__greet <name>",
            "/mcp__fx__review",
            "/mcp__fx__later"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn tab_after_at_server_colon_lists_its_resources() {
    let mut app = app();
    let now = Instant::now();
    feed(&mut app, now, vec![fx(two_prompts())]);
    type_text(&mut app, "explain @fx:", now);
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(
        labels(&app),
        [
            "fx:fixture://notes/readme",
            "fx:fixture://image/dot",
            "fx:fixture://notes/{topic}"
        ]
    );
    assert_eq!(
        app.input.text(),
        "explain @fx:fixture://",
        "the shared prefix"
    );
    let screen = render_text(&mut app, 80, 24, now);
    assert!(screen.contains("template: notes on a topic"), "{screen}");
    app.on_key(key(KeyCode::Esc), now);
    type_text(&mut app, "notes/r", now);
    app.on_key(key(KeyCode::Tab), now);
    assert_eq!(app.input.text(), "explain @fx:fixture://notes/readme ");
    // A server with nothing that matches says so; a word without a server is a path.
    type_text(&mut app, "@fx:nothing", now);
    app.on_key(key(KeyCode::Tab), now);
    assert!(
        app.note(now)
            .unwrap_or("")
            .contains("MCP server fx lists no resource"),
        "{:?}",
        app.note(now)
    );
}

/// A resumed conversation shows an MCP prompt as one line and its resource as the
/// "attached" line, not their text.
#[tokio::test(start_paused = true)]
async fn a_resumed_mcp_prompt_and_resource_are_one_line_each() {
    use tooloop::message::markers::{mention, user_skill};
    use tooloop::message::{ContentBlock, Message};
    use tooloop::tui::panes::cells::CellKind;
    let mut app = app();
    let now = Instant::now();
    let message = Message::user(vec![
        ContentBlock::text("/mcp__fx__review"),
        user_skill("mcp__fx__review", "Review these notes."),
        ContentBlock::text(mention::resource("fx:fixture://notes/readme", 2, "a\nb")),
    ]);
    feed(&mut app, now, vec![history_reset(vec![message])]);
    let shown: Vec<String> = app
        .panes
        .conversation
        .cells()
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::User(t) | CellKind::Notice(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        [
            "/mcp__fx__review",
            "MCP prompt /mcp__fx__review",
            "attached fx:fixture://notes/readme (2 lines)"
        ]
    );
}
