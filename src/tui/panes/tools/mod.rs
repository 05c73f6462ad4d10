//! The tools pane: one row per tool call (this turn and the last ones) with a state icon, a
//! spinner and a live timer while it runs, and the timeline of the current prompt below.

pub mod bars;
pub mod groups;
pub mod jobs;
pub mod lanes;
pub mod timeline;
pub mod timeline_rows;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use tokio::time::Instant;
use unicode_width::UnicodeWidthStr;

use crate::sanitize::sanitize;
use crate::tui::keys::{Action, Hint, TOOLS_HINTS};
use crate::tui::panes::scroll::Scroll;
use crate::tui::panes::{EventState, Pane, PaneContext, scroll_key};
use crate::tui::strings;
use crate::tui::text::fit::{fit, format_duration};
use crate::tui::theme::Theme;
use crate::tui::tool_calls::{ToolCall, ToolCalls, ToolState};
use bars::BarSelection;
use groups::{Item, ToolGroups};
use jobs::BackgroundGroup;
use timeline::Span as TimeSpan;

/// Rows kept for the last turns; older ones scroll away for good.
pub(super) const MAX_ROWS: usize = 500;
/// Model streams kept for the timeline of one prompt; beyond it neighbours are merged two by
/// two (by then each column of the bar already covers several streams).
const MAX_STREAMS: usize = 256;
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The pane's own state: which calls it lists (ids into the shared store, in arrival order)
/// and the model's streams for the timeline.
#[derive(Default)]
pub struct ToolsPane {
    rows: Vec<String>,
    /// The rows grouped by prompt, as the list shows them.
    groups: ToolGroups,
    /// The model's streams of the current prompt: (start, end).
    streams: Vec<(Instant, Option<Instant>)>,
    /// Streams in `streams` without an end.
    open_streams: usize,
    prompt_start: Option<Instant>,
    /// rows[prompt_first..] belong to the current prompt (the timeline's rows).
    prompt_first: usize,
    /// `t`: the timeline shows the whole session (every stream and call since the first
    /// prompt) instead of the current prompt.
    pub whole_session: bool,
    /// Every stream since the conversation began (bounded like the rows).
    session_streams: Vec<(Instant, Option<Instant>)>,
    session_start: Option<Instant>,
    pub scroll: Scroll,
    /// Set by `layout`: the list's visible rows and the timeline's height.
    window: (usize, usize),
    /// Rows of the list hidden above and below the window: the pane's top border says so
    /// ("↑ N more"; issue 41, item 16: at 80x24 they vanished without a mark). On the
    /// border, not in a row: a two-row list keeps both its running calls. Below only when
    /// running rows are kept in sight over newer finished ones.
    more: (usize, usize),
    list_h: u16,
    timeline_h: u16,
    /// Whether the timeline has room for its title row.
    timeline_titled: bool,
    /// The timeline bar picked with ←/→ (Enter opens it in the JSON pane).
    pub bars: BarSelection,
    /// Each subagent's model streams, drawn as a lane under its `task` row.
    pub lanes: lanes::Lanes,
    /// Background jobs, above the calls; kept across `/new` and resumes (as the jobs are).
    pub jobs: BackgroundGroup,
    /// Lines the jobs' group takes this frame.
    jobs_h: u16,
}

impl ToolsPane {
    pub fn prompt_started(&mut self, now: Instant) {
        self.prompt_start = Some(now);
        self.session_start.get_or_insert(now);
        self.streams.clear();
        self.open_streams = 0;
        // A bar picked during an earlier prompt is not on this prompt's timeline.
        self.bars.clear();
        if self.rows.len() > MAX_ROWS {
            let cut = self.rows.len() - MAX_ROWS;
            self.rows.drain(..cut);
            self.groups.trimmed(cut, self.rows.len());
        }
        self.prompt_first = self.rows.len();
    }

    /// A prompt's calls get a group headed by its first line (a live prompt, or one of a
    /// resumed history).
    pub fn begin_group(&mut self, text: &str) {
        self.groups.begin(text, self.rows.len());
    }

