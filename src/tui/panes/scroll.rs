//! A scroll position counted from the bottom: 0 means "follow new output".

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scroll {
    from_bottom: usize,
    /// The largest useful offset at the last draw, so keys clamp against what is on screen.
    max: usize,
    page: usize,
    /// Lines arrived below the view since the user scrolled up ("↓ new output").
    new_below: bool,
}

impl Scroll {
    /// The visible range of `total` lines in `height` rows.
    pub fn window(&mut self, total: usize, height: usize) -> (usize, usize) {
        self.max = total.saturating_sub(height);
        self.page = height.max(1);
        let off = self.from_bottom.min(self.max);
        let end = total - off;
        (end.saturating_sub(height), end)
    }

    pub fn follows(&self) -> bool {
        self.from_bottom == 0
    }

    /// Whether output arrived below a view scrolled up, and is not yet seen.
    pub fn new_below(&self) -> bool {
        self.new_below && self.from_bottom.min(self.max) > 0
    }

    pub fn up(&mut self, n: usize) {
        self.from_bottom = self
            .from_bottom
            .min(self.max)
            .saturating_add(n)
            .min(self.max);
    }

    pub fn down(&mut self, n: usize) {
        self.from_bottom = self.from_bottom.min(self.max).saturating_sub(n);
        if self.from_bottom == 0 {
            self.new_below = false;
        }
    }

    pub fn page_up(&mut self) {
        self.up(self.page.saturating_sub(1).max(1));
    }

    pub fn page_down(&mut self) {
        self.down(self.page.saturating_sub(1).max(1));
    }

    pub fn top(&mut self) {
        self.from_bottom = usize::MAX;
    }

    pub fn bottom(&mut self) {
        self.from_bottom = 0;
        self.new_below = false;
    }

    /// Scrolls the least so that lines `top..bottom` of `total` are in a `height`-row view
    /// (the top wins when the range is taller than the view).
    pub fn reveal(&mut self, top: usize, bottom: usize, total: usize, height: usize) {
        let off = self.from_bottom.min(total.saturating_sub(height));
        let end = total - off;
        let start = end.saturating_sub(height);
        if bottom > end {
            self.from_bottom = total.saturating_sub(bottom);
        }
        if top < start || bottom.saturating_sub(top) > height {
            self.from_bottom = total.saturating_sub(top + height);
        }
    }

    /// Keeps the view still while `added` lines arrive below it (when not following).
    pub fn grew(&mut self, added: usize) {
        if self.from_bottom != 0 && self.from_bottom != usize::MAX {
            self.from_bottom = self.from_bottom.saturating_add(added);
            self.new_below |= added > 0;
        }
    }
}

/// "↓ new output" on the bottom row of a pane scrolled up while output arrived.
pub fn draw_new_output(
    f: &mut ratatui::Frame,
    area: ratatui::layout::Rect,
    theme: &crate::tui::theme::Theme,
) {
    let label = crate::tui::strings::NEW_OUTPUT;
    let w = unicode_width::UnicodeWidthStr::width(label) as u16;
    if area.height == 0 || area.width < w {
        return;
    }
    let at = ratatui::layout::Rect {
        x: area.x + area.width - w,
        y: area.y + area.height - 1,
        width: w,
        height: 1,
    };
    f.render_widget(
        ratatui::widgets::Paragraph::new(ratatui::text::Span::styled(label, theme.accent))
            .style(theme.base),
        at,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_until_scrolled_up() {
        let mut s = Scroll::default();
        assert_eq!(s.window(100, 10), (90, 100));
        s.up(5);
        assert!(!s.follows());
        assert_eq!(s.window(100, 10), (85, 95));
        assert!(!s.new_below());
        s.grew(3);
        assert_eq!(s.window(103, 10), (85, 95));
        assert!(s.new_below());
        s.bottom();
        assert!(!s.new_below());
        assert_eq!(s.window(103, 10), (93, 103));
        s.top();
        assert_eq!(s.window(103, 10), (0, 10));
        assert_eq!(s.window(5, 10), (0, 5));
    }
}
