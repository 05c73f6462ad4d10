//! The tools pane: one row per tool call (this turn and the last ones) with a state icon, a
//! spinner and a live timer while it runs, and the timeline of the current prompt below.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use tokio::time::Instant;
use unicode_width::UnicodeWidthStr;

use super::cells::ToolState;
use super::sanitize::sanitize;
use super::scroll::Scroll;
use super::strings;
use super::theme::Theme;
use super::timeline::{self, Span as TimeSpan};

/// Rows kept for the last turns; older ones scroll away for good.
const MAX_ROWS: usize = 500;
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub struct ToolRow {
    pub id: String,
    pub name: String,
    pub summary: String,
    pub state: ToolState,
    pub queued_at: Instant,
    pub started_at: Option<Instant>,
    pub ended_at: Option<Instant>,
    pub duration_ms: Option<u64>,
}

#[derive(Default)]
pub struct ToolsPane {
    pub rows: Vec<ToolRow>,
    /// The model's streams of the current prompt: (start, end).
    streams: Vec<(Instant, Option<Instant>)>,
    prompt_start: Option<Instant>,
    /// rows[prompt_first..] belong to the current prompt (the timeline's rows).
    prompt_first: usize,
    pub scroll: Scroll,
}

impl ToolsPane {
    pub fn prompt_started(&mut self, now: Instant) {
        self.prompt_start = Some(now);
        self.streams.clear();
        if self.rows.len() > MAX_ROWS {
            let cut = self.rows.len() - MAX_ROWS;
            self.rows.drain(..cut);
        }
        self.prompt_first = self.rows.len();
    }

    pub fn stream_started(&mut self, now: Instant) {
        if self.prompt_start.is_none() {
            self.prompt_started(now);
        }
        self.streams.push((now, None));
    }

    pub fn stream_ended(&mut self, now: Instant) {
        if let Some((_, end @ None)) = self.streams.last_mut() {
            *end = Some(now);
        }
    }

    pub fn row_mut(&mut self, id: &str) -> Option<&mut ToolRow> {
        self.rows.iter_mut().rev().find(|r| r.id == id)
    }

    pub fn upsert(&mut self, id: &str, name: &str, summary: &str, state: ToolState, now: Instant) {
        if let Some(row) = self.row_mut(id) {
            row.state = state;
            if !summary.is_empty() {
                row.summary = summary.to_string();
            }
            return;
        }
        self.rows.push(ToolRow {
            id: id.to_string(),
            name: name.to_string(),
            summary: summary.to_string(),
            state,
            queued_at: now,
            started_at: None,
            ended_at: None,
            duration_ms: None,
        });
    }

