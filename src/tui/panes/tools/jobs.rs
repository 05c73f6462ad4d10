//! The tools pane's `background` group: one live row per background job (id, command, a
//! running timer, its last output line, state). Its state only: what the agent reported in
//! `AgentEvent::Background`, and which row `b` selected. It survives `/new`, as the jobs
//! do; leaving a session (`/sessions`, `/fork`) drops its jobs' rows.

use ratatui::text::{Line, Span};
use tokio::time::Instant;
use unicode_width::UnicodeWidthStr;

use crate::background::types::{Change as JobChange, JobEvent, JobInfo, JobState};
use crate::sanitize::sanitize;
use crate::tui::text::fit::{fit, format_duration};
use crate::tui::theme::Theme;

/// Rows shown at most; more jobs than this (rare: 8 may run at once) are summed up.
pub const MAX_SHOWN: usize = 9;

pub struct JobRow {
    pub info: JobInfo,
    /// When this front end heard it start (None for a resumed session's jobs).
    pub started: Option<Instant>,
    /// When it ended, for the final duration.
    pub ended: Option<Instant>,
}

#[derive(Default)]
pub struct BackgroundGroup {
    pub rows: Vec<JobRow>,
    /// Index of the row `b` selected (`x` kills it, Enter opens its output).
    pub selected: Option<usize>,
}

impl BackgroundGroup {
    pub fn apply(&mut self, event: &JobEvent, now: Instant) {
        let id = &event.job.shell_id;
        if event.change == JobChange::Dropped {
            self.rows.retain(|r| &r.info.shell_id != id);
            self.selected = self.selected.filter(|&i| i < self.rows.len());
            return;
        }
        match self.rows.iter_mut().find(|r| &r.info.shell_id == id) {
            Some(row) => {
                if event.change == JobChange::Ended && row.ended.is_none() {
                    row.ended = Some(now);
                }
                row.info = event.job.clone();
            }
            None => self.rows.push(JobRow {
                info: event.job.clone(),
                started: (event.change != JobChange::Resumed).then_some(now),
                ended: (event.change == JobChange::Ended).then_some(now),
            }),
        }
    }

    pub fn running(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.info.state.is_running())
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// `b`: the next row (after the last: none).
    pub fn select_next(&mut self) {
        self.selected = match self.selected {
            _ if self.rows.is_empty() => None,
            None => Some(0),
            Some(i) if i + 1 < self.rows.len() => Some(i + 1),
            Some(_) => None,
        };
    }

    pub fn selected_job(&self) -> Option<&JobInfo> {
        self.selected
            .and_then(|i| self.rows.get(i))
            .map(|r| &r.info)
    }

    /// Lines the group takes in the pane (its header and a row per job shown).
    pub fn height(&self) -> u16 {
        if self.rows.is_empty() {
            0
        } else {
            1 + self.rows.len().min(MAX_SHOWN) as u16
        }
    }

    /// The header and one (left, right-aligned) pair per shown job, newest last.
    pub fn lines(
        &self,
        width: u16,
        now: Instant,
        theme: &Theme,
    ) -> Vec<(Line<'static>, Option<Line<'static>>)> {
        let mut out = Vec::new();
        let running = self.running();
        let hint = match self.selected_job() {
            Some(j) => format!(" · {}: x kill · Enter output", sanitize(&j.shell_id)),
            None => " · b: select".to_string(),
        };
        out.push((
            Line::from(Span::styled(
                format!("▾ background · {running} running{hint}"),
                theme.dim,
            )),
            None,
        ));
        let skip = self.rows.len().saturating_sub(MAX_SHOWN);
        for (i, row) in self.rows.iter().enumerate().skip(skip) {
            out.push(row_line(row, width, now, theme, self.selected == Some(i)));
        }
        out
    }
}

