//! NO_COLOR end to end: with the theme installed for the process (as `tui::run` does), no
//! cell of a busy screen — markdown with a highlighted code block, tool lines, the JSON
//! pane, the approval modal — carries a colour. Its own test binary, because the theme is
//! installed once per process.

use std::sync::Arc;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use serde_json::json;
use tokio::time::Instant;
use tooloop::protocol::AgentEvent;
use tooloop::tui::app::{App, RunInfo};
use tooloop::tui::theme::{self, Theme};
use tooloop::tui::view;

#[path = "support/tui/mod.rs"]
mod tui_support;
use tui_support::{permission_request, tool_use};

#[tokio::test(start_paused = true)]
async fn no_cell_has_a_colour() {
    theme::install(Theme::named("light", true).expect("known"));
    let mut app = App::new(RunInfo::default());
    assert!(!app.theme.colors, "App::new takes the installed theme");
    let now = Instant::now();
    app.turn.busy = true;
    for e in [
        AgentEvent::PromptStart { text: "hi".into() },
        AgentEvent::RequestStart {
            turn: 1,
            attempt: 1,
            model: "m".into(),
            body: Arc::new(json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).into()),
        },
        AgentEvent::TextDelta {
            text: "# Title\n\nSome `code` and a [link](http://x).\n\n```rust\nfn main() { let x = \"s\"; }\n```\n\n".into(),
        },
        tool_use("a", "read_file", json!({"path": "Cargo.toml"})),
        tool_use("b", "edit_file", json!({"path": "a.rs", "old_string": "a", "new_string": "b"})),
        permission_request("b", "edit_file", json!({"path": "a.rs", "old_string": "a", "new_string": "b"})),
    ] {
        app.on_agent(e, now);
    }
    app.panes.json_open = true;
    for (w, h) in [(140, 40), (80, 24)] {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        t.draw(|f| view::draw(&mut app, f, now)).expect("draw");
        for c in t.backend().buffer().content() {
            assert_eq!((c.fg, c.bg), (Color::Reset, Color::Reset), "{c:?}");
        }
    }
}
