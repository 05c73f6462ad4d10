//! What the TUI shows of steering (issue 27): the approval mode (status bar, Shift+Tab,
//! `/approval`), the todo list above the input (Ctrl+T folds it), and the permission rules
//! for `/permissions`. The agent decides; this only mirrors what it said.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use crate::permission::rules::RuleSet;
use crate::protocol::approval_mode::ApprovalMode;
use crate::sanitize::sanitize;
use crate::todo::{TodoItem, TodoStatus, has_open};

/// Rows from which the todo list shows one line per item (below: one line in all).
const FULL_LIST_MIN_HEIGHT: u16 = 30;
/// Items shown at most when unfolded; a "… N more" line says the rest.
const MAX_ITEMS: usize = 8;

#[derive(Debug, Default)]
pub struct Steering {
    pub mode: ApprovalMode,
    pub todos: Vec<TodoItem>,
    /// Ctrl+T: None follows the terminal's size; Some(true) unfolded, Some(false) one line.
    pub unfolded: Option<bool>,
    /// The rules in force: the three files at start, plus "always allow" answers since.
    pub rules: RuleSet,
}

impl Steering {
    /// Ctrl+T: fold an unfolded list, unfold a folded one.
    pub fn toggle_todos(&mut self, screen_height: u16) {
        let now = self.is_unfolded(screen_height);
        self.unfolded = Some(!now);
    }

    fn is_unfolded(&self, screen_height: u16) -> bool {
        self.unfolded
            .unwrap_or(screen_height >= FULL_LIST_MIN_HEIGHT)
    }

    /// Rows the todo list takes this frame (0 while nothing is open).
    pub fn todo_height(&self, screen: Rect) -> u16 {
        if !has_open(&self.todos) || screen.height < 8 {
            return 0;
        }
        if !self.is_unfolded(screen.height) {
            return 1;
        }
        let n = self.todos.len().min(MAX_ITEMS) + usize::from(self.todos.len() > MAX_ITEMS);
        (n as u16 + 1).min(screen.height / 3).max(1)
    }

    pub fn draw_todos(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        if area.height == 0 || area.width == 0 {
            return;
        }
        let width = area.width as usize;
        let lines = if area.height == 1 {
            vec![one_line(&self.todos, width, theme)]
        } else {
            let done = count(&self.todos, TodoStatus::Completed);
            let mut lines = vec![Line::styled(
                fit(
                    &format!(" todo {done}/{} · Ctrl+T fold", self.todos.len()),
                    width,
                ),
                theme.dim,
            )];
            let room = area.height as usize - 1;
            let shown = if self.todos.len() > room {
                room.saturating_sub(1)
            } else {
                self.todos.len()
            };
            for t in self.todos.iter().take(shown) {
                lines.push(item_line(t, width, theme));
            }
            if shown < self.todos.len() {
                lines.push(Line::styled(
                    format!("   … {} more", self.todos.len() - shown),
                    theme.dim,
                ));
            }
            lines
        };
        f.render_widget(Paragraph::new(lines), area);
    }
}

fn count(todos: &[TodoItem], s: TodoStatus) -> usize {
    todos.iter().filter(|t| t.status == s).count()
}

fn style_of(s: TodoStatus, theme: &Theme) -> Style {
    match s {
        TodoStatus::Completed => theme.dim,
        TodoStatus::InProgress => theme.accent.add_modifier(Modifier::BOLD),
        TodoStatus::Pending => theme.text,
    }
}

fn item_line(t: &TodoItem, width: usize, theme: &Theme) -> Line<'static> {
    let text = fit(&format!(" {} {}", t.status.mark(), one(&t.content)), width);
    let mut style = style_of(t.status, theme);
    if t.status == TodoStatus::Completed {
        style = style.add_modifier(Modifier::CROSSED_OUT);
    }
    Line::styled(text, style)
}