    pub fn stream_started(&mut self, now: Instant) {
        if self.prompt_start.is_none() {
            self.prompt_started(now);
        }
        if self.streams.len() >= MAX_STREAMS {
            self.streams = self
                .streams
                .chunks(2)
                .map(|c| (c[0].0, c[c.len() - 1].1))
                .collect();
            self.open_streams = self.streams.iter().filter(|s| s.1.is_none()).count();
        }
        self.streams.push((now, None));
        self.open_streams += 1;
        if self.session_streams.len() >= MAX_ROWS {
            self.session_streams.remove(0);
        }
        self.session_streams.push((now, None));
    }

    pub fn stream_ended(&mut self, now: Instant) {
        if let Some((_, end @ None)) = self.streams.last_mut() {
            *end = Some(now);
            self.open_streams -= 1;
        }
        if let Some((_, end @ None)) = self.session_streams.last_mut() {
            *end = Some(now);
        }
    }

    /// Forgets every row and the timeline (a new or resumed conversation lists its own).
    pub fn reset(&mut self) {
        self.rows.clear();
        self.groups.clear();
        self.streams.clear();
        self.session_streams.clear();
        self.session_start = None;
        self.open_streams = 0;
        self.prompt_start = None;
        self.prompt_first = 0;
        self.scroll = Scroll::default();
        self.bars = BarSelection::default();
    }

    /// Lists a call (once).
    pub fn add(&mut self, id: &str) {
        if !self.shows(id) {
            self.rows.push(id.to_string());
            self.groups.add(self.rows.len() - 1);
        }
    }

    /// Lists a subagent's call (a scoped id, `a1/…`) under the row of `parent`, after the
    /// rows already under it; appended when the parent is not in the current prompt.
    pub fn add_under(&mut self, parent: &str, id: &str) {
        if self.shows(id) {
            return;
        }
        let Some(p) = self.rows.iter().rposition(|r| r == parent) else {
            return self.add(id);
        };
        if p < self.prompt_first {
            return self.add(id);
        }
        let mut at = p + 1;
        while self.rows.get(at).is_some_and(|r| r.contains('/')) {
            at += 1;
        }
        self.rows.insert(at, id.to_string());
        self.groups.inserted(self.rows.len());
    }

    pub fn shows(&self, id: &str) -> bool {
        self.rows.iter().rev().any(|r| r == id)
    }

    /// The listed ids, oldest first.
    pub fn ids(&self) -> &[String] {
        &self.rows
    }

    /// The timeline's start and the calls it shows (this prompt's, or the session's after `t`).
    pub fn timeline_scope(&self) -> Option<(Instant, &[String])> {
        if self.whole_session {
            Some((self.session_start?, &self.rows[..]))
        } else {
            Some((self.prompt_start?, self.prompt_rows()))
        }
    }

    fn prompt_rows(&self) -> &[String] {
        &self.rows[self.prompt_first.min(self.rows.len())..]
    }

    /// A call of this prompt is still active, or the model is still streaming.
    /// Per frame, so no walk unless some call is active (then newest first: it is one of
    /// the last).
    pub fn any_active(&self, calls: &ToolCalls) -> bool {
        self.open_streams > 0
            || (calls.active() > 0
                && self
                    .prompt_rows()
                    .iter()
                    .rev()
                    .any(|id| calls.get(id).is_some_and(|c| c.state.is_active())))
    }

    /// The list's window with a running call kept in sight (while it follows the newest).
    fn keep_running_in_sight(&self, calls: &ToolCalls) -> (usize, usize) {
        if calls.active() == 0 {
            return self.window;
        }
        self.groups.keep_active_in_sight(self.window, |r| {
            self.rows
                .get(r)
                .and_then(|id| calls.get(id))
                .is_some_and(|c| c.state.is_active())
        })
    }

    fn draw_rows(&self, f: &mut Frame, area: Rect, now: Instant, theme: &Theme, calls: &ToolCalls) {
        if self.rows.is_empty() {
            f.render_widget(
                Paragraph::new(Span::styled(strings::NO_TOOLS, theme.dim)),
                area,
            );
            return;
        }
        let (start, end) = self.window;
        let items = self.groups.items();
        // (left part, right-aligned timer) per visible item; a header has no timer.
        let rows = items[start.min(items.len())..end.min(items.len())]
            .iter()
            .filter_map(|item| match *item {
                Item::Header(g) => Some((self.groups.header(g, area.width, theme), None)),
                Item::Call(r) => self.rows.get(r).and_then(|id| calls.get(id)).map(|c| {
                    let (left, right) = row_line(c, area.width, now, theme);
                    (left, Some(right))
                }),
            });
        draw_lines(f, area, rows);
    }

