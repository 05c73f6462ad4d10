//! Typed conversation entries (codex's HistoryCell): each cell renders its own lines and
//! caches them per width, so a frame re-wraps only what changed.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::sanitize::sanitize;
use crate::tui::strings;
use crate::tui::text::streaming::StreamingMarkdown;
use crate::tui::text::wrap::wrap;
use crate::tui::theme::Theme;
use crate::tui::tool_calls::{ToolCall, ToolCalls, ToolState};

/// Lines of tool output shown when a tool line is expanded; the JSON pane has all of it.
const MAX_EXPANDED_LINES: usize = 200;
/// Lines of a thinking block shown while it streams.
const LIVE_THINKING_LINES: usize = 6;

pub enum CellKind {
    User(String),
    Assistant(StreamingMarkdown),
    Thinking {
        text: String,
        streaming: bool,
    },
    /// A tool call, drawn from the shared store by its id.
    Tool(String),
    Notice(String),
    Error(String),
    Interrupted,
    /// Partial output of a failed attempt that was thrown away (a model fallback).
    Discarded {
        text: String,
        reason: String,
    },
    /// A message from before a compaction boundary (resumed session): shown dimmed, no
    /// longer sent to the model.
    Earlier {
        user: bool,
        text: String,
    },
    /// The history was compacted here; expands to the summary and the state block.
    Compacted {
        trigger: String,
        pre_tokens: u64,
        post_tokens: u64,
        summary: String,
        /// The state block tooloop appended (empty before state blocks existed).
        state: String,
        kept: crate::protocol::compaction::Kept,
    },
}

pub struct Cell {
    pub kind: CellKind,
    expanded: bool,
    selected: bool,
    /// Wrapped lines for (width, version of the tool call drawn, 0 for other cells).
    cache: Option<(u16, u64, Vec<Line<'static>>)>,
}

impl Cell {
    pub fn new(kind: CellKind) -> Self {
        Cell {
            kind,
            expanded: false,
            selected: false,
            cache: None,
        }
    }

    /// Tool calls and thinking blocks open and close on Enter.
    pub fn is_expandable(&self) -> bool {
        matches!(
            self.kind,
            CellKind::Tool(_) | CellKind::Thinking { .. } | CellKind::Compacted { .. }
        )
    }

    pub fn is_expanded(&self) -> bool {
        self.expanded
    }

    pub fn toggle(&mut self) {
        self.expanded = !self.expanded;
        self.invalidate();
    }

    pub fn set_selected(&mut self, on: bool) {
        if self.selected != on {
            self.selected = on;
            self.invalidate();
        }
    }

    pub fn invalidate(&mut self) {
        self.cache = None;
    }

    /// Mutable access for updates; drops the cached lines.
    pub fn kind_mut(&mut self) -> &mut CellKind {
        self.cache = None;
        &mut self.kind
    }

    /// Renders and wraps the cell at `width` unless its cache is still good (the layout
    /// step of a frame; drawing then only reads). Returns whether it had to.
    pub fn prepare(&mut self, width: u16, theme: &Theme, calls: &ToolCalls) -> bool {
        let version = match &mut self.kind {
            CellKind::Assistant(md) => {
                let fresh = md.is_prepared(width);
                md.prepare(width);
                return !fresh;
            }
            CellKind::Tool(id) => calls.get(id).map_or(0, |c| c.version),
            _ => 0,
        };
        let fresh = matches!(&self.cache, Some((w, v, _)) if *w == width && *v == version);
        if !fresh {
            let lines = self.build(width, theme, calls);
            self.cache = Some((width, version, lines));
        }
        !fresh
    }

    /// Whether the cell holds lines for `width` (a changed tool call is re-prepared through
    /// the conversation's dirty list, so the version is not looked up here).
    pub fn has_lines(&self, width: u16) -> bool {
        match &self.kind {
            CellKind::Assistant(md) => md.is_prepared(width),
            _ => matches!(&self.cache, Some((w, _, _)) if *w == width),
        }
    }

    /// Frees the cell's rendered lines (it is far from the view); its height stays with the
    /// conversation, and `prepare` renders it again when it is scrolled back to.
    pub fn evict(&mut self) {
        self.cache = None;
        if let CellKind::Assistant(md) = &mut self.kind {
            md.evict();
        }
    }

    /// The lines prepared for the last width, as two slices (a streaming answer keeps its
    /// finished paragraphs apart from the tail that is still growing).
    pub fn lines(&self) -> (&[Line<'static>], &[Line<'static>]) {
        match (&self.kind, &self.cache) {
            (CellKind::Assistant(md), _) => md.prepared(),
            (_, Some((_, _, lines))) => (lines.as_slice(), &[]),
            _ => (&[], &[]),
        }
    }

