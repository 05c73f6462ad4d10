//! The help overlay, generated from the key table the handlers use and the slash commands'
//! rows (name, arguments, help) the caller passes in.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::keys::{BINDINGS, Scope};
use crate::tui::strings;
use crate::tui::theme::Theme;

fn scope_title(scope: Scope) -> &'static str {
    match scope {
        Scope::Global => "anywhere",
        Scope::Input => "in the input",
        Scope::Pane => "in a focused pane (Tab)",
        Scope::Approval => "in an approval prompt",
        Scope::Subagent => "in a subagent's conversation (Enter on its task call)",
    }
}

/// What the input reads in what is typed (update/compose.rs, the agent's mentions and
/// `!` commands), as the help lists it.
pub const TYPED: &[(&str, &str)] = &[
    (
        "/",
        "a menu of commands as you type: Up/Down pick, Tab or Enter complete, Esc closes",
    ),
    (
        "/NAME ARGS",
        "the prompt in .tooloop/commands/NAME.md (or .claude/commands/, or commands/ in \
         the config directory), $ARGUMENTS replaced by ARGS",
    ),
    (
        "@path",
        "attach a file (its text, headed with its path) or a directory (its listing); \
         Tab completes",
    ),
    (
        "!command",
        "run a shell command in the workspace; the model reads it and its output",
    ),
    (
        "Up during a turn",
        "on an empty input: take the last queued prompt back to edit (Esc drops it)",
    ),
];

/// A slash command as the help lists it: name (without the slash), arguments, what it does.
pub type CommandRow = (&'static str, &'static str, &'static str);

pub fn lines(theme: &Theme, commands: &[CommandRow]) -> Vec<Line<'static>> {
    let label_w = BINDINGS
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(8)
        .min(34);
    let mut out = Vec::new();
    for scope in [
        Scope::Global,
        Scope::Input,
        Scope::Pane,
        Scope::Approval,
        Scope::Subagent,
    ] {
        if !out.is_empty() {
            out.push(Line::default());
        }
        out.push(Line::styled(
            scope_title(scope),
            theme.accent.add_modifier(Modifier::BOLD),
        ));
        for b in BINDINGS.iter().filter(|b| b.scope == scope) {
            out.push(Line::from(vec![
                Span::styled(
                    format!("  {:<label_w$}  ", b.label),
                    theme.text.add_modifier(Modifier::BOLD),
                ),
                Span::styled(b.help, theme.dim),
            ]));
        }
    }
    out.push(Line::default());
    out.push(Line::styled(
        "typed in the input",
        theme.accent.add_modifier(Modifier::BOLD),
    ));
    let typed_w = TYPED.iter().map(|(t, _)| t.len()).max().unwrap_or(8);
    for (typed, help) in TYPED {
        out.push(Line::from(vec![
            Span::styled(
                format!("  {typed:<typed_w$}  "),
                theme.text.add_modifier(Modifier::BOLD),
            ),
            Span::styled(*help, theme.dim),
        ]));
    }
    out.push(Line::default());
    out.push(Line::styled(
        "commands (type in the input; Tab completes)",
        theme.accent.add_modifier(Modifier::BOLD),
    ));
    let cmd_w = commands
        .iter()
        .map(|(name, args, _)| name.len() + args.len() + 2)
        .max()
        .unwrap_or(8);
    for (name, args, help) in commands {
        let name = format!("/{name} {args}");
        out.push(Line::from(vec![
            Span::styled(
                format!("  {:<cmd_w$}  ", name.trim_end()),
                theme.text.add_modifier(Modifier::BOLD),
            ),
            Span::styled(*help, theme.dim),
        ]));
    }
    out
}

fn body(area: Rect, theme: &Theme, commands: &[CommandRow]) -> (u16, Vec<Line<'static>>) {
    let w = area.width.saturating_sub(2).min(96);
    let width = w.saturating_sub(2).max(1);
    let body = lines(theme, commands)
        .iter()
        .flat_map(|line| hanging(line, width))
        .collect();
    (w, body)
}

/// A row (a key or command, then what it does) wrapped so its description continues under
/// the description, not under the key; a label too wide for that wraps as plain text.
fn hanging(line: &Line<'static>, width: u16) -> Vec<Line<'static>> {
    use crate::tui::text::wrap::{drawn_width, wrap_line};
    let [label, help] = &line.spans[..] else {
        return wrap_line(line, width);
    };
    let label_w = drawn_width(&Line::from(label.clone()));
    let room = usize::from(width).saturating_sub(label_w);
    if room * 2 < usize::from(width) || drawn_width(line) <= usize::from(width) {
        return wrap_line(line, width);
    }
    let pad = Span::styled(" ".repeat(label_w), label.style);
    wrap_line(&Line::from(help.clone()), room as u16)
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let mut spans = vec![if i == 0 { label.clone() } else { pad.clone() }];
            spans.extend(part.spans);
            Line::from(spans)
        })
        .collect()
}

/// The furthest the help can scroll in `area` (the layout step clamps to it).
pub fn max_scroll(area: Rect, commands: &[CommandRow]) -> u16 {
    let (_, body) = body(area, &Theme::default(), commands);
    let room = area.height.saturating_sub(3) as usize;
    body.len().saturating_sub(room) as u16
}

pub fn draw(f: &mut Frame, area: Rect, scroll: u16, theme: &Theme, commands: &[CommandRow]) {
    if area.width < 4 || area.height < 3 {
        return;
    }
    let (w, mut body) = body(area, theme, commands);
    let room = area.height.saturating_sub(2) as usize;
    if body.len() > room && room >= 2 {
        // One row says what is unseen, so a cut-off list never looks complete.
        let window = room - 1;
        let top = (scroll as usize).min(body.len() - window);
        let below = body.len() - window - top;
        let mut shown: Vec<Line> = body.drain(top..top + window).collect();
        shown.push(Line::styled(
            strings::more_lines(top, below, "↑/↓ PgUp/PgDn"),
            theme.dim,
        ));
        body = shown;
    }
    let h = (body.len() as u16 + 2).min(area.height);
    let rect = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    let block = Block::default()
        .style(theme.base)
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(strings::HELP_TITLE, theme.accent));
    f.render_widget(Clear, rect);
    f.render_widget(Paragraph::new(body).block(block), rect);
}