    fn draw_timeline(
        &self,
        f: &mut Frame,
        area: Rect,
        now: Instant,
        theme: &Theme,
        calls: &ToolCalls,
    ) {
        let streams = if self.whole_session {
            &self.session_streams
        } else {
            &self.streams
        };
        let Some((t0, calls_shown)) = self.timeline_scope() else {
            return;
        };
        let picked = self.bars.selected_stream();
        let stream_spans = streams
            .iter()
            .map(|(s, e)| TimeSpan {
                start: *s,
                queued: None,
                end: e.unwrap_or(now),
                style: theme.accent,
                fill: if picked == Some(*s) { "═" } else { "━" },
            })
            .collect();
        let mut rows = vec![timeline::Row {
            label: "model".into(),
            spans: stream_spans,
            picked: false,
        }];
        // Under the model's row and above the axis: a lane per subagent, the running ones
        // first when there is not room for all.
        let scope = timeline_rows::Scope {
            ids: calls_shown,
            calls,
            lanes: &self.lanes,
            bars: &self.bars,
            now,
            theme,
        };
        rows.extend(timeline_rows::rows(
            &scope,
            (area.height as usize).saturating_sub(2),
        ));
        let active = self.any_active(calls);
        timeline::draw(f, area, t0, now, active, &rows, theme);
    }
}

impl Pane for ToolsPane {
    fn title(&self) -> &str {
        "tools"
    }

    /// Sizes the list and the timeline for `area` (a frame's layout step).
    fn layout(&mut self, area: Rect, ctx: &PaneContext) {
        let inner_h = area.height.saturating_sub(1);
        if inner_h == 0 || area.width == 0 {
            self.list_h = 0;
            self.timeline_h = 0;
            return;
        }
        // The jobs come first, but leave the calls at least a line.
        self.jobs_h = self.jobs.height().min(inner_h.saturating_sub(1));
        let inner_h = inner_h - self.jobs_h;
        if inner_h == 0 {
            self.list_h = 0;
            self.timeline_h = 0;
            return;
        }
        let prompt_rows = self.prompt_rows().len() as u16;
        // Timeline: the model row, one row per tool of this prompt, the axis; a title above
        // when there is room. The list keeps at least two rows (its newest), so on a short
        // pane (80x24) every bar of the prompt still shows.
        let body = prompt_rows + 2;
        let lines = self.groups.items().len();
        self.timeline_h = if inner_h >= 5 && self.prompt_start.is_some() {
            let list_min = (lines as u16).clamp(1, 2);
            let free = inner_h.saturating_sub(lines as u16);
            let room = (inner_h - list_min).max(free);
            (body + 1).min(room).max(3)
        } else {
            0
        };
        self.timeline_titled = self.timeline_h > body;
        self.list_h = (lines.max(1) as u16).min(inner_h - self.timeline_h);
        self.window = self.scroll.window(lines, self.list_h as usize);
        if self.scroll.follows() {
            self.window = self.keep_running_in_sight(ctx.tool_calls);
        }
        self.more = (self.window.0, lines - self.window.1.min(lines));
    }