/// The folded list: the item in progress (else the next pending one) and the count.
fn one_line(todos: &[TodoItem], width: usize, theme: &Theme) -> Line<'static> {
    let done = count(todos, TodoStatus::Completed);
    let current = todos
        .iter()
        .find(|t| t.status == TodoStatus::InProgress)
        .or_else(|| todos.iter().find(|t| t.status == TodoStatus::Pending));
    let tail = format!(" · {done}/{} done · Ctrl+T", todos.len());
    let head = match current {
        Some(t) => format!(" {} {}", t.status.mark(), one(&t.content)),
        None => " ✓ all done".into(),
    };
    let room = width.saturating_sub(tail.width());
    let style = current.map_or(theme.dim, |t| style_of(t.status, theme));
    Line::from(vec![
        Span::styled(fit(&head, room), style),
        Span::styled(
            fit(&tail, width.saturating_sub(room.min(head.width()))),
            theme.dim,
        ),
    ])
}

/// One line of the model's text, made safe to draw.
fn one(s: &str) -> String {
    sanitize(s).lines().next().unwrap_or("").to_string()
}

/// `s` cut to `width` columns (with … when cut).
fn fit(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// The mode as the status bar shows it, in its own colour.
pub fn mode_span(mode: ApprovalMode, theme: &Theme) -> Span<'static> {
    let style = match mode {
        ApprovalMode::Ask => theme.text,
        ApprovalMode::AutoEdit => theme.ok,
        ApprovalMode::Plan => theme.heading,
        ApprovalMode::Yolo => theme.error,
        ApprovalMode::ReadOnly => theme.warning,
    };
    Span::styled(
        format!("⏵ {}", mode.as_str()),
        style.add_modifier(Modifier::BOLD),
    )
}

/// `/permissions`: the rules by file, then the session's grants.
pub fn rules_listing(
    rules: &RuleSet,
    grants: &std::collections::BTreeSet<String>,
    mode: crate::protocol::approval_mode::ApprovalMode,
) -> String {
    let mut out = String::new();
    let mut sources: Vec<&str> = Vec::new();
    for r in rules.iter() {
        if !sources.contains(&r.source.as_str()) {
            sources.push(&r.source);
        }
    }
    if sources.is_empty() {
        out.push_str(
            "no permission rules (add [permissions] allow/ask/deny to .tooloop/settings.toml)\n",
        );
    }
    for source in sources {
        out.push_str(&format!("{source}:\n"));
        for r in rules.iter().filter(|r| r.source == source) {
            out.push_str(&format!("  {:<5} {}\n", r.kind.as_str(), r.rule.text));
        }
    }
    for u in rules.unused() {
        out.push_str(&format!("unused: {u}\n"));
    }
    out.push_str(&super::strings::session_grants(grants, mode));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn item(c: &str, s: TodoStatus) -> TodoItem {
        TodoItem {
            content: c.into(),
            status: s,
        }
    }

    fn screen(st: &Steering, w: u16, h: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        let area = Rect::new(0, 0, w, h);
        let rows = st.todo_height(area);
        t.draw(|f| st.draw_todos(f, Rect::new(0, 0, w, rows), &Theme::default()))
            .expect("draw");
        let buf = t.backend().buffer().clone();
        (0..rows)
            .map(|y| {
                (0..w)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn one_line_at_80x24_a_list_when_tall_ctrl_t_toggles() {
        let mut st = Steering {
            todos: vec![
                item("读代码", TodoStatus::Completed),
                item("写测试", TodoStatus::InProgress),
                item("ship", TodoStatus::Pending),
            ],
            ..Default::default()
        };
        // A wide character's second cell reads as a space here: compare without spaces.
        let small = screen(&st, 80, 24).replace(' ', "");
        assert_eq!(small.lines().count(), 1, "{small}");
        assert!(small.contains("▸写测试"), "{small}");
        assert!(small.contains("1/3done"), "{small}");
        let tall = screen(&st, 200, 50).replace(' ', "");
        assert!(tall.contains("✓读代码") && tall.contains("○ship"), "{tall}");
        st.toggle_todos(50);
        assert_eq!(screen(&st, 200, 50).lines().count(), 1);
        st.toggle_todos(24);
        assert!(screen(&st, 80, 24).lines().count() > 1);
        st.todos = vec![item("done", TodoStatus::Completed)];
        assert_eq!(
            st.todo_height(Rect::new(0, 0, 80, 24)),
            0,
            "nothing open: hidden"
        );
    }
}
