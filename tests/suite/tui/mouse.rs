//! `--mouse`: a click focuses the pane under it, the wheel scrolls the pane under the
//! pointer, and a modal keeps the mouse from the panes below it. On the App, with the areas
//! of a real frame (200×50: conversation, tools and JSON side by side).

use crate::support;

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use support::tui::*;
use tokio::time::Instant;
use tooloop::tui::app::{App, Focus};
use tooloop::tui::update::mouse::pane_at;

fn mouse(kind: MouseEventKind, (column, row): (u16, u16)) -> MouseEvent {
    MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }
}

/// A point inside `r`.
fn middle(r: ratatui::layout::Rect) -> (u16, u16) {
    (r.x + r.width / 2, r.y + r.height / 2)
}

fn laid_out() -> App {
    let mut a = app();
    a.info.mouse = true;
    a.panes.json_open = true;
    let now = Instant::now();
    // Enough conversation to scroll.
    for i in 0..80 {
        a.panes
            .conversation
            .push(tooloop::tui::panes::cells::CellKind::Notice(format!(
                "第 {i} 行 line {i}"
            )));
    }
    render_text(&mut a, 200, 50, now);
    a
}

#[tokio::test(start_paused = true)]
async fn a_click_focuses_the_pane_under_it() {
    let mut a = laid_out();
    let areas = a.panes.areas.clone();
    let tools = areas.tools.expect("a tools pane at 200x50");
    let json = areas.json.expect("the JSON pane is open");
    assert_eq!(
        pane_at(&areas, middle(tools).0, middle(tools).1),
        Focus::Tools
    );
    assert_eq!(pane_at(&areas, middle(json).0, middle(json).1), Focus::Json);
    let conv = middle(areas.conversation);
    assert_eq!(pane_at(&areas, conv.0, conv.1), Focus::Conversation);
    // The bottom rows (input, status bar) are the input.
    assert_eq!(pane_at(&areas, 5, 49), Focus::Input);

    a.on_mouse(mouse(
        MouseEventKind::Down(MouseButton::Left),
        middle(tools),
    ));
    assert_eq!(a.panes.focus, Focus::Tools);
    a.on_mouse(mouse(MouseEventKind::Down(MouseButton::Left), middle(json)));
    assert_eq!(a.panes.focus, Focus::Json);
    a.on_mouse(mouse(MouseEventKind::Down(MouseButton::Left), conv));
    assert_eq!(a.panes.focus, Focus::Conversation);
    a.on_mouse(mouse(MouseEventKind::Down(MouseButton::Left), (5, 49)));
    assert_eq!(a.panes.focus, Focus::Input);
    // Moving or releasing the button changes nothing.
    a.on_mouse(mouse(MouseEventKind::Moved, middle(tools)));
    a.on_mouse(mouse(MouseEventKind::Up(MouseButton::Left), middle(tools)));
    assert_eq!(a.panes.focus, Focus::Input);
}

#[tokio::test(start_paused = true)]
async fn the_wheel_scrolls_the_pane_under_the_pointer_not_the_focused_one() {
    let mut a = laid_out();
    let now = Instant::now();
    let conv = middle(a.panes.areas.conversation);
    let before = render_text(&mut a, 200, 50, now);
    assert!(before.contains("line 79"), "{before}");
    for _ in 0..10 {
        a.on_mouse(mouse(MouseEventKind::ScrollUp, conv));
    }
    assert_eq!(
        a.panes.focus,
        Focus::Input,
        "the wheel does not move the focus"
    );
    let after = render_text(&mut a, 200, 50, now);
    assert!(!after.contains("line 79"), "scrolled up:\n{after}");
    for _ in 0..10 {
        a.on_mouse(mouse(MouseEventKind::ScrollDown, conv));
    }
    assert!(render_text(&mut a, 200, 50, now).contains("line 79"));
}

#[tokio::test(start_paused = true)]
async fn a_modal_keeps_the_mouse_from_the_panes() {
    let mut a = laid_out();
    let tools = a.panes.areas.tools.expect("tools");
    a.on_key(key(crossterm::event::KeyCode::F(1)), Instant::now());
    assert!(a.overlays.help_open);
    a.on_mouse(mouse(
        MouseEventKind::Down(MouseButton::Left),
        middle(tools),
    ));
    assert_eq!(a.panes.focus, Focus::Input);
    a.on_mouse(mouse(MouseEventKind::ScrollDown, middle(tools)));
    assert_eq!(
        a.overlays.help_scroll, 3,
        "the wheel scrolls the help instead"
    );
}
