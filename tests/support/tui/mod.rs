//! Shared helpers for the TUI state tests: an App, key events, a started turn.
#![allow(dead_code)]

pub mod demo_engine;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::time::Instant;
use tooloop::protocol::{AgentCommand, AgentEvent, Terminal, ToolOutcome, TurnSummary};
use tooloop::provider::Usage;
use tooloop::tui::app::{App, RunInfo};

pub fn app() -> App {
    App::new(RunInfo {
        provider: "demo".into(),
        model: "tooloop-demo".into(),
        save_dir: std::env::temp_dir().join("tooloop-tui-state-test"),
        ..Default::default()
    })
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

pub fn type_text(app: &mut App, text: &str, now: Instant) {
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)), now);
    }
}

pub fn done(reason: Terminal) -> AgentEvent {
    AgentEvent::Done(TurnSummary {
        cost_usd: None,
        context_tokens: 0,
        reason,
        turns: 1,
        usage: Usage::default(),
        text: String::new(),
        transitions: vec![],
        error: None,
    })
}

pub fn start_turn(app: &mut App, now: Instant) {
    type_text(app, "hello", now);
    app.on_key(key(KeyCode::Enter), now);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Submit {
            text: "hello".into()
        }]
    );
    app.on_agent(
        AgentEvent::PromptStart {
            text: "hello".into(),
        },
        now,
    );
    app.on_agent(AgentEvent::TurnStart { turn: 1 }, now);
}

/// Applies `events` in order, all at `now`.
/// A prompt sent and its first request under way: the busy App of a running turn.
pub fn prompt(app: &mut App, text: &str, now: Instant) {
    app.turn.busy = true;
    feed(
        app,
        now,
        vec![
            AgentEvent::PromptStart { text: text.into() },
            AgentEvent::TurnStart { turn: 1 },
            AgentEvent::RequestStart {
                turn: 1,
                attempt: 1,
                model: "tooloop-demo".into(),
                body: std::sync::Arc::new(
                    serde_json::json!({"model": "tooloop-demo", "max_tokens": 8192, "messages": []})
                        .into(),
                ),
            },
        ],
    );
}

pub fn feed(app: &mut App, now: Instant, events: Vec<AgentEvent>) {
    for e in events {
        app.on_agent(e, now);
    }
}

pub fn start(id: &str, name: &str) -> AgentEvent {
    AgentEvent::ToolStart {
        id: id.into(),
        name: name.into(),
    }
}

pub fn text(t: &str) -> AgentEvent {
    AgentEvent::TextDelta { text: t.into() }
}

/// The agent's announcement of a complete tool_use, with the summary and preview the
/// built-in tool itself gives (as the executor sends it).
pub fn tool_use(id: &str, name: &str, input: serde_json::Value) -> AgentEvent {
    let registry = tooloop::tools::ToolRegistry::builtin();
    let safe = registry
        .get(name)
        .is_none_or(|r| r.tool.is_concurrency_safe(&input));
    AgentEvent::ToolUse {
        id: id.into(),
        name: name.into(),
        summary: registry.summary(name, &input),
        preview: registry.preview(name, &input),
        input,
        safe,
    }
}

/// The question the executor asks before a tool that changes things.
pub fn permission_request(id: &str, name: &str, input: serde_json::Value) -> AgentEvent {
    let registry = tooloop::tools::ToolRegistry::builtin();
    AgentEvent::PermissionRequest {
        id: id.into(),
        tool: name.into(),
        summary: registry.summary(name, &input),
        preview: registry.preview(name, &input),
        input,
        why: Default::default(),
    }
}

pub fn tool_end(id: &str, name: &str, outcome: ToolOutcome, ms: u64, output: &str) -> AgentEvent {
    AgentEvent::ToolEnd {
        id: id.into(),
        name: name.into(),
        is_error: outcome != ToolOutcome::Ok,
        outcome,
        duration_ms: ms,
        output: output.into(),
    }
}

pub fn history_reset(messages: Vec<tooloop::message::Message>) -> AgentEvent {
    let summaries = tooloop::tools::ToolRegistry::builtin().summaries(&messages);
    AgentEvent::HistoryReset {
        messages: messages.into_iter().map(std::sync::Arc::new).collect(),
        summaries,
    }
}

/// The i-th row of the tools pane, from the shared store.
pub fn row(app: &App, i: usize) -> &tooloop::tui::tool_calls::ToolCall {
    let id = &app.panes.tools.ids()[i];
    app.panes
        .tool_calls
        .get(id)
        .expect("a listed call is in the store")
}

/// One frame drawn into a TestBackend, as plain text (rows joined by newlines).
pub fn render_text(app: &mut App, w: u16, h: u16, now: Instant) -> String {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
    terminal
        .draw(|f| tooloop::tui::view::draw(app, f, now))
        .expect("draw");
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        // A wide character covers the next cell too: that cell is not printed again.
        let mut skip = 0;
        for x in 0..w {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let symbol = buf[(x, y)].symbol();
            skip = unicode_width::UnicodeWidthStr::width(symbol).saturating_sub(1);
            out.push_str(symbol);
        }
        out.push('\n');
    }
    out
}

/// A saved session in `dir` as tooloop writes it: one prompt answered in `turns` turns, the
/// file last written at `mtime` seconds after the epoch (the picker sorts and shows by it).
pub fn write_session(
    dir: &std::path::Path,
    id: &str,
    workspace: &str,
    prompt: &str,
    turns: u32,
    mtime: u64,
) -> std::path::PathBuf {
    use serde_json::json;
    let lines = [
        json!({"type":"header","id":id,"created":"2026-12-01T06:30:12Z","workspace":workspace,
               "tooloop_version":"0.1.0","format":1}),
        json!({"type":"prompt_start","time":"2026-12-01T06:30:13Z","prompt":prompt,"model":"m"}),
        json!({"type":"message","index":0,"message":{"role":"user",
               "content":[{"type":"text","text":prompt}]}}),
        json!({"type":"message","index":1,"message":{"role":"assistant",
               "content":[{"type":"text","text":format!("answer to {prompt}")}]}}),
        json!({"type":"prompt_end","time":"2026-12-01T06:30:14Z","reason":"completed",
               "turns":turns,"usage":{"input_tokens":10,"output_tokens":5}}),
    ];
    std::fs::create_dir_all(dir).expect("sessions dir");
    let path = dir.join(format!("20261201T063012Z-{id}.jsonl"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).expect("write session");
    let file = std::fs::File::options()
        .append(true)
        .open(&path)
        .expect("open");
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime))
        .expect("mtime");
    path
}