    /// Lines prepared (0 once evicted: the conversation keeps every cell's height).
    pub fn height(&self) -> usize {
        let (a, b) = self.lines();
        a.len() + b.len()
    }

    fn marker(&self, theme: &Theme) -> Span<'static> {
        if self.selected {
            Span::styled("▌", theme.accent)
        } else {
            Span::raw(" ")
        }
    }

    fn build(&self, width: u16, theme: &Theme, calls: &ToolCalls) -> Vec<Line<'static>> {
        let inner = width.saturating_sub(2).max(1);
        match &self.kind {
            CellKind::User(text) => {
                let body: Vec<Line<'static>> = sanitize(text)
                    .lines()
                    .map(|l| Line::styled(l.to_string(), theme.text.add_modifier(Modifier::BOLD)))
                    .collect();
                prefixed(wrap(&body, inner), Span::styled("› ", theme.user), "  ")
            }
            CellKind::Assistant(_) => Vec::new(),
            CellKind::Thinking { text, streaming } => {
                // Live while it streams (only its last lines, so a long thought costs the
                // same per frame), one line once the answer starts; Enter opens it whole.
                let live = *streaming && !self.expanded;
                let clean = if live {
                    sanitize(tail_lines(text, LIVE_THINKING_LINES))
                } else {
                    sanitize(text)
                };
                let head = if *streaming {
                    format!("✻ {}…", strings::THINKING)
                } else {
                    let n = clean.lines().count();
                    let hint = if self.expanded { "" } else { "  [Enter]" };
                    let s = if n == 1 { "" } else { "s" };
                    format!("✻ {} ({n} line{s}){hint}", strings::THINKING)
                };
                let mut out = vec![Line::from(vec![
                    self.marker(theme),
                    Span::styled(head, theme.thinking),
                ])];
                if self.expanded || live {
                    let body: Vec<Line<'static>> = clean
                        .lines()
                        .map(|l| Line::styled(l.to_string(), theme.thinking))
                        .collect();
                    let mut wrapped = wrap(&body, inner.saturating_sub(2).max(1));
                    if live && wrapped.len() > LIVE_THINKING_LINES {
                        wrapped.drain(..wrapped.len() - LIVE_THINKING_LINES);
                    }
                    out.extend(prefixed(wrapped, Span::raw("    "), "    "));
                }
                out
            }
            CellKind::Tool(id) => match calls.get(id) {
                Some(call) => self.tool_lines(call, inner, theme),
                None => Vec::new(),
            },
            CellKind::Earlier { user, text } => {
                let body = vec![Line::styled(sanitize(text), theme.dim)];
                let mark = if *user { "> " } else { "  " };
                prefixed(wrap(&body, inner), Span::styled(mark, theme.dim), "  ")
            }
            CellKind::Notice(text) => {
                // A notice may span lines (the /model table).
                let body: Vec<Line<'static>> = sanitize(text)
                    .lines()
                    .map(|l| Line::styled(l.to_string(), theme.dim))
                    .collect();
                prefixed(wrap(&body, inner), Span::styled("• ", theme.dim), "  ")
            }
            CellKind::Error(text) => {
                let body = vec![Line::styled(sanitize(text), theme.error)];
                prefixed(wrap(&body, inner), Span::styled("! ", theme.error), "  ")
            }
            CellKind::Interrupted => {
                let body = vec![Line::styled(strings::INTERRUPTED, theme.error)];
                wrap(&body, width.max(1))
            }
            CellKind::Discarded { text, reason } => {
                let struck = theme.dim.add_modifier(Modifier::CROSSED_OUT);
                let mut body: Vec<Line<'static>> = sanitize(text)
                    .lines()
                    .map(|l| Line::styled(l.to_string(), struck))
                    .collect();
                body.push(Line::styled(
                    format!("{} ({})", strings::DISCARDED, sanitize(reason)),
                    theme.dim,
                ));
                prefixed(wrap(&body, inner), Span::styled("✗ ", theme.dim), "  ")
            }
            CellKind::Compacted {
                trigger,
                pre_tokens,
                post_tokens,
                summary,
                state,
                kept,
            } => {
                let title = strings::compacted(trigger, *pre_tokens, *post_tokens);
                let kept = strings::compacted_kept(kept);
                let hint = if self.expanded || (summary.is_empty() && state.is_empty()) {
                    ""
                } else {
                    " [Enter]"
                };
                // One line when it fits: `── compacted (auto): 61.2k → 9.8k tokens · kept …
                // ──`; else what was kept goes on a line of its own.
                let one = match &kept {
                    Some(k) => format!(" {title} · {k} "),
                    None => format!(" {title} "),
                };
                let fits = one.chars().count() + hint.chars().count() + 6 <= width as usize;
                let label = if fits { one } else { format!(" {title} ") };
                let used = label.chars().count() + hint.chars().count() + 4;
                let rule = "─".repeat((width as usize).saturating_sub(used).max(2));
                let mut out = vec![Line::from(vec![
                    self.marker(theme),
                    Span::styled(format!("──{label}{rule}"), theme.accent),
                    Span::styled(hint, theme.dim),
                ])];
                if let Some(k) = kept.filter(|_| !fits) {
                    let body = vec![Line::styled(k, theme.dim)];
                    out.extend(prefixed(wrap(&body, inner), Span::raw("  "), "  "));
                }
                if self.expanded {
                    let mut body: Vec<Line<'static>> = sanitize(summary)
                        .lines()
                        .map(|l| Line::styled(l.to_string(), theme.dim))
                        .collect();
                    if !state.is_empty() {
                        body.push(Line::raw(""));
                        body.push(Line::styled(strings::COMPACTED_STATE, theme.accent));
                        body.extend(
                            sanitize(state)
                                .lines()
                                .map(|l| Line::styled(l.to_string(), theme.dim)),
                        );
                    }
                    out.extend(prefixed(wrap(&body, inner), Span::raw("  "), "  "));
                }
                out
            }
        }
    }

    fn tool_lines(&self, call: &ToolCall, inner: u16, theme: &Theme) -> Vec<Line<'static>> {
        let st = call.state.style(theme);
        let mut head = vec![
            self.marker(theme),
            Span::styled(format!("{} ", call.state.icon()), st),
            Span::styled(sanitize(&call.name), theme.tool_name),
            Span::raw(" "),
            Span::styled(sanitize(&call.summary), theme.text),
        ];
        let tail = match call.state {
            ToolState::Ok | ToolState::Error => call
                .duration_ms
                .map(|ms| format!(" · {}", crate::tui::text::fit::format_duration(ms)))
                .unwrap_or_default(),
            _ => String::new(),
        };
        let verdict = match call.state {
            ToolState::Ok => " ok",
            ToolState::Error => " error",
            ToolState::Cancelled => " cancelled",
            ToolState::Denied => " denied",
            ToolState::Approval => " waiting for approval",
            ToolState::Queued => " queued",
            ToolState::Running => " running",
            ToolState::Streaming => "",
        };
        head.push(Span::styled(tail, theme.dim));
        head.push(Span::styled(verdict, st));
        if !call.output.is_empty() && !self.expanded {
            head.push(Span::styled("  [Enter]", theme.dim));
        }
        let mut out = wrap(&[Line::from(head)], inner.saturating_add(2));
        // A failed call shows why without Enter: its first line, on one row.
        if call.state == ToolState::Error && !self.expanded {
            let clean = sanitize(&call.output);
            if let Some(first) = clean.lines().map(str::trim).find(|l| !l.is_empty()) {
                let line = Line::from(vec![
                    Span::styled("    └ ", theme.dim),
                    Span::styled(first.to_string(), theme.error),
                ]);
                out.extend(wrap(
                    &[crate::tui::text::wrap::one_row(line)],
                    inner.saturating_add(2),
                ));
            }
        }
        if self.expanded {
            let clean = sanitize(&call.output);
            let total = clean.lines().count();
            let mut body: Vec<Line<'static>> = clean
                .lines()
                .take(MAX_EXPANDED_LINES)
                .map(|l| Line::styled(l.to_string(), theme.dim))
                .collect();
            if total > MAX_EXPANDED_LINES {
                body.push(Line::styled(
                    format!(
                        "… {} more lines (the JSON pane has all of it)",
                        total - MAX_EXPANDED_LINES
                    ),
                    theme.dim,
                ));
            }
            let wrapped = wrap(&body, inner.saturating_sub(4).max(1));
            out.extend(prefixed(
                wrapped,
                Span::styled("    │ ", theme.dim),
                "    │ ",
            ));
        }
        out
    }
}

/// The end of `text` from the start of its `n`-th last line.
fn tail_lines(text: &str, n: usize) -> &str {
    let trimmed = text.trim_end_matches('\n');
    let start = trimmed
        .rmatch_indices('\n')
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1);
    &trimmed[start..]
}

/// Puts `first` before the first line and `rest` (plain) before the others.
pub fn prefixed(
    lines: Vec<Line<'static>>,
    first: Span<'static>,
    rest: &'static str,
) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, mut line)| {
            let p = if i == 0 {
                first.clone()
            } else {
                Span::styled(rest, first.style)
            };
            line.spans.insert(0, p);
            line
        })
        .collect()
}
