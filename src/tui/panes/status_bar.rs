//! The status bar: provider and model, state, turn, tokens, session, and the key hints that
//! fit the width (or the quit confirmation, which wins over everything).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::provider::Usage;
use crate::tui::strings;
use crate::tui::theme::Theme;

pub struct StatusView<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub state: String,
    pub busy: bool,
    pub turn: u32,
    pub usage: Usage,
    pub context: Option<&'a crate::protocol::compaction::ContextStatus>,
    pub session: Option<&'a str>,
    /// The shell's sandbox mode; empty: not shown.
    pub sandbox: &'a str,
    /// Tools allowed for the session ("allowed: bash"), shown right after the state.
    pub grants: Option<String>,
    /// The approval mode, in its own colour (None in a replay).
    pub mode: Option<crate::protocol::approval_mode::ApprovalMode>,
    /// `mcp 2/3` when MCP servers are configured.
    pub mcp: Option<String>,
    /// `bg 2` while background jobs run.
    pub background: Option<String>,
    pub quit_armed: bool,
    /// A passing message ("wrote … to …"); shown instead of the hints.
    pub note: Option<&'a str>,
    /// (keys, what) in priority order; as many as fit are shown.
    pub hints: Vec<(String, &'a str)>,
}

/// Columns a note keeps free of optional items; a longer note is cut between words.
const NOTE_ROOM: usize = 40;

