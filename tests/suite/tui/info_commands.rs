//! `/status`, `/context`, `/cost`, `/init`, `/quit` and `/hooks`: state tests on the App, drawn at 80×24 and
//! 200×50.

use crate::support;

use crossterm::event::KeyCode;
use support::tui::*;
use tokio::time::Instant;
use tooloop::protocol::compaction::ContextStatus;
use tooloop::protocol::{AgentEvent, Terminal, TurnSummary};
use tooloop::provider::Usage;
use tooloop::tui::app::App;
use tooloop::tui::panes::cells::CellKind;

fn command(app: &mut App, text: &str) {
    let now = Instant::now();
    type_text(app, text, now);
    app.on_key(key(KeyCode::Enter), now);
    assert!(app.take_commands().is_empty(), "{text} is not sent");
}

fn last_cell(app: &App) -> String {
    match &app.panes.conversation.cells().last().expect("a cell").kind {
        CellKind::Notice(t) | CellKind::Error(t) => t.clone(),
        _ => panic!("the last cell is not a notice"),
    }
}

fn used(app: &mut App, input: u64, output: u64, cost: f64) {
    let now = Instant::now();
    app.on_agent(
        AgentEvent::Context(ContextStatus {
            context_tokens: 12_345,
            window: 200_000,
            cost_usd: Some(cost),
            cache_read_share: None,
            tools: Default::default(),
        }),
        now,
    );
    app.on_agent(
        AgentEvent::Done(TurnSummary {
            reason: Terminal::Completed,
            turns: 1,
            usage: Usage {
                input_tokens: input,
                output_tokens: output,
                cache_read_tokens: 1000,
                ..Default::default()
            },
            text: String::new(),
            transitions: vec![],
            cost_usd: Some(cost),
            context_tokens: 12_345,
            error: None,
        }),
        now,
    );
}

