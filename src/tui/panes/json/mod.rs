//! The JSON pane: the history as it will be sent, the last request body, and the raw SSE
//! events of the last response (or any earlier request, through the stepper), and a tool
//! call opened from a timeline bar. Each message / event is a segment rendered and wrapped once.

mod export;
pub mod lines;
mod segment;
pub mod stepper;

pub use segment::JsonView;

use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use serde_json::Value;

use crate::message::Message;
use crate::provider::RequestBody;
use crate::sanitize::sanitize;
use crate::tui::keys::{Action, Hint, Scope, hint};
use crate::tui::panes::scroll::Scroll;
use crate::tui::panes::{EventState, Pane, PaneContext, scroll_key};
use crate::tui::strings;
use crate::tui::text::json_view;
use crate::tui::theme::Theme;
use lines::{diff_lines, http_error_lines, message_lines, sse_lines};
use segment::{Segment, StepSegs};
use stepper::Stepper;

/// Raw events kept for one response; a runaway stream must not eat the memory.
const MAX_SSE_EVENTS: usize = 20_000;

pub struct JsonPane {
    pub view: JsonView,
    history: Vec<Arc<Message>>,
    history_segs: Vec<Option<Segment>>,
    request: Option<Arc<RequestBody>>,
    request_seg: Option<Segment>,
    sse: Vec<(String, String)>,
    sse_segs: Vec<Segment>,
    /// Every request of the session (`[` / `]`), and the older one shown, if any.
    pub requests: Stepper,
    /// The stepper's headline and, for an older request, its body and events.
    step_segs: Option<StepSegs>,
    /// The tool call opened from a timeline bar, and its rendered lines.
    tool: Option<(Value, Segment)>,
    scroll: [Scroll; 4],
    /// Set by `layout`: the visible line range of the current view.
    window: (usize, usize),
}

impl Default for JsonPane {
    fn default() -> Self {
        let mut scroll = [Scroll::default(); 4];
        scroll[JsonView::Request.index()].top();
        scroll[JsonView::Tool.index()].top();
        JsonPane {
            view: JsonView::History,
            history: Vec::new(),
            history_segs: Vec::new(),
            request: None,
            request_seg: None,
            sse: Vec::new(),
            sse_segs: Vec::new(),
            requests: Stepper::default(),
            step_segs: None,
            tool: None,
            scroll,
            window: (0, 0),
        }
    }
}

impl JsonPane {
    pub fn scroll(&mut self) -> &mut Scroll {
        &mut self.scroll[self.view.index()]
    }

    pub fn set_message(&mut self, index: usize, message: Arc<Message>) {
        if index < self.history.len() {
            self.history[index] = message;
            self.history_segs[index] = None;
        } else {
            self.history.push(message);
            // The message before now needs its trailing comma.
            if let Some(last) = self.history_segs.last_mut() {
                *last = None;
            }
            self.history_segs.push(None);
        }
    }

    pub fn reset_history(&mut self, messages: Vec<Arc<Message>>) {
        self.history_segs = messages.iter().map(|_| None).collect();
        self.history = messages;
    }

    /// The body is the one that was sent; it is parsed only when the request view is drawn.
    pub fn set_request(&mut self, body: Arc<RequestBody>) {
        self.requests.prev_live = self.request.take();
        self.step_segs = None;
        self.request = Some(body);
        self.request_seg = None;
        self.sse.clear();
        self.sse_segs.clear();
    }

    pub fn push_sse(&mut self, event: &str, data: &str) {
        if self.sse.len() < MAX_SSE_EVENTS {
            self.sse.push((event.to_string(), data.to_string()));
        }
    }

    /// A request is sent: the stepper counts it and the live views show it.
    pub fn request_started(&mut self, turn: u32, attempt: u32, body: Arc<RequestBody>) {
        self.requests.started(turn, attempt, body.len());
        self.set_request(body);
    }

    /// A subagent sent a request: the stepper lists it among the main agent's (the live
    /// views stay the main agent's).
    pub fn child_request_started(
        &mut self,
        agent: stepper::AgentTag,
        turn: u32,
        attempt: u32,
        body: Arc<RequestBody>,
    ) {
        self.requests.child_started(agent, turn, attempt, body);
        self.step_segs = None;
    }

    /// A subagent's request in flight failed (`status` and body, or an error before it).
    pub fn child_request_failed(&mut self, agent_id: &str, http: Option<(u16, &str)>, error: &str) {
        if let Some(m) = self.requests.child_in_flight(agent_id) {
            match http {
                Some((status, body)) => m.http_failed(status, body),
                None => m.failed(error),
            }
        }
        self.step_segs = None;
    }

    /// The server answered the request in flight with an HTTP error.
    pub fn request_http_failed(&mut self, status: u16, body: &str) {
        self.requests.http_failed(status, body);
        self.step_segs = None;
    }

