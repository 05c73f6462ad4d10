//! The shape every pane has, in the style of gitui's components: a pane prepares itself for
//! its area (wrapping, scroll window), draws from that without changing anything, takes the
//! keys meant for it (Consumed stops a key at the first taker), and names the hints shown
//! while it has the focus (labels come from the key table).
//!
//! This folder holds the panes: the conversation (conversation.rs, its cells in cells.rs),
//! the tools pane (tools/: rows, groups, the timeline and its bar selection), the JSON pane
//! (json/: its lines and the request stepper), the status bar, and the scroll state they
//! share. A pane is a leaf: it never sees the App; the controller (`tui/update/`) hands it
//! keys and events and acts on what it returns.
//!
//! Adding a pane: write `src/tui/panes/NAME.rs` implementing [`Pane`] (its state, `layout`,
//! `draw`, `handle`, `hints`), declare it here (`pub mod NAME;`), give it a field in the
//! App's `Panes` part and a `Focus` (app.rs), a place in `view::split_main`, and the events
//! it follows in `update/agent.rs`.

pub mod cells;
pub mod conversation;
pub mod heights;
pub mod json;
pub mod scroll;
pub mod status_bar;
pub mod tools;

use ratatui::Frame;
use ratatui::layout::Rect;
use tokio::time::Instant;

use crate::tui::keys::{Action, Hint};
use crate::tui::theme::Theme;
use crate::tui::tool_calls::ToolCalls;
use scroll::Scroll;

/// Whether a pane took a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventState {
    Consumed,
    NotConsumed,
}

/// What a pane may read besides its own state.
pub struct PaneContext<'a> {
    pub theme: &'a Theme,
    pub now: Instant,
    pub focused: bool,
    /// Every tool call (the conversation and the tools pane draw from it).
    pub tool_calls: &'a ToolCalls,
}

pub trait Pane {
    /// The pane's name (its focus note starts with it).
    fn title(&self) -> &str;
    /// Prepares drawing into `area`: caches, sizes, the scroll window. Default: nothing.
    fn layout(&mut self, _area: Rect, _ctx: &PaneContext) {}
    /// Draws what `layout` prepared; it cannot change the pane.
    fn draw(&self, f: &mut Frame, area: Rect, ctx: &PaneContext);
    /// A key while the pane has the focus, as the key table's action.
    fn handle(&mut self, action: Action) -> EventState;
    /// Hints shown while the pane has the focus, most useful first.
    fn hints(&self) -> &'static [Hint];
    /// What the mouse wheel scrolls over this pane.
    fn scroll(&mut self) -> &mut Scroll;
}

/// Scroll keys every scrolling pane answers the same way.
pub fn scroll_key(scroll: &mut Scroll, action: Action) -> EventState {
    match action {
        Action::ScrollUp => scroll.up(1),
        Action::ScrollDown => scroll.down(1),
        Action::PageUp => scroll.page_up(),
        Action::PageDown => scroll.page_down(),
        Action::Top => scroll.top(),
        Action::Bottom => scroll.bottom(),
        _ => return EventState::NotConsumed,
    }
    EventState::Consumed
}
