//! What the JSON pane shows: its views (F3 cycles them), and a segment — a message's or an
//! event's lines, rendered once and wrapped once per width.

use ratatui::text::Line;

use crate::tui::text::wrap::wrap;

/// The pane's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonView {
    History,
    Request,
    Sse,
    /// One tool call's input and output, opened from a timeline bar (not in the F3 cycle).
    Tool,
}

impl JsonView {
    pub const ALL: [JsonView; 3] = [JsonView::History, JsonView::Request, JsonView::Sse];

    pub fn name(self) -> &'static str {
        match self {
            JsonView::History => "history",
            JsonView::Request => "request",
            JsonView::Sse => "sse",
            JsonView::Tool => "tool",
        }
    }

    pub(super) fn index(self) -> usize {
        match self {
            JsonView::History => 0,
            JsonView::Request => 1,
            JsonView::Sse => 2,
            JsonView::Tool => 3,
        }
    }

    pub fn next(self) -> Self {
        match self {
            JsonView::Tool => JsonView::History,
            v => JsonView::ALL[(v.index() + 1) % 3],
        }
    }

    pub fn prev(self) -> Self {
        match self {
            JsonView::Tool => JsonView::Sse,
            v => JsonView::ALL[(v.index() + 2) % 3],
        }
    }
}

/// Logical lines plus their wrapped form at one width.
pub(super) struct Segment {
    logical: Vec<Line<'static>>,
    wrapped: Option<(u16, Vec<Line<'static>>)>,
}

impl Segment {
    pub(super) fn new(logical: Vec<Line<'static>>) -> Self {
        Segment {
            logical,
            wrapped: None,
        }
    }

    pub(super) fn prepare(&mut self, width: u16) {
        if !matches!(&self.wrapped, Some((w, _)) if *w == width) {
            self.wrapped = Some((width, wrap(&self.logical, width)));
        }
    }

    /// The lines wrapped by the last `prepare`.
    pub(super) fn lines(&self) -> &[Line<'static>] {
        self.wrapped
            .as_ref()
            .map(|(_, l)| l.as_slice())
            .unwrap_or(&[])
    }
}

/// The stepper's parts for the request and sse views.
pub(super) struct StepSegs {
    pub(super) headline: Option<Segment>,
    pub(super) body: Option<Segment>,
    /// The events of an older request (the live ones are the pane's own).
    pub(super) sse: Option<Vec<Segment>>,
}