    /// The request in flight failed before its reply.
    pub fn request_failed(&mut self, error: &str) {
        self.requests.failed(error);
        self.step_segs = None;
    }

    /// Shows request `index` of the stepper in the request view (a timeline bar's Enter).
    pub fn show_request(&mut self, index: usize) {
        self.view = JsonView::Request;
        let delta = match self.requests.current() {
            Some(cur) => index as i64 - cur as i64,
            None => return,
        };
        self.step(delta);
    }

    /// Shows a tool call's JSON in the tool view (a timeline bar's Enter).
    pub fn show_tool(&mut self, value: Value) {
        let seg = Segment::new(json_view::render(&value));
        self.tool = Some((value, seg));
        self.view = JsonView::Tool;
        self.scroll[JsonView::Tool.index()].top();
    }

    fn step(&mut self, delta: i64) {
        if self.requests.step(delta) {
            self.step_segs = None;
            self.scroll[JsonView::Request.index()].top();
            self.scroll[JsonView::Sse.index()].top();
        }
    }

    fn toggle_diff(&mut self) {
        self.requests.diff = !self.requests.diff;
        self.step_segs = None;
        self.scroll[JsonView::Request.index()].top();
    }

    /// Builds the stepper's segments for the request and sse views.
    fn step_segments(&mut self, theme: &Theme) -> &mut StepSegs {
        let requests = &self.requests;
        let live = &self.request;
        self.step_segs.get_or_insert_with(|| {
            let headline = requests.headline().map(|h| {
                let mut lines = vec![Line::styled(format!("// {}", sanitize(&h)), theme.accent)];
                if let Some(p) = &requests.problem {
                    lines.push(Line::styled(format!("// {}", sanitize(p)), theme.dim));
                }
                if let Some((status, body)) = requests.http_failure() {
                    lines.extend(http_error_lines(*status, body, theme));
                }
                lines.push(Line::styled(
                    "// [ ] previous / next request · d new messages only",
                    theme.dim,
                ));
                Segment::new(lines)
            });
            let older = requests.shown.as_ref().filter(|_| requests.showing_older());
            let (body, prev) = match older {
                Some(s) => (Some(s.body.clone()), s.prev_messages),
                // Picked but not loadable: the problem line says why; never the live body
                // in its place.
                None if requests.picked_other() => (None, None),
                None => (
                    live.clone(),
                    if requests.diff {
                        requests.live_prev_messages()
                    } else {
                        None
                    },
                ),
            };
            let body = body.map(|b| {
                if requests.diff {
                    Segment::new(diff_lines(b.json(), prev, theme))
                } else {
                    Segment::new(json_view::render(b.json()))
                }
            });
            let sse = match older {
                Some(s) => Some(
                    s.sse
                        .iter()
                        .map(|(e, d)| Segment::new(sse_lines(e, d, theme)))
                        .collect(),
                ),
                None if requests.picked_other() => Some(Vec::new()),
                None => None,
            };
            StepSegs {
                headline,
                body,
                sse,
            }
        })
    }

    pub fn history(&self) -> &[Arc<Message>] {
        &self.history
    }

    fn segments(&mut self, theme: &Theme) -> Vec<&mut Segment> {
        match self.view {
            JsonView::History => {
                let n = self.history.len();
                for (i, seg) in self.history_segs.iter_mut().enumerate() {
                    if seg.is_none() {
                        *seg = Some(Segment::new(message_lines(i, n, &self.history[i], theme)));
                    }
                }
                self.history_segs.iter_mut().flatten().collect()
            }
            JsonView::Request if self.stepping() => {
                let st = self.step_segments(theme);
                st.headline.iter_mut().chain(st.body.iter_mut()).collect()
            }
            JsonView::Request => {
                if self.request_seg.is_none()
                    && let Some(body) = &self.request
                {
                    self.request_seg = Some(Segment::new(json_view::render(body.json())));
                }
                self.request_seg.iter_mut().collect()
            }
            JsonView::Sse if self.requests.picked_other() || self.shows_http_failure() => {
                let st = self.step_segments(theme);
                st.headline
                    .iter_mut()
                    .chain(st.sse.iter_mut().flatten())
                    .collect()
            }
            JsonView::Sse => {
                while self.sse_segs.len() < self.sse.len() {
                    let (event, data) = &self.sse[self.sse_segs.len()];
                    self.sse_segs
                        .push(Segment::new(sse_lines(event, data, theme)));
                }
                // The latest request's events carry the same "request N of M" header as
                // an older one's (issue 41, item 18).
                let stepping = self.stepping();
                if stepping {
                    self.step_segments(theme);
                }
                let head = self.step_segs.as_mut().filter(|_| stepping);
                let head = head.and_then(|st| st.headline.as_mut());
                head.into_iter().chain(self.sse_segs.iter_mut()).collect()
            }
            JsonView::Tool => self.tool.iter_mut().map(|(_, s)| s).collect(),
        }
    }

