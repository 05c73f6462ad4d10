//! An assistant answer that is still arriving. Finished paragraphs (text up to a blank line
//! outside a code fence) are rendered and wrapped once; only the tail after them is rendered
//! again, and at most once per frame — so a long answer never costs a full re-render per
//! delta.

use ratatui::text::Line;

use super::markdown;
use super::sanitize::sanitize;
use super::wrap::wrap;

#[derive(Default)]
pub struct StreamingMarkdown {
    text: String,
    streaming: bool,
    /// Byte offset up to which complete lines were scanned for fences and blank lines.
    scanned: usize,
    in_fence: bool,
    /// text[..boundary] ends at a blank line outside a fence: safe to render on its own.
    boundary: usize,
    /// text[..stable_len] is in `stable`.
    stable_len: usize,
    stable: Vec<Line<'static>>,
    stable_wrapped: Option<(u16, Vec<Line<'static>>)>,
    tail_wrapped: Option<(u16, Vec<Line<'static>>)>,
}

impl StreamingMarkdown {
    pub fn streaming() -> Self {
        StreamingMarkdown {
            streaming: true,
            ..Default::default()
        }
    }

    pub fn finished(text: &str) -> Self {
        let mut md = StreamingMarkdown::streaming();
        md.push(text);
        md.finish();
        md
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_streaming(&self) -> bool {
        self.streaming
    }

    pub fn push(&mut self, delta: &str) {
        self.text.push_str(delta);
        self.tail_wrapped = None;
        self.scan();
    }

    /// The answer is complete: render it whole once, so the result does not depend on where
    /// the paragraphs were cut while streaming.
    pub fn finish(&mut self) {
        if !self.streaming {
            return;
        }
        self.streaming = false;
        self.stable = markdown::render(&sanitize(&self.text));
        self.stable_len = self.text.len();
        self.stable_wrapped = None;
        self.tail_wrapped = None;
    }

    /// Drops width-dependent caches (on resize).
    pub fn invalidate(&mut self) {
        self.stable_wrapped = None;
        self.tail_wrapped = None;
    }

    fn scan(&mut self) {
        while let Some(nl) = self.text[self.scanned..].find('\n') {
            let line = &self.text[self.scanned..self.scanned + nl];
            let t = line.trim_start();
            if t.starts_with("```") || t.starts_with("~~~") {
                self.in_fence = !self.in_fence;
            } else if t.trim().is_empty() && !self.in_fence {
                self.boundary = self.scanned + nl + 1;
            }
            self.scanned += nl + 1;
        }
    }

    /// Prepares and returns the wrapped lines at `width`.
    pub fn lines(&mut self, width: u16) -> (&[Line<'static>], &[Line<'static>]) {
        self.prepare(width);
        self.prepared()
    }

    /// Renders what became stable and wraps for `width` (the layout step of a frame).
    pub fn prepare(&mut self, width: u16) {
        let width = width.max(1);
        if self.streaming && self.boundary > self.stable_len {
            let chunk = sanitize(&self.text[self.stable_len..self.boundary]);
            let mut rendered = markdown::render(&chunk);
            if !rendered.is_empty() && self.stable.last().is_some_and(|l| l.width() > 0) {
                self.stable.push(Line::default());
            }
            // Only the new lines need wrapping; append them to the wrapped cache as well.
            if let Some((w, wrapped)) = &mut self.stable_wrapped {
                if *w == width {
                    let start = self.stable.len();
                    self.stable.append(&mut rendered);
                    wrapped.extend(wrap(&self.stable[start..], width));
                } else {
                    self.stable.append(&mut rendered);
                    self.stable_wrapped = None;
                }
            } else {
                self.stable.append(&mut rendered);
            }
            self.stable_len = self.boundary;
            self.tail_wrapped = None;
        }
        if !matches!(&self.stable_wrapped, Some((w, _)) if *w == width) {
            self.stable_wrapped = Some((width, wrap(&self.stable, width)));
        }
        if self.streaming && !matches!(&self.tail_wrapped, Some((w, _)) if *w == width) {
            let tail = &self.text[self.stable_len..];
            let mut lines = if tail.trim().is_empty() {
                Vec::new()
            } else {
                markdown::render(&sanitize(tail))
            };
            if !lines.is_empty()
                && !self.stable.is_empty()
                && self.stable.last().is_some_and(|l| l.width() > 0)
            {
                lines.insert(0, Line::default());
            }
            self.tail_wrapped = Some((width, wrap(&lines, width)));
        }
    }

    /// The lines from the last `prepare`, as (stable, streaming tail).
    pub fn prepared(&self) -> (&[Line<'static>], &[Line<'static>]) {
        let stable = self
            .stable_wrapped
            .as_ref()
            .map(|(_, l)| l.as_slice())
            .unwrap_or(&[]);
        let tail = if self.streaming {
            self.tail_wrapped
                .as_ref()
                .map(|(_, l)| l.as_slice())
                .unwrap_or(&[])
        } else {
            &[]
        };
        (stable, tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(md: &mut StreamingMarkdown, w: u16) -> Vec<String> {
        let (a, b) = md.lines(w);
        a.iter().chain(b).map(|l| l.to_string()).collect()
    }

    #[test]
    fn paragraphs_become_stable_but_fenced_blank_lines_do_not_split() {
        let mut md = StreamingMarkdown::streaming();
        md.push("first para\n\n```rust\nfn a() {}\n\nfn b() {}\n");
        let _ = md.lines(40);
        assert_eq!(md.stable_len, "first para\n\n".len());
        md.push("```\n\nafter\n");
        let _ = md.lines(40);
        assert!(md.stable_len > "first para\n\n".len());
        let text = all(&mut md, 40).join("\n");
        assert!(text.contains("fn b() {}"), "{text}");
        assert!(text.contains("after"), "{text}");
    }

    #[test]
    fn finishing_renders_everything() {
        let mut md = StreamingMarkdown::streaming();
        md.push("a\n\nb");
        md.finish();
        let text = all(&mut md, 20).join("\n");
        assert!(text.contains('a') && text.contains('b'));
    }
}
