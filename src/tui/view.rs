//! Lays the panes out for the terminal size and draws one frame. Below 80×24 panes collapse
//! (tools first, then the input); nothing here may panic on a tiny terminal.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use tokio::time::Instant;

use super::app::{App, Areas, Focus};
use super::status_bar::{self, StatusView};
use super::{help, strings};

/// Columns from which the tools / JSON pane sits beside the conversation.
const SIDE_BY_SIDE_MIN_WIDTH: u16 = 110;
/// Rows from which the tools pane fits under the conversation on a narrow terminal.
const STACKED_TOOLS_MIN_HEIGHT: u16 = 20;

pub fn draw(app: &mut App, f: &mut Frame, now: Instant) {
    let area = f.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    let status_h = 1;
    let input_h = if area.height >= 4 {
        app.input.height().min(area.height - status_h - 1)
    } else {
        0
    };
    let [main, input, status] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(input_h),
        Constraint::Length(status_h),
    ])
    .areas(area);

    let areas = split_main(app, main);
    app.areas = areas;
    let theme = app.theme.clone();
    if let Some(json) = areas.json {
        app.json.draw(f, json, app.focus == Focus::Json, &theme);
    }
    if let Some(tools) = areas.tools {
        app.tools
            .draw(f, tools, app.focus == Focus::Tools, now, &theme);
    }
    app.conversation.draw(f, areas.conversation, &theme);
    if input.height > 0 {
        let note = if !app.queued.is_empty() {
            Some(strings::queued(app.queued.len()))
        } else {
            focus_note(app.focus).map(str::to_string)
        };
        app.input
            .draw(f, input, app.focus == Focus::Input, note, &theme);
    }
    let view = status_view(app, now);
    status_bar::draw(f, status, &view, &theme);
    app.approvals.draw(f, main.union(input), &theme);
    if app.help_open {
        help::draw(f, area, app.help_scroll, &theme);
    }
}

fn split_main(app: &App, main: Rect) -> Areas {
    let mut areas = Areas {
        conversation: main,
        tools: None,
        json: None,
    };
    if main.height == 0 {
        return areas;
    }
    if main.width >= SIDE_BY_SIDE_MIN_WIDTH && main.height >= 8 {
        let side = main.width * 45 / 100;
        let [conv, right] =
            Layout::horizontal([Constraint::Min(1), Constraint::Length(side)]).areas(main);
        areas.conversation = conv;
        let right = Rect {
            x: right.x + 1,
            width: right.width.saturating_sub(1),
            ..right
        };
        if app.json_open {
            let tools_h = (right.height / 3).min(12);
            let [tools, json] =
                Layout::vertical([Constraint::Length(tools_h), Constraint::Min(1)]).areas(right);
            areas.tools = (tools_h >= 4).then_some(tools);
            areas.json = Some(if tools_h >= 4 { json } else { right });
        } else {
            areas.tools = Some(right);
        }
        return areas;
    }
    // Narrow: the JSON pane takes the conversation's place; the tools pane goes below.
    let tools_h = if main.height >= STACKED_TOOLS_MIN_HEIGHT {
        (main.height * 2 / 5).min(14)
    } else {
        0
    };
    let [top, tools] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(tools_h)]).areas(main);
    if tools_h > 0 {
        areas.tools = Some(tools);
    }
    if app.json_open {
        areas.json = Some(top);
        areas.conversation = Rect { height: 0, ..top };
    } else {
        areas.conversation = top;
    }
    areas
}

fn focus_note(focus: Focus) -> Option<&'static str> {
    match focus {
        Focus::Input => None,
        Focus::Conversation => {
            Some(" conversation: ↑↓ scroll · ←→ select · Enter expand · Esc back ")
        }
        Focus::Tools => Some(" tools: ↑↓ PgUp PgDn Home End scroll · Esc back "),
        Focus::Json => Some(" JSON: ↑↓ scroll · ←→ view · Ctrl+S save · Esc back "),
    }
}

fn status_view<'a>(app: &'a App, now: Instant) -> StatusView<'a> {
    let newline = if app.info.shift_enter {
        "Shift+Enter"
    } else {
        "Alt+Enter"
    };
    let hints = if app.turn.busy {
        vec![
            ("Ctrl+C", "abort"),
            ("Enter", "queue"),
            ("Ctrl+O", "JSON"),
            ("Tab", "focus"),
            ("F1", "help"),
        ]
    } else {
        vec![
            ("Enter", "send"),
            (newline, "newline"),
            ("Ctrl+O", "JSON"),
            ("Tab", "focus"),
            ("F1", "help"),
            ("Ctrl+C ×2", "quit"),
        ]
    };
    StatusView {
        provider: &app.info.provider,
        model: &app.info.model,
        state: app.state_label(now),
        busy: app.turn.busy,
        turn: app.turn.turn,
        usage: app.turn.usage,
        session: app.info.session.as_deref(),
        sandbox: &app.info.sandbox,
        quit_armed: app.quit_armed(now),
        note: app.note(now),
        hints,
    }
}
