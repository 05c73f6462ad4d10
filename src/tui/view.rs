//! Lays the panes out for the terminal size and draws one frame, in two steps: `layout`
//! (the only step that writes: pane areas, wrap caches, scroll windows) and `render`, which
//! reads the App and draws. Below 80×24 panes collapse (tools first, then the input);
//! nothing here may panic on a tiny terminal.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Block;
use tokio::time::Instant;

use super::app::{App, Areas, Focus};
use super::keys::{self, APPROVAL_HINTS, BUSY_HINTS, Hint, IDLE_HINTS};
use super::overlays::help;
use super::panes::status_bar::{self, StatusView};
use super::panes::{Pane, PaneContext};
use super::strings;
use super::update::slash;

/// Columns from which the tools / JSON pane sits beside the conversation.
const SIDE_BY_SIDE_MIN_WIDTH: u16 = 110;
/// Rows from which the tools pane fits under the conversation on a narrow terminal.
const STACKED_TOOLS_MIN_HEIGHT: u16 = 20;

/// Where the fixed parts of the screen go this frame.
struct Frame3 {
    main: Rect,
    /// The todo list, right above the input (zero rows while nothing is open).
    todos: Rect,
    input: Rect,
    status: Rect,
}

pub fn draw(app: &mut App, f: &mut Frame, now: Instant) {
    let area = f.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    if let Some(s) = &mut app.overlays.sessions {
        s.poll();
    }
    let frame = layout(app, area, now);
    render(app, f, &frame, now);
}

fn layout(app: &mut App, area: Rect, now: Instant) -> Frame3 {
    let status_h = user_status_lines(app, now)
        .map_or(1, |(lines, _)| lines.len() as u16)
        // The status area grows for a multi-line status line, never past a third of
        // the screen (the conversation and the input come first).
        .clamp(1, (area.height / 3).max(1));
    let input_h = if area.height >= 4 {
        app.input.height(area.width).min(area.height - status_h - 1)
    } else {
        0
    };
    let todos_h = app.steering.todo_height(area);
    let [main, todos, input, status] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(todos_h),
        Constraint::Length(input_h),
        Constraint::Length(status_h),
    ])
    .areas(area);
    app.panes.areas = split_main(app, main);
    app.panes.areas.screen = area;
    if app.overlays.help_open {
        let commands = slash::help_rows();
        app.overlays.help_scroll = app
            .overlays
            .help_scroll
            .min(help::max_scroll(area, &commands));
    }
    let areas = app.panes.areas.clone();
    let ctx = |focused: bool| PaneContext {
        theme: &app.theme,
        now,
        focused,
        tool_calls: &app.panes.tool_calls,
    };
    if let Some(json) = areas.json {
        app.panes.json.layout(json, &ctx(false));
    }
    if let Some(tools) = areas.tools {
        app.panes.tools.layout(tools, &ctx(false));
    }
    app.panes
        .conversation
        .layout(areas.conversation, &ctx(false));
    if input.height > 0 {
        app.sync_menu();
        let note = if app.steer.waiting() > 0 {
            Some(crate::tui::steer::note(app.steer.waiting()))
        } else if !app.outbox.queued.is_empty() {
            Some(strings::queued(app.outbox.queued.len()))
        } else {
            focus_note(app)
        };
        app.input
            .layout(app.panes.focus == Focus::Input, note, &app.theme);
    }
    Frame3 {
        main,
        todos,
        input,
        status,
    }
}

