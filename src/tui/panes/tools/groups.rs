//! The tools pane's rows grouped by prompt: a header per prompt ("▾ prompt 3 · fix the bug…
//! · 4 tools") above its calls. The current prompt's group is open; older ones show only
//! their header until Enter (in the focused pane) opens them all.
//!
//! What the list shows is kept as a list of items, changed as calls arrive and rebuilt only
//! when the grouping changes (a toggle, old rows trimmed): a frame looks at the items it
//! draws, never at every call.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::sanitize::sanitize;
use crate::tui::text::fit::fit;
use crate::tui::theme::Theme;

/// Characters of a prompt kept for its header (the header shows its first line, cut).
const HEADER_CHARS: usize = 200;

#[derive(Clone, Debug)]
struct Group {
    /// Counted from 1 since the conversation began.
    number: usize,
    /// The prompt's first line, sanitized.
    text: String,
    /// Its calls are rows[first..first + count].
    first: usize,
    count: usize,
}

/// One line of the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// The header of groups[i].
    Header(usize),
    /// rows[i].
    Call(usize),
}

#[derive(Default)]
pub struct ToolGroups {
    groups: Vec<Group>,
    items: Vec<Item>,
    /// Older prompts show their calls too (else only their headers).
    pub expand_older: bool,
    /// Prompts seen since the conversation began (numbers the next group).
    seen: usize,
    /// Groups were forgotten: rows before the first group belong to old prompts (shown
    /// only with the older ones), not to hooks that ran before any prompt.
    dropped: bool,
}

impl ToolGroups {
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    pub fn clear(&mut self) {
        *self = ToolGroups::default();
    }

    /// The list's `window` moved, if need be, so that the newest row `active` says is still
    /// at work is in it (issue 41, item 1: at 80×24 a child waiting for approval or running
    /// was scrolled off under its siblings' finished rows). Same height; unchanged when
    /// every active row is already in it.
    pub fn keep_active_in_sight(
        &self,
        window: (usize, usize),
        active: impl Fn(usize) -> bool,
    ) -> (usize, usize) {
        let (start, end) = window;
        let h = end - start;
        if h == 0 {
            return window;
        }
        let call_active = |i: &usize| matches!(self.items[*i], Item::Call(r) if active(r));
        let Some(last) = (0..self.items.len()).rev().find(call_active) else {
            return window;
        };
        if (0..self.items.len())
            .filter(call_active)
            .all(|i| (start..end).contains(&i))
        {
            return window;
        }
        let end = (last + 1).max(h).min(self.items.len());
        (end - h, end)
    }

    /// A prompt begins; its calls will start at row `rows`. The previous prompt's group
    /// closes (unless older ones are shown open).
    pub fn begin(&mut self, text: &str, rows: usize) {
        if !self.expand_older
            && let Some(last) = self.groups.last()
        {
            // Its calls are the last items; its header stays.
            let keep = self.items.len().saturating_sub(last.count);
            self.items.truncate(keep);
        }
        self.seen += 1;
        let line = text.lines().map(str::trim).find(|l| !l.is_empty());
        let text: String = sanitize(line.unwrap_or(""))
            .chars()
            .take(HEADER_CHARS)
            .collect();
        self.groups.push(Group {
            number: self.seen,
            text,
            first: rows,
            count: 0,
        });
        if self.groups.len() > 2 * crate::tui::panes::tools::MAX_ROWS {
            // Prompts without calls never get a row trimmed with them: forget the oldest
            // half at once (a long resumed history rebuilds a few times, not per prompt).
            let cut = self.groups.len() - crate::tui::panes::tools::MAX_ROWS;
            self.groups.drain(..cut);
            self.dropped = true;
            self.rebuild(rows);
        }
    }

    /// rows[row] was added (the newest row).
    pub fn add(&mut self, row: usize) {
        let last = self.groups.len().saturating_sub(1);
        // Calls before any prompt (a resumed history's hooks, say) stand alone.
        if let Some(g) = self.groups.last_mut()
            && g.first + g.count == row
        {
            if g.count == 0 {
                self.items.push(Item::Header(last));
            }
            g.count += 1;
        }
        self.items.push(Item::Call(row));
    }

    /// A row was inserted inside the current prompt's calls (a subagent's call under the
    /// `task` row that started it); `rows` is the new count.
    pub fn inserted(&mut self, rows: usize) {
        if let Some(g) = self.groups.last_mut() {
            g.count += 1;
        }
        self.rebuild(rows);
    }

    /// The first `cut` rows were dropped; `rows` remain.
    pub fn trimmed(&mut self, cut: usize, rows: usize) {
        self.groups.retain_mut(|g| {
            let end = g.first + g.count;
            if end <= cut && g.count > 0 {
                return false;
            }
            let first = g.first.max(cut);
            g.count = end.max(cut) - first;
            g.first = first - cut;
            true
        });
        self.rebuild(rows);
    }

    /// Opens or closes the older prompts' groups.
    pub fn toggle(&mut self, rows: usize) {
        self.expand_older = !self.expand_older;
        self.rebuild(rows);
    }