    /// The current view's segments, as prepared by `layout`.
    fn prepared(&self) -> Vec<&Segment> {
        match self.view {
            JsonView::History => self.history_segs.iter().flatten().collect(),
            JsonView::Request if self.stepping() => match &self.step_segs {
                Some(st) => st.headline.iter().chain(st.body.iter()).collect(),
                None => Vec::new(),
            },
            JsonView::Request => self.request_seg.iter().collect(),
            JsonView::Sse if self.requests.picked_other() || self.shows_http_failure() => {
                match &self.step_segs {
                    Some(st) => st.headline.iter().chain(st.sse.iter().flatten()).collect(),
                    None => Vec::new(),
                }
            }
            JsonView::Sse => {
                let head = self.step_segs.as_ref().filter(|_| self.stepping());
                let head = head.and_then(|st| st.headline.as_ref());
                head.into_iter().chain(self.sse_segs.iter()).collect()
            }
            JsonView::Tool => self.tool.iter().map(|(_, s)| s).collect(),
        }
    }

    /// The request shown was refused with an HTTP error: the sse view shows the error body
    /// in the stepper's headline (no events came).
    fn shows_http_failure(&self) -> bool {
        self.requests.http_failure().is_some()
    }

    /// The request view shows the stepper once there is more than one request to step
    /// through, or a diff was asked for.
    fn stepping(&self) -> bool {
        self.requests.metas.len() > 1
            || self.requests.diff
            || self.requests.problem.is_some()
            || self.shows_http_failure()
    }

    fn block(&self, focused: bool, theme: &Theme) -> Block<'static> {
        let border = if focused {
            theme.focus_border
        } else {
            theme.border
        };
        let mut title = vec![Span::styled(" JSON ", border)];
        let tool = (self.view == JsonView::Tool).then_some(JsonView::Tool);
        for v in JsonView::ALL.into_iter().chain(tool) {
            let st = if v == self.view {
                theme
                    .accent
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED)
            } else {
                theme.dim
            };
            title.push(Span::styled(format!(" {} ", v.name()), st));
        }
        title.push(Span::styled(" F3 view · Ctrl+S save ", theme.dim));
        Block::default()
            .borders(Borders::TOP | Borders::LEFT)
            .border_style(border)
            .title(Line::from(title))
    }
}

/// Keys while focused: ←→ switch the view, the rest scrolls.
const HINTS: &[Hint] = &[
    hint(Action::ScrollUp, Scope::Pane, "scroll"),
    hint(Action::NextItem, Scope::Pane, "view"),
    hint(Action::SaveJson, Scope::Global, "save"),
    hint(Action::Cancel, Scope::Global, "back"),
];

impl Pane for JsonPane {
    fn title(&self) -> &str {
        "JSON"
    }

    /// Renders and wraps the current view for `area` and fixes its scroll window.
    fn layout(&mut self, area: Rect, ctx: &PaneContext) {
        let theme = ctx.theme;
        let inner = self.block(false, theme).inner(area);
        if inner.width == 0 || inner.height == 0 {
            self.window = (0, 0);
            return;
        }
        let width = inner.width;
        let total: usize = self
            .segments(theme)
            .into_iter()
            .map(|s| {
                s.prepare(width);
                s.lines().len()
            })
            .sum();
        let view = self.view.index();
        self.window = self.scroll[view].window(total, inner.height as usize);
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &PaneContext) {
        let theme = ctx.theme;
        let block = self.block(ctx.focused, theme);
        let inner = block.inner(area);
        f.render_widget(block, area);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let segs = self.prepared();
        if segs.iter().all(|s| s.lines().is_empty()) {
            f.render_widget(
                Paragraph::new(Span::styled(strings::JSON_EMPTY, theme.dim)),
                inner,
            );
            return;
        }
        let (start, end) = self.window;
        let mut lines = Vec::with_capacity(end.saturating_sub(start));
        let mut y = 0;
        for seg in segs {
            let h = seg.lines().len();
            if y + h > start && y < end {
                for (k, line) in seg.lines().iter().enumerate() {
                    if (start..end).contains(&(y + k)) {
                        lines.push(line.clone());
                    }
                }
            }
            y += h;
            if y >= end {
                break;
            }
        }
        f.render_widget(Paragraph::new(lines), inner);
    }

    fn handle(&mut self, action: Action) -> EventState {
        match action {
            Action::PrevItem => self.view = self.view.prev(),
            Action::NextItem => self.view = self.view.next(),
            Action::PrevRequest => self.step(-1),
            Action::NextRequest => self.step(1),
            Action::ToggleDiff if self.view == JsonView::Request => self.toggle_diff(),
            other => return scroll_key(JsonPane::scroll(self), other),
        }
        EventState::Consumed
    }

    fn hints(&self) -> &'static [Hint] {
        HINTS
    }

    fn scroll(&mut self) -> &mut Scroll {
        JsonPane::scroll(self)
    }
}