#[tokio::test(start_paused = true)]
async fn status_names_everything_a_user_asks_about() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut a = app();
    a.info.provider = "anthropic".into();
    a.info.model = "claude-sonnet-4-5".into();
    a.info.base_url = "http://127.0.0.1:8080/代理".into();
    a.info.custom_base_url = true;
    a.info.workspace = dir.path().join("工作区");
    a.info.sandbox = "workspace-write".into();
    a.info.approval = "ask".into();
    a.info.session = Some("1a2b3c4d".into());
    command(&mut a, "/status");
    let text = last_cell(&a);
    assert!(text.contains("nothing sent yet"), "{text}");
    used(&mut a, 5000, 700, 0.0123);
    command(&mut a, "/status");
    let text = last_cell(&a);
    for want in [
        "anthropic/claude-sonnet-4-5",
        "http://127.0.0.1:8080/代理",
        "工作区",
        "mode       ask",
        "workspace-write",
        "1a2b3c4d",
        "12,345 of 200,000 tokens (6%)",
        "$0.0123",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    for (w, h) in [(80, 24), (200, 50)] {
        let s = render_text(&mut a, w, h, Instant::now());
        assert!(s.contains("12,345 of 200,000"), "{w}x{h}\n{s}");
        assert!(s.contains("$0.0123"), "{w}x{h}\n{s}");
    }
    // The provider's own URL is marked default; the offline demo has none.
    a.info.custom_base_url = false;
    a.info.base_url = "https://api.anthropic.com".into();
    command(&mut a, "/status");
    assert!(last_cell(&a).contains("https://api.anthropic.com (default)"));
    a.info.base_url = String::new();
    a.info.session = None;
    command(&mut a, "/status");
    let text = last_cell(&a);
    assert!(text.contains("none (offline)"), "{text}");
    assert!(text.contains("none (--no-session)"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn cost_adds_up_the_prompts() {
    let mut a = app();
    used(&mut a, 5000, 700, 0.01);
    used(&mut a, 7000, 300, 0.025);
    command(&mut a, "/cost");
    let text = last_cell(&a);
    assert!(text.contains("$0.0250 this session"), "{text}");
    assert!(text.contains("(2 prompts)"), "{text}");
    assert!(text.contains("14,000 in"), "{text}");
    assert!(text.contains("2,000 read from the cache"), "{text}");
    assert!(text.contains("1,000 out"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn init_writes_agents_md_once() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").expect("write");
    let mut a = app();
    a.info.workspace = dir.path().to_path_buf();
    command(&mut a, "/init");
    assert!(last_cell(&a).starts_with("wrote "), "{}", last_cell(&a));
    let path = dir.path().join("AGENTS.md");
    let text = std::fs::read_to_string(&path).expect("AGENTS.md");
    assert!(text.contains("cargo test"), "{text}");
    std::fs::write(&path, "我的规则").expect("write");
    command(&mut a, "/init");
    assert!(
        last_cell(&a).contains("never overwrites"),
        "{}",
        last_cell(&a)
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "我的规则");
}

#[tokio::test(start_paused = true)]
async fn quit_is_exit() {
    let mut a = app();
    command(&mut a, "/quit");
    assert!(a.status.should_quit);
    // The help overlay lists the new commands (it is generated from the command table).
    let rows = tooloop::tui::update::slash::help_rows();
    for c in ["status", "cost", "init", "quit"] {
        assert!(rows.iter().any(|(name, _, _)| *name == c), "{c}");
    }
}

#[tokio::test(start_paused = true)]
async fn context_and_status_show_the_tool_definitions_loaded_and_deferred() {
    let mut a = app();
    command(&mut a, "/context");
    assert!(
        last_cell(&a).contains("nothing sent yet"),
        "{}",
        last_cell(&a)
    );
    a.on_agent(
        AgentEvent::Context(ContextStatus {
            context_tokens: 9_000,
            window: 200_000,
            cost_usd: None,
            cache_read_share: None,
            tools: tooloop::protocol::compaction::ToolTokens {
                loaded: 3_120,
                loaded_count: 14,
                deferred: 27_935,
                deferred_count: 155,
            },
        }),
        Instant::now(),
    );
    command(&mut a, "/context");
    let text = last_cell(&a);
    for want in [
        "9,000 of 200,000 tokens",
        "3,120 tokens of definitions in every request (14 tools)",
        "27,935 deferred (155 tools)",
        "deferral saves 27,935 tokens on every request",
    ] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
    command(&mut a, "/status");
    let text = last_cell(&a);
    assert!(text.contains("tools      3,120 tokens"), "{text}");
    // The meter in the status bar, wide enough for its optional items.
    let screen = render_text(&mut a, 200, 50, Instant::now());
    assert!(screen.contains("tools 3.1k +27k deferred"), "{screen}");
}

/// `/hooks` asks the agent (which holds the hooks and watches the settings files); a bad
/// argument is the usage, sent nowhere; the rules an accepted change brings are what
/// `/permissions` lists from then on.
#[tokio::test(start_paused = true)]
async fn slash_hooks_asks_the_agent_and_accepted_rules_reach_permissions() {
    use tooloop::protocol::{AgentCommand, HooksAction};
    let mut app = app();
    // A live session (a replay has no agent to ask).
    app.info.approval = "ask".into();
    let now = Instant::now();
    for (typed, action) in [
        ("/hooks", HooksAction::Show),
        ("/hooks accept", HooksAction::Accept),
        ("/hooks keep", HooksAction::Keep),
    ] {
        type_text(&mut app, typed, now);
        app.on_key(key(KeyCode::Enter), now);
        assert_eq!(app.take_commands(), vec![AgentCommand::Hooks { action }]);
    }
    command(&mut app, "/hooks everything");
    let last = app.panes.conversation.cells().last().unwrap();
    assert!(
        matches!(&last.kind, CellKind::Error(t) if t.starts_with("usage: /hooks")),
        "the usage, as an error"
    );
    app.on_agent(
        AgentEvent::RulesChanged {
            rules: vec![tooloop::protocol::approval::RuleLine {
                kind: "allow".into(),
                rule: "bash(git status)".into(),
                source: ".claude/settings.json".into(),
            }],
            unused: vec![],
        },
        now,
    );
    command(&mut app, "/permissions");
    let last = app.panes.conversation.cells().last().unwrap();
    assert!(
        matches!(&last.kind, CellKind::Notice(t) if t.contains(".claude/settings.json")
            && t.contains("bash(git status)")),
        "the accepted rule is listed"
    );
}
