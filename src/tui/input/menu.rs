//! The menu above the input: slash commands as `/` is typed (filtered with every key, one
//! line of description each) and path candidates after `@` + Tab. A leaf: it holds the
//! candidates and the selection, filters and draws; `update/compose.rs` decides what a
//! key means and what picking an entry does.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::tui::text::fit::fit;
use crate::tui::theme::Theme;

/// Rows the menu shows at most; the selection scrolls it.
pub const MAX_ROWS: usize = 8;
/// Columns it takes at most (on a wide terminal a full-width menu is hard to read).
const MAX_WIDTH: u16 = 100;

/// A command the menu can offer: a built-in or one from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandEntry {
    /// Without the slash.
    pub name: String,
    /// Written after the name ("[FILE]").
    pub args: String,
    pub help: String,
    /// Picking it sends at once (nothing more to type).
    pub runs_bare: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuKind {
    Commands,
    Paths,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MenuItem {
    /// What the row shows first ("/export [FILE]", "src/").
    pub label: String,
    pub detail: String,
    /// The input's text once this item is picked.
    pub text: String,
    /// Picking it with Enter sends the input.
    pub runs: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Menu {
    pub kind: MenuKind,
    pub items: Vec<MenuItem>,
    pub selected: usize,
    /// The input's text the menu was made for: a path menu closes when it changes.
    pub made_for: String,
}

impl Menu {
    pub fn select_next(&mut self) {
        self.selected = (self.selected + 1) % self.items.len().max(1);
    }

    pub fn select_prev(&mut self) {
        let n = self.items.len().max(1);
        self.selected = (self.selected + n - 1) % n;
    }

    pub fn picked(&self) -> Option<&MenuItem> {
        self.items.get(self.selected)
    }

    /// Rows it takes above the input.
    pub fn height(&self) -> u16 {
        self.items.len().min(MAX_ROWS) as u16
    }

    /// Draws the menu on the rows just above `input` (over the bottom of the conversation).
    pub fn draw(&self, f: &mut Frame, input: Rect, theme: &Theme) {
        let h = self.height().min(input.y);
        if h == 0 || input.width < 4 {
            return;
        }
        let area = Rect {
            x: input.x,
            y: input.y - h,
            width: input.width.min(MAX_WIDTH),
            height: h,
        };
        let rows = h as usize;
        let top = (self.selected + 1).saturating_sub(rows);
        let label_w = self
            .items
            .iter()
            .map(|i| clean(&i.label).width())
            .max()
            .unwrap_or(0)
            .min(area.width as usize / 2);
        let width = area.width as usize;
        let lines: Vec<Line> = self
            .items
            .iter()
            .enumerate()
            .skip(top)
            .take(rows)
            .map(|(i, item)| {
                let label = fit(&clean(&item.label), label_w);
                let pad = label_w.saturating_sub(label.width());
                let head = format!(" {label}{}  ", " ".repeat(pad));
                let room = width.saturating_sub(head.width() + 1);
                let detail = fit(&clean(&item.detail), room);
                let fill = width.saturating_sub(head.width() + detail.width());
                let (head_style, detail_style) = if i == self.selected {
                    (theme.selection, theme.selection)
                } else {
                    (theme.accent, theme.dim)
                };
                Line::from(vec![
                    Span::styled(head, head_style),
                    Span::styled(detail, detail_style),
                    Span::styled(" ".repeat(fill), detail_style),
                ])
            })
            .collect();
        f.render_widget(Clear, area);
        f.render_widget(Paragraph::new(lines).style(theme.base), area);
    }
}

/// What the input's helpers keep between keys (`App::compose`); `update/compose.rs` acts.
#[derive(Debug, Default)]
pub struct ComposeState {
    pub menu: Option<Menu>,
    /// The text the menu was closed on with Esc: it stays closed until the text changes.
    pub dismissed: Option<String>,
    /// Commands from `.tooloop/commands/*.md` and the like, read when `/` is typed.
    pub file_commands: Vec<crate::prompt::commands::FileCommand>,
    /// The input holds a queued prompt taken back with ↑ (Esc drops it).
    pub editing_queued: bool,
    /// Ctrl+G was pressed: the event loop hands the terminal to the editor.
    pub editor_requested: bool,
}

/// A file name may hold control characters: none reaches the terminal.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// The commands for what was typed after the slash: names starting with it first (in the
/// table's order), then names containing it; case is ignored.
pub fn filter<'a>(commands: &'a [CommandEntry], typed: &str) -> Vec<&'a CommandEntry> {
    let typed = typed.to_lowercase();
    let name = |c: &CommandEntry| c.name.to_lowercase();
    let mut out: Vec<&CommandEntry> = commands
        .iter()
        .filter(|c| name(c).starts_with(&typed))
        .collect();
    out.extend(
        commands
            .iter()
            .filter(|c| !name(c).starts_with(&typed) && name(c).contains(&typed)),
    );
    out
}