    fn rebuild(&mut self, rows: usize) {
        self.items.clear();
        let grouped_from = self.groups.first().map_or(rows, |g| g.first);
        if !self.dropped || self.expand_older {
            self.items
                .extend((0..grouped_from.min(rows)).map(Item::Call));
        }
        let last = self.groups.len().saturating_sub(1);
        for (i, g) in self.groups.iter().enumerate() {
            if g.count == 0 {
                continue;
            }
            self.items.push(Item::Header(i));
            if i == last || self.expand_older {
                let end = (g.first + g.count).min(rows);
                self.items.extend((g.first..end).map(Item::Call));
            }
        }
    }

    /// "▾ prompt 3 · fix the bug… · 4 tools", cut to `width`.
    pub fn header(&self, i: usize, width: u16, theme: &Theme) -> Line<'static> {
        let Some(g) = self.groups.get(i) else {
            return Line::default();
        };
        let open = i + 1 == self.groups.len() || self.expand_older;
        let icon = if open { "▾" } else { "▸" };
        let tools = if g.count == 1 { "tool" } else { "tools" };
        let head = format!("{icon} prompt {} · ", g.number);
        let tail = format!(" · {} {tools}", g.count);
        let room = (width as usize).saturating_sub(head.width() + tail.width());
        let style = theme.dim.add_modifier(Modifier::BOLD);
        if room < 4 {
            return Line::from(vec![
                Span::styled(format!("{icon} prompt {}", g.number), style),
                Span::styled(tail, style),
            ]);
        }
        Line::from(vec![
            Span::styled(head, style),
            Span::styled(fit(&g.text, room), theme.dim),
            Span::styled(tail, style),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(g: &ToolGroups) -> Vec<usize> {
        g.items()
            .iter()
            .filter_map(|i| match i {
                Item::Call(r) => Some(*r),
                Item::Header(_) => None,
            })
            .collect()
    }

    #[test]
    fn older_groups_close_and_open_again() {
        let mut g = ToolGroups::default();
        g.add(0); // before any prompt
        g.begin("first\nsecond line", 1);
        g.add(1);
        g.add(2);
        g.begin("no tools here", 3);
        g.begin("third", 3);
        g.add(3);
        assert_eq!(
            g.items(),
            [
                Item::Call(0),
                Item::Header(0),
                Item::Header(2),
                Item::Call(3)
            ]
        );
        g.toggle(4);
        assert_eq!(calls(&g), [0, 1, 2, 3]);
        assert_eq!(g.items().len(), 6, "no header for the prompt without calls");
        g.toggle(4);
        assert_eq!(calls(&g), [0, 3]);
        let theme = Theme::default();
        let text = |l: Line| {
            l.spans
                .iter()
                .map(|s| s.content.to_string())
                .collect::<String>()
        };
        assert_eq!(
            text(g.header(0, 80, &theme)),
            "▸ prompt 1 · first · 2 tools"
        );
        assert_eq!(text(g.header(2, 80, &theme)), "▾ prompt 3 · third · 1 tool");
        assert_eq!(text(g.header(0, 20, &theme)), "▸ prompt 1 · 2 tools");
    }

    #[test]
    fn many_prompts_keep_a_bounded_number_of_groups() {
        let mut g = ToolGroups::default();
        let limit = crate::tui::panes::tools::MAX_ROWS;
        for p in 0..5 * limit {
            g.begin("p", p);
            g.add(p);
        }
        assert!(g.groups.len() <= 2 * limit);
        let last = g.groups.last().expect("groups");
        assert_eq!(last.number, 5 * limit);
        // Closed: one header per kept group, the last one's call.
        assert_eq!(g.items().len(), g.groups.len() + 1);
        assert_eq!(g.items().last(), Some(&Item::Call(5 * limit - 1)));
    }

    #[test]
    fn trimming_keeps_what_is_left_of_a_group() {
        let mut g = ToolGroups::default();
        g.begin("a", 0);
        (0..3).for_each(|r| g.add(r));
        g.begin("b", 3);
        (3..5).for_each(|r| g.add(r));
        g.begin("c", 5);
        g.trimmed(4, 1);
        assert_eq!(g.groups.len(), 2, "a is gone");
        assert_eq!((g.groups[0].first, g.groups[0].count), (0, 1));
        assert_eq!(g.groups[1].first, 1);
        // The last group (c) has no calls yet: b is closed to its header.
        assert_eq!(g.items(), [Item::Header(0)]);
    }

    #[test]
    fn a_running_row_above_the_window_is_brought_into_it() {
        // A header and six calls: rows 2 and 3 run, a two-row window at the bottom.
        let mut g = ToolGroups::default();
        g.begin("split", 0);
        (0..6).for_each(|r| g.add(r));
        let running = |r: usize| r == 2 || r == 3;
        assert_eq!(g.keep_active_in_sight((5, 7), running), (3, 5));
        // Already in sight, or nothing running, or no room: unchanged.
        assert_eq!(g.keep_active_in_sight((2, 7), running), (2, 7));
        assert_eq!(g.keep_active_in_sight((5, 7), |_| false), (5, 7));
        assert_eq!(g.keep_active_in_sight((7, 7), running), (7, 7));
        // The newest running row wins: a window of one shows row 3.
        assert_eq!(g.keep_active_in_sight((6, 7), running), (4, 5));
    }
}