fn render(app: &App, f: &mut Frame, frame: &Frame3, now: Instant) {
    // The light theme brings its own background; the dark one keeps the terminal's.
    if app.theme.base != ratatui::style::Style::default() {
        f.render_widget(Block::default().style(app.theme.base), f.area());
    }
    let areas = &app.panes.areas;
    let ctx = |focused: bool| PaneContext {
        theme: &app.theme,
        now,
        focused,
        tool_calls: &app.panes.tool_calls,
    };
    if let Some(json) = areas.json {
        app.panes
            .json
            .draw(f, json, &ctx(app.panes.focus == Focus::Json));
    }
    if let Some(tools) = areas.tools {
        app.panes
            .tools
            .draw(f, tools, &ctx(app.panes.focus == Focus::Tools));
    }
    app.panes
        .conversation
        .draw(f, areas.conversation, &ctx(false));
    if frame.input.height > 0 {
        app.input.draw(f, frame.input);
    }
    app.steering.draw_todos(f, frame.todos, &app.theme);
    // The `/` or `@` menu sits on the rows above the input, over whatever is there.
    if let Some(menu) = &app.compose.menu
        && app.panes.focus == Focus::Input
        && frame.input.height > 0
    {
        menu.draw(f, frame.input, &app.theme);
    }
    match user_status_lines(app, now) {
        // The user's status line replaces tooloop's (a quit confirmation still wins).
        Some((lines, pad)) => {
            let rows: Vec<ratatui::text::Line> = lines
                .iter()
                .map(|line| {
                    let mut spans = vec![ratatui::text::Span::raw(" ".repeat(pad as usize))];
                    spans.extend(line.spans.iter().cloned());
                    ratatui::text::Line::from(spans)
                })
                .collect();
            f.render_widget(ratatui::widgets::Paragraph::new(rows), frame.status);
        }
        _ => {
            let view = status_view(app, now);
            status_bar::draw(f, frame.status, &view, &app.theme);
        }
    }
    app.overlays
        .approvals
        .draw(f, frame.main.union(frame.input), &app.theme);
    if let Some(r) = &app.overlays.rewind {
        r.draw(f, frame.main.union(frame.input), &app.theme);
    }
    if let Some(s) = &app.overlays.sessions {
        s.draw(f, frame.main.union(frame.input), &app.theme);
    }
    if let Some(v) = &app.overlays.subagent_view {
        v.draw(f, frame.main.union(frame.input), &app.theme);
    }
    // A subagent's question shows over its conversation.
    if app.overlays.subagent_view.is_some() {
        app.overlays
            .approvals
            .draw(f, frame.main.union(frame.input), &app.theme);
    }
    if app.overlays.help_open {
        help::draw(
            f,
            f.area(),
            app.overlays.help_scroll,
            &app.theme,
            &slash::help_rows(),
        );
    }
}

/// The user's status-line rows and padding when they replace tooloop's status bar now.
fn user_status_lines(app: &App, now: Instant) -> Option<(&[ratatui::text::Line<'static>], u16)> {
    let sl = app.status.status_line.as_ref()?;
    let lines = sl.lines().filter(|l| !l.is_empty())?;
    (!app.quit_armed(now)).then_some((lines, sl.padding()))
}

fn split_main(app: &App, main: Rect) -> Areas {
    let mut areas = Areas {
        conversation: main,
        ..Areas::default()
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
        if app.panes.json_open {
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
    if app.panes.json_open && top.height >= 8 {
        // The conversation keeps a third (the newest lines), the JSON pane the rest.
        let conv_h = top.height / 3;
        let [conv, json] =
            Layout::vertical([Constraint::Length(conv_h), Constraint::Min(1)]).areas(top);
        areas.conversation = conv;
        areas.json = Some(json);
    } else if app.panes.json_open {
        areas.json = Some(top);
        areas.conversation = Rect { height: 0, ..top };
    } else {
        areas.conversation = top;
    }
    areas
}

/// The input box's title while a pane has the focus: its name and its hints, with the keys
/// as the key table writes them.
fn focus_note(app: &App) -> Option<String> {
    let pane: &dyn Pane = match app.panes.focus {
        Focus::Input => return None,
        Focus::Conversation => &app.panes.conversation,
        Focus::Tools => &app.panes.tools,
        Focus::Json => &app.panes.json,
    };
    let hints: Vec<String> = pane
        .hints()
        .iter()
        .map(|h| format!("{} {}", keys::hint_label(h, app.info.shift_enter), h.what))
        .collect();
    Some(format!(" {}: {} ", pane.title(), hints.join(" · ")))
}

fn status_view<'a>(app: &'a App, now: Instant) -> StatusView<'a> {
    let table: &[Hint] = if app.info.replay {
        keys::REPLAY_HINTS
    } else if app.overlays.approvals.is_open() {
        APPROVAL_HINTS
    } else if app.turn.busy {
        BUSY_HINTS
    } else {
        IDLE_HINTS
    };
    let hints = table
        .iter()
        .map(|h| (keys::hint_label(h, app.info.shift_enter), h.what))
        .collect();
    StatusView {
        provider: &app.info.provider,
        model: app.spend.answering().unwrap_or(&app.info.model),
        state: app.state_label(now),
        busy: app.turn.busy,
        turn: app.turn.turn,
        usage: app.turn.usage,
        context: app.turn.context.as_ref(),
        session: app.info.session.as_deref(),
        sandbox: &app.info.sandbox,
        grants: strings::allowed_status(&app.overlays.approvals.session_grants),
        mode: app.is_live().then_some(app.steering.mode),
        mcp: super::update::extensions::status_label(&app.status.mcp),
        background: match app.panes.tools.jobs.running() {
            0 => None,
            n => Some(format!("bg {n}")),
        },
        quit_armed: app.quit_armed(now),
        note: app.note(now),
        hints,
    }
}