/// The command menu for the input's text, if it is a slash word being typed (one line, no
/// space yet) that some command matches.
pub fn for_commands(commands: &[CommandEntry], text: &str) -> Option<Menu> {
    let typed = text.strip_prefix('/')?;
    if typed.contains(char::is_whitespace) || typed.contains('/') {
        return None;
    }
    let items: Vec<MenuItem> = filter(commands, typed)
        .into_iter()
        .map(|c| MenuItem {
            label: format!("/{} {}", c.name, c.args).trim_end().to_string(),
            detail: c.help.clone(),
            text: if c.runs_bare {
                format!("/{}", c.name)
            } else {
                format!("/{} ", c.name)
            },
            runs: c.runs_bare,
        })
        .collect();
    (!items.is_empty()).then(|| Menu {
        kind: MenuKind::Commands,
        items,
        selected: 0,
        made_for: text.to_string(),
    })
}

/// The longest prefix all `names` share (by characters).
pub fn common_prefix(names: &[String]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    let mut end = first.len();
    for n in names {
        let same = first
            .char_indices()
            .zip(n.chars())
            .find(|((_, a), b)| a != b)
            .map_or(first.len().min(n.len()), |((i, _), _)| i);
        end = end.min(same);
    }
    first[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, runs_bare: bool) -> CommandEntry {
        CommandEntry {
            name: name.into(),
            args: if runs_bare { "" } else { "[FILE]" }.into(),
            help: format!("what {name} does"),
            runs_bare,
        }
    }

    #[test]
    fn the_filter_puts_prefixes_first_then_substrings() {
        let cmds = [
            entry("export", false),
            entry("exit", true),
            entry("new", true),
            entry("next-ex", true),
        ];
        let names =
            |t: &str| -> Vec<String> { filter(&cmds, t).iter().map(|c| c.name.clone()).collect() };
        assert_eq!(names("ex"), ["export", "exit", "next-ex"]);
        assert_eq!(names("EXI"), ["exit"]);
        assert_eq!(names("").len(), 4);
        assert!(names("zz").is_empty());
    }

    #[test]
    fn the_menu_is_for_a_slash_word_being_typed() {
        let cmds = [entry("export", false), entry("exit", true)];
        let menu = for_commands(&cmds, "/ex").expect("menu");
        assert_eq!(menu.items[0].label, "/export [FILE]");
        assert_eq!(menu.items[0].text, "/export ");
        assert!(!menu.items[0].runs);
        assert_eq!(menu.items[1].text, "/exit");
        assert!(menu.items[1].runs);
        assert!(
            for_commands(&cmds, "/export x").is_none(),
            "arguments: closed"
        );
        assert!(for_commands(&cmds, "/etc/hosts").is_none(), "a path");
        assert!(for_commands(&cmds, "/zz").is_none(), "nothing matches");
        assert!(for_commands(&cmds, "ex").is_none());
    }

    #[test]
    fn selection_wraps_both_ways() {
        let cmds = [entry("a", true), entry("b", true)];
        let mut menu = for_commands(&cmds, "/").expect("menu");
        menu.select_prev();
        assert_eq!(menu.selected, 1);
        menu.select_next();
        assert_eq!(menu.selected, 0);
    }

    #[test]
    fn common_prefixes_by_characters() {
        let names = ["src/中文a".to_string(), "src/中文b".to_string()];
        assert_eq!(common_prefix(&names), "src/中文");
        assert_eq!(common_prefix(&["ab".into(), "a".into()]), "a");
        assert_eq!(common_prefix(&[]), "");
    }
}