fn tokens(n: u64) -> String {
    if n >= 10_000 {
        format!("{}k", n / 1000)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// `ctx 63%` of the window.
fn context_label(c: &crate::protocol::compaction::ContextStatus) -> String {
    let pct = c
        .context_tokens
        .saturating_mul(100)
        .checked_div(c.window)
        .unwrap_or(0)
        .min(999);
    format!("ctx {pct}%")
}

pub fn draw(f: &mut Frame, area: Rect, v: &StatusView, theme: &Theme) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let state_style = if v.busy {
        theme.accent.add_modifier(Modifier::BOLD)
    } else {
        theme.ok
    };
    let sep = || Span::styled(" │ ", theme.dim);
    let mut spans = vec![
        Span::styled(
            format!(" {}/{}", v.provider, v.model),
            theme.text.add_modifier(Modifier::BOLD),
        ),
        sep(),
        Span::styled(v.state.clone(), state_style),
    ];
    if let Some(mode) = v.mode {
        spans.push(sep());
        spans.push(crate::tui::steering::mode_span(mode, theme));
    }
    if let Some(g) = &v.grants {
        spans.push(sep());
        spans.push(Span::styled(g.clone(), theme.accent));
    }
    let mut optional = vec![
        format!("turn {}", v.turn),
        format!(
            "↑{} ↓{}",
            tokens(v.usage.input_tokens),
            tokens(v.usage.output_tokens)
        ),
    ];
    if let Some(c) = v.context {
        optional.insert(0, context_label(c));
        optional.insert(
            1,
            match c.cost_usd {
                Some(usd) => format!("${usd:.2}"),
                None => "$?".into(),
            },
        );
        if let Some(share) = c.cache_read_share {
            optional.push(format!("cache {:.0}%", share * 100.0));
        }
        // Tool definitions in every request, and what deferral keeps out (issue 39).
        let t = c.tools;
        if t.deferred_count > 0 {
            optional.push(format!(
                "tools {} +{} deferred",
                tokens(t.loaded),
                tokens(t.deferred)
            ));
        } else if t.loaded > 0 {
            optional.push(format!("tools {}", tokens(t.loaded)));
        }
    }
    if !v.sandbox.is_empty() {
        optional.push(strings::sandbox_status(v.sandbox));
    }
    if let Some(bg) = &v.background {
        // Running jobs are worth knowing before the token counts.
        optional.insert(0, bg.clone());
    }
    if let Some(mcp) = &v.mcp {
        // A server starting or failed is worth more than the token counts; all ready is not.
        if mcp.ends_with('!') || mcp.ends_with('…') {
            optional.insert(0, mcp.clone());
        } else {
            optional.push(mcp.clone());
        }
    }
    if let Some(id) = v.session {
        optional.push(format!("session {id}"));
    }
    let width = area.width as usize;
    let used = |spans: &[Span]| spans.iter().map(|s| s.content.width()).sum::<usize>();
    // A passing note ("copied 120 chars") is what the user just asked for: it keeps its room
    // (up to NOTE_ROOM columns) before the optional items take theirs.
    let reserve = match v.note {
        Some(n) if !v.quit_armed => 3 + n.width().min(NOTE_ROOM),
        _ => 0,
    };
    for item in optional {
        if used(&spans) + 3 + item.width() + reserve <= width {
            spans.push(sep());
            spans.push(Span::styled(item, theme.dim));
        }
    }
    if v.quit_armed {
        let note = strings::QUIT_CONFIRM;
        if used(&spans) + 3 + note.width() <= width {
            spans.push(sep());
        } else {
            spans.clear();
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(
            note,
            theme
                .error
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
        ));
    } else if let Some(note) = v.note {
        spans.push(sep());
        let room = width.saturating_sub(used(&spans));
        spans.push(Span::styled(fit_words(note, room), theme.accent));
    } else {
        // Hints are right-aligned and dropped from the end until they fit.
        let mut hints: Vec<Span> = Vec::new();
        let mut hint_w = 0;
        for (keys, what) in &v.hints {
            let w = keys.width() + 1 + what.width() + 2;
            if used(&spans) + hint_w + w + 1 > width {
                break;
            }
            hint_w += w;
            hints.push(Span::styled(
                keys.clone(),
                theme.key_hint.patch(theme.accent),
            ));
            hints.push(Span::styled(format!(" {what}  "), theme.dim));
        }
        let pad = width.saturating_sub(used(&spans) + hint_w);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.extend(hints);
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Cuts `s` to `room` columns at a word boundary, with an ellipsis (a word is cut only when
/// it alone is wider than the room).
pub fn fit_words(s: &str, room: usize) -> String {
    if s.width() <= room {
        return s.to_string();
    }
    let cut = crate::tui::text::fit::fit(s, room);
    let body = cut.trim_end_matches('…');
    match body.rfind(' ') {
        Some(i) if i > 0 => format!("{}…", body[..i].trim_end()),
        _ => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bar at `width` with every optional item and `note`, as text.
    fn bar(width: u16, note: &str) -> String {
        let context = crate::protocol::compaction::ContextStatus {
            context_tokens: 50_000,
            window: 200_000,
            cost_usd: Some(1.25),
            cache_read_share: Some(0.5),
            tools: Default::default(),
        };
        let v = StatusView {
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            state: "ready".into(),
            busy: false,
            turn: 12,
            usage: Usage {
                input_tokens: 123_456,
                output_tokens: 7_890,
                ..Default::default()
            },
            context: Some(&context),
            session: Some("1a2b3c4d"),
            sandbox: "workspace-write",
            grants: None,
            mode: None,
            mcp: Some("mcp 2/2".into()),
            background: None,
            quit_armed: false,
            note: Some(note),
            hints: vec![],
        };
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, 1)).expect("terminal");
        t.draw(|f| draw(f, f.area(), &v, &Theme::default()))
            .expect("draw");
        let buf = t.backend().buffer();
        (0..width).map(|x| buf[(x, 0)].symbol()).collect()
    }

    #[test]
    fn the_copy_notes_fit_at_80_columns() {
        for note in [strings::copied(123_456), strings::NOTHING_TO_COPY.into()] {
            let line = bar(80, &note);
            assert!(line.contains(&note), "{line}");
            assert!(line.contains("anthropic/claude-sonnet-4-5"), "{line}");
        }
        // Wide enough, the optional items stay.
        assert!(bar(200, &strings::copied(5)).contains("session 1a2b3c4d"));
    }

    #[test]
    fn notes_are_cut_between_words() {
        let note = "wrote the history JSON to /home/someone/.local/state/tooloop/json/x.json";
        assert_eq!(fit_words(note, 30), "wrote the history JSON to…");
        assert_eq!(fit_words("short", 30), "short");
        assert_eq!(fit_words("abcdefghij", 5), "abcd…");
    }
}