    pub fn running(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.state == ToolState::Running)
            .count()
    }

    pub fn any_active(&self) -> bool {
        self.rows[self.prompt_first.min(self.rows.len())..]
            .iter()
            .any(|r| r.state.is_active())
            || self.streams.iter().any(|(_, e)| e.is_none())
    }

    /// A turn ended: whatever did not finish was cancelled.
    pub fn cancel_unfinished(&mut self, now: Instant) {
        for r in &mut self.rows {
            if r.state.is_active() {
                r.state = ToolState::Cancelled;
                r.ended_at = Some(now);
            }
        }
        self.stream_ended(now);
    }

    pub fn draw(&mut self, f: &mut Frame, area: Rect, focused: bool, now: Instant, theme: &Theme) {
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
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let prompt_rows = self.rows.len() - self.prompt_first.min(self.rows.len());
        // Timeline: a title, the model row, one row per tool of this prompt, the axis.
        let want_timeline = (prompt_rows + 3) as u16;
        let timeline_h = if inner.height >= 6 && self.prompt_start.is_some() {
            let room = inner.height.saturating_sub(self.rows.len() as u16);
            want_timeline.min(room.max(inner.height / 2)).max(3)
        } else {
            0
        };
        let list_h = (self.rows.len().max(1) as u16).min(inner.height - timeline_h);
        let [list, tl, _] = Layout::vertical([
            Constraint::Length(list_h),
            Constraint::Length(timeline_h),
            Constraint::Min(0),
        ])
        .areas(inner);
        self.draw_rows(f, list, now, theme);
        if timeline_h > 0 {
            let [title, body] =
                Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(tl);
            f.render_widget(
                Paragraph::new(Span::styled(strings::TIMELINE_TITLE, theme.dim)),
                title,
            );
            self.draw_timeline(f, body, now, theme);
        }
    }

    fn draw_rows(&mut self, f: &mut Frame, area: Rect, now: Instant, theme: &Theme) {
        if self.rows.is_empty() {
            f.render_widget(
                Paragraph::new(Span::styled(strings::NO_TOOLS, theme.dim)),
                area,
            );
            return;
        }
        let (start, end) = self.scroll.window(self.rows.len(), area.height as usize);
        let lines: Vec<Line> = self.rows[start..end]
            .iter()
            .map(|r| row_line(r, area.width, now, theme))
            .collect();
        f.render_widget(Paragraph::new(lines), area);
    }

    fn draw_timeline(&self, f: &mut Frame, area: Rect, now: Instant, theme: &Theme) {
        let Some(t0) = self.prompt_start else { return };
        let mut rows: Vec<(String, Vec<TimeSpan>)> = Vec::new();
        let stream_spans = self
            .streams
            .iter()
            .map(|(s, e)| TimeSpan {
                start: *s,
                queued: None,
                end: e.unwrap_or(now),
                style: theme.accent,
                fill: "━",
            })
            .collect();
        rows.push(("model".into(), stream_spans));
        for r in &self.rows[self.prompt_first.min(self.rows.len())..] {
            let spans = match r.started_at {
                Some(s) => vec![TimeSpan {
                    start: s,
                    queued: Some(r.queued_at),
                    end: r.ended_at.unwrap_or(now),
                    style: r.state.style(theme),
                    fill: "█",
                }],
                None if r.state.is_active() => vec![TimeSpan {
                    start: now,
                    queued: Some(r.queued_at),
                    end: now,
                    style: theme.dim,
                    fill: "·",
                }],
                None => Vec::new(),
            };
            rows.push((sanitize(&r.name), spans));
        }
        timeline::draw(f, area, t0, now, self.any_active(), &rows, theme);
    }
}

fn row_line(r: &ToolRow, width: u16, now: Instant, theme: &Theme) -> Line<'static> {
    let icon = match (r.state, r.started_at) {
        (ToolState::Running, Some(s)) => {
            let i = (now.saturating_duration_since(s).as_millis() / 80) as usize % SPINNER.len();
            SPINNER[i]
        }
        (state, _) => state.icon(),
    };
    let timer = match (r.duration_ms, r.started_at) {
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
    let name = sanitize(&r.name);
    let fixed = 2 + name.width() + 1 + timer.width() + 1;
    let room = w.saturating_sub(fixed);
    let summary = fit(&sanitize(&r.summary), room);
    let pad = w.saturating_sub(fixed + summary.width());
    let st = r.state.style(theme);
    Line::from(vec![
        Span::styled(format!("{icon} "), st),
        Span::styled(name, theme.tool_name),
        Span::raw(" "),
        Span::styled(summary, theme.dim),
        Span::raw(" ".repeat(pad)),
        Span::styled(format!(" {timer}"), st),
    ])
}

/// Cuts `s` to `room` columns with an ellipsis.
pub fn fit(s: &str, room: usize) -> String {
    if s.width() <= room {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if w + cw + 1 > room {
            break;
        }
        out.push(c);
        w += cw;
    }
    if room > 0 {
        out.push('…');
    }
    out
}

/// Tenths of a second under a minute, then minutes and seconds.
pub fn format_duration(ms: u64) -> String {
    if ms < 60_000 {
        format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_tenths() {
        assert_eq!(format_duration(0), "0.0s");
        assert_eq!(format_duration(1349), "1.3s");
        assert_eq!(format_duration(61_000), "1m01s");
    }

    #[test]
    fn fit_cuts_with_ellipsis() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("ab", 4), "ab");
        assert_eq!(fit("ab", 0), "");
    }
}
