//! The JSON pane: the history as it will be sent, the last request body, and the raw SSE
//! events of the last response. Each message / event is a segment rendered and wrapped once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use serde_json::Value;

use super::json_view;
use super::keys::{Action, Hint, Scope, hint};
use super::pane::{EventState, Pane, PaneContext, scroll_key};
use super::sanitize::sanitize;
use super::scroll::Scroll;
use super::strings;
use super::theme::Theme;
use super::wrap::wrap;
use crate::message::Message;

/// Raw events kept for one response; a runaway stream must not eat the memory.
const MAX_SSE_EVENTS: usize = 20_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonView {
    History,
    Request,
    Sse,
}

impl JsonView {
    pub const ALL: [JsonView; 3] = [JsonView::History, JsonView::Request, JsonView::Sse];

    pub fn name(self) -> &'static str {
        match self {
            JsonView::History => "history",
            JsonView::Request => "request",
            JsonView::Sse => "sse",
        }
    }

    fn index(self) -> usize {
        match self {
            JsonView::History => 0,
            JsonView::Request => 1,
            JsonView::Sse => 2,
        }
    }

    pub fn next(self) -> Self {
        JsonView::ALL[(self.index() + 1) % 3]
    }

    pub fn prev(self) -> Self {
        JsonView::ALL[(self.index() + 2) % 3]
    }
}

/// Logical lines plus their wrapped form at one width.
struct Segment {
    logical: Vec<Line<'static>>,
    wrapped: Option<(u16, Vec<Line<'static>>)>,
}

impl Segment {
    fn new(logical: Vec<Line<'static>>) -> Self {
        Segment {
            logical,
            wrapped: None,
        }
    }

    fn prepare(&mut self, width: u16) {
        if !matches!(&self.wrapped, Some((w, _)) if *w == width) {
            self.wrapped = Some((width, wrap(&self.logical, width)));
        }
    }

    /// The lines wrapped by the last `prepare`.
    fn lines(&self) -> &[Line<'static>] {
        self.wrapped
            .as_ref()
            .map(|(_, l)| l.as_slice())
            .unwrap_or(&[])
    }
}

pub struct JsonPane {
    pub view: JsonView,
    history: Vec<Message>,
    history_segs: Vec<Option<Segment>>,
    request: Option<Arc<Value>>,
    request_seg: Option<Segment>,
    sse: Vec<(String, String)>,
    sse_segs: Vec<Segment>,
    scroll: [Scroll; 3],
    /// Set by `layout`: the visible line range of the current view.
    window: (usize, usize),
}

impl Default for JsonPane {
    fn default() -> Self {
        let mut scroll = [Scroll::default(); 3];
        scroll[JsonView::Request.index()].top();
        JsonPane {
            view: JsonView::History,
            history: Vec::new(),
            history_segs: Vec::new(),
            request: None,
            request_seg: None,
            sse: Vec::new(),
            sse_segs: Vec::new(),
            scroll,
            window: (0, 0),
        }
    }
}

impl JsonPane {
    pub fn scroll(&mut self) -> &mut Scroll {
        &mut self.scroll[self.view.index()]
    }

    pub fn set_message(&mut self, index: usize, message: Message) {
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

    pub fn reset_history(&mut self, messages: Vec<Message>) {
        self.history_segs = messages.iter().map(|_| None).collect();
        self.history = messages;
    }

    pub fn set_request(&mut self, body: Arc<Value>) {
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

    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The current view as the text written by the save key.
    pub fn export(&self) -> String {
        let value = match self.view {
            JsonView::History => serde_json::to_value(&self.history).unwrap_or(Value::Null),
            JsonView::Request => self.request.as_deref().cloned().unwrap_or(Value::Null),
            JsonView::Sse => Value::Array(
                self.sse
                    .iter()
                    .map(|(e, d)| {
                        let data =
                            serde_json::from_str(d).unwrap_or_else(|_| Value::String(d.clone()));
                        serde_json::json!({"event": e, "data": data})
                    })
                    .collect(),
            ),
        };
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }

    /// Writes the current view to `dir` and returns the path.
    pub fn save(&self, dir: &Path, stamp: &str) -> Result<PathBuf, (PathBuf, std::io::Error)> {
        let path = dir.join(format!("{}-{stamp}.json", self.view.name()));
        std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&path, self.export()))
            .map(|_| path.clone())
            .map_err(|e| (path, e))
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
            JsonView::Request => {
                if self.request_seg.is_none()
                    && let Some(body) = &self.request
                {
                    self.request_seg = Some(Segment::new(json_view::render(body)));
                }
                self.request_seg.iter_mut().collect()
            }
            JsonView::Sse => {
                while self.sse_segs.len() < self.sse.len() {
                    let (event, data) = &self.sse[self.sse_segs.len()];
                    self.sse_segs
                        .push(Segment::new(sse_lines(event, data, theme)));
                }
                self.sse_segs.iter_mut().collect()
            }
        }
    }

    /// The current view's segments, as prepared by `layout`.
    fn prepared(&self) -> Vec<&Segment> {
        match self.view {
            JsonView::History => self.history_segs.iter().flatten().collect(),
            JsonView::Request => self.request_seg.iter().collect(),
            JsonView::Sse => self.sse_segs.iter().collect(),
        }
    }

    fn block(&self, focused: bool, theme: &Theme) -> Block<'static> {
        let border = if focused {
            theme.focus_border
        } else {
            theme.border
        };
        let mut title = vec![Span::styled(" JSON ", border)];
        for v in JsonView::ALL {
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

fn message_lines(i: usize, n: usize, m: &Message, theme: &Theme) -> Vec<Line<'static>> {
    let value = serde_json::to_value(m).unwrap_or(Value::Null);
    let mut lines = vec![Line::styled(format!("// history[{i}]"), theme.dim)];
    lines.extend(json_view::render(&value));
    if i + 1 < n
        && let Some(last) = lines.last_mut()
    {
        last.spans.push(Span::styled(",", theme.dim));
    }
    lines
}

fn sse_lines(event: &str, data: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!("event: {}", sanitize(event)),
        theme.accent,
    )];
    match serde_json::from_str::<Value>(data) {
        Ok(v) => lines.extend(json_view::render(&v)),
        Err(_) => lines.push(Line::styled(
            format!("data: {}", sanitize(data)),
            theme.text,
        )),
    }
    lines
}