    fn draw(&self, f: &mut Frame, area: Rect, ctx: &PaneContext) {
        let (focused, now, theme, calls) = (ctx.focused, ctx.now, ctx.theme, ctx.tool_calls);
        let border = if focused {
            theme.focus_border
        } else {
            theme.border
        };
        let block = Block::default()
            .borders(Borders::TOP)
            .border_style(border)
            .title(Span::styled(strings::TOOLS_TITLE, border));
        let inner = block.inner(area);
        f.render_widget(block, area);
        let (above, below) = self.more;
        let mark = format!(" {} ", strings::more_around(above, below));
        let mark_w = mark.chars().count() as u16;
        if above + below > 0 && area.height > 0 && area.width > mark_w + 12 {
            f.buffer_mut()
                .set_string(area.right() - mark_w - 1, area.y, &mark, theme.dim);
        }
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let [jobs, inner] =
            Layout::vertical([Constraint::Length(self.jobs_h), Constraint::Min(0)]).areas(inner);
        if self.jobs_h > 0 {
            let lines = self.jobs.lines(jobs.width, now, theme);
            draw_lines(f, jobs, lines);
        }
        let [list, tl, _] = Layout::vertical([
            Constraint::Length(self.list_h.min(inner.height)),
            Constraint::Length(self.timeline_h),
            Constraint::Min(0),
        ])
        .areas(inner);
        self.draw_rows(f, list, now, theme, calls);
        if self.timeline_h > 0 {
            let title_h = u16::from(self.timeline_titled);
            let [title, body] =
                Layout::vertical([Constraint::Length(title_h), Constraint::Min(0)]).areas(tl);
            // "Enter: open in JSON" only while Enter reaches the pane (issue 41, item 15).
            let picked = focused
                .then(|| {
                    // A task's bar is its agent's: `explore #2`, as its lane says.
                    self.bars.title(|id| match self.lanes.label(id) {
                        Some(agent) => Some(agent.to_string()),
                        None => ctx.tool_calls.get(id).map(|c| sanitize(&c.name)),
                    })
                })
                .flatten();
            let label = match &picked {
                Some(t) => t.as_str(),
                None if self.whole_session => "── timeline: whole session (t: this prompt) ──",
                None => strings::TIMELINE_TITLE,
            };
            f.render_widget(Paragraph::new(Span::styled(label, theme.dim)), title);
            self.draw_timeline(f, body, now, theme, calls);
        }
    }

    fn handle(&mut self, action: Action) -> EventState {
        if action == Action::ToggleTimeline {
            self.whole_session = !self.whole_session;
            return EventState::Consumed;
        }
        if action == Action::Toggle {
            self.groups.toggle(self.rows.len());
            return EventState::Consumed;
        }
        scroll_key(&mut self.scroll, action)
    }

    fn hints(&self) -> &'static [Hint] {
        TOOLS_HINTS
    }

    fn scroll(&mut self) -> &mut Scroll {
        &mut self.scroll
    }
}

/// Rows written straight into the buffer, each timer at the right edge: no padding to run
/// through a Paragraph's line composer cell by cell (with a full list that was ~40 % of a
/// 200x60 frame).
fn draw_lines(
    f: &mut Frame,
    area: Rect,
    rows: impl IntoIterator<Item = (Line<'static>, Option<Line<'static>>)>,
) {
    let buf = f.buffer_mut();
    for (y, (left, right)) in (area.y..area.bottom()).zip(rows) {
        buf.set_line(area.x, y, &left, area.width);
        if let Some(right) = right {
            let w = (right.width() as u16).min(area.width);
            buf.set_line(area.right() - w, y, &right, w);
        }
    }
}

/// A row's left part (icon, name, summary cut to fit) and its right-aligned timer.
fn row_line(
    r: &ToolCall,
    width: u16,
    now: Instant,
    theme: &Theme,
) -> (Line<'static>, Line<'static>) {
    let icon = match (r.state, r.started_at) {
        (ToolState::Running, Some(s)) => {
            let i = (now.saturating_duration_since(s).as_millis() / 80) as usize % SPINNER.len();
            SPINNER[i]
        }
        (state, _) => state.icon(),
    };
    let timer = match (r.duration_ms, r.started_at) {
        _ if r.state == ToolState::Denied => "denied".into(),
        (Some(ms), _) => format_duration(ms),
        (None, Some(s)) if r.state == ToolState::Running => {
            format_duration(now.saturating_duration_since(s).as_millis() as u64)
        }
        _ => match r.state {
            ToolState::Approval => "approval".into(),
            ToolState::Queued => "queued".into(),
            ToolState::Cancelled => "cancelled".into(),
            _ => String::new(),
        },
    };
    let w = width as usize;
    // A subagent's call sits under the task row that started it.
    let name = if r.id.contains('/') {
        format!("↳ {}", sanitize(&r.name))
    } else {
        sanitize(&r.name)
    };
    let fixed = 2 + name.width() + 1 + timer.width() + 1;
    let room = w.saturating_sub(fixed);
    let summary = fit(&sanitize(&r.summary), room);
    let st = r.state.style(theme);
    (
        Line::from(vec![
            Span::styled(format!("{icon} "), st),
            Span::styled(name, theme.tool_name),
            Span::raw(" "),
            Span::styled(summary, theme.dim),
        ]),
        Line::from(Span::styled(format!(" {timer}"), st)),
    )
}

#[cfg(test)]
mod session_timeline_tests;