fn row_line(
    row: &JobRow,
    width: u16,
    now: Instant,
    theme: &Theme,
    selected: bool,
) -> (Line<'static>, Option<Line<'static>>) {
    let j = &row.info;
    let (icon, style) = match j.state {
        JobState::Running => ("◷", theme.accent),
        JobState::Exited if j.exit_code == Some(0) => ("✓", theme.ok),
        JobState::Exited => ("✗", theme.error),
        JobState::Killed => ("⊘", theme.dim),
        JobState::Ended => ("·", theme.dim),
    };
    // Whole seconds while it runs: the group wakes the screen once a second, not per line.
    let timer = match (row.started, row.ended) {
        (Some(s), None) => {
            let secs = now.saturating_duration_since(s).as_secs();
            format_duration(secs * 1000).replace(".0s", "s")
        }
        (Some(s), Some(e)) => format_duration(e.saturating_duration_since(s).as_millis() as u64),
        (None, _) => String::new(),
    };
    let state = match j.state {
        JobState::Running => String::new(),
        JobState::Exited => format!("exit {}", j.exit_code.unwrap_or(-1)),
        JobState::Killed => "killed".into(),
        JobState::Ended => "ended".into(),
    };
    let right = [state, timer]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let id = sanitize(&j.shell_id);
    let room = (width as usize).saturating_sub(2 + id.width() + 1 + right.width() + 1);
    // The command takes up to half the room, the last output line the rest.
    let command = fit(&sanitize(&j.command), room.min(room / 2 + 8).min(40));
    let last = fit(
        &sanitize(&j.last_line),
        room.saturating_sub(command.width() + 3),
    );
    let id_style = if selected {
        theme
            .tool_name
            .add_modifier(ratatui::style::Modifier::REVERSED)
    } else {
        theme.tool_name
    };
    let mut left = vec![
        Span::styled(format!("{icon} "), style),
        Span::styled(id, id_style),
        Span::raw(" "),
        Span::styled(command, theme.text),
    ];
    if !last.is_empty() {
        left.push(Span::styled(format!(" · {last}"), theme.dim));
    }
    (
        Line::from(left),
        Some(Line::from(Span::styled(format!(" {right}"), style))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(change: JobChange, state: JobState, last: &str) -> JobEvent {
        JobEvent {
            change,
            job: JobInfo {
                shell_id: "b1".into(),
                command: "npm run dev".into(),
                state,
                exit_code: (state == JobState::Exited).then_some(1),
                pid: Some(42),
                signal: None,
                killed_by: None,
                bytes: 10,
                last_line: last.into(),
                output: None,
            },
        }
    }

    #[test]
    fn rows_follow_the_job_and_keep_its_duration() {
        let mut g = BackgroundGroup::default();
        let t0 = Instant::now();
        g.apply(&event(JobChange::Started, JobState::Running, ""), t0);
        g.apply(
            &event(JobChange::Output, JobState::Running, "listening on :3000"),
            t0,
        );
        assert_eq!(g.running(), 1);
        assert_eq!(g.height(), 2);
        let later = t0 + std::time::Duration::from_millis(2500);
        let theme = Theme::dark();
        let lines = g.lines(80, later, &theme);
        let text: String = lines[1]
            .0
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(text, "◷ b1 npm run dev · listening on :3000");
        let right: String = lines[1].1.as_ref().unwrap().spans[0].content.to_string();
        assert_eq!(right, " 2s");
        g.apply(&event(JobChange::Ended, JobState::Exited, "boom"), later);
        assert_eq!(g.running(), 0);
        let lines = g.lines(80, later + std::time::Duration::from_secs(9), &theme);
        let right: String = lines[1].1.as_ref().unwrap().spans[0].content.to_string();
        assert_eq!(right, " exit 1 2.5s");
        g.select_next();
        assert_eq!(g.selected_job().map(|j| j.shell_id.as_str()), Some("b1"));
        g.select_next();
        assert_eq!(g.selected, None);
    }
}
