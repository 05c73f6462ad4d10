//! An assistant answer that is still arriving. Finished paragraphs (text up to a blank line
//! outside a code fence) are rendered and wrapped once; only the tail after them is rendered
//! again, and at most once per frame — so a long answer never costs a full re-render per
//! delta.

use ratatui::text::Line;

use crate::sanitize::sanitize;
use crate::tui::text::markdown;
use crate::tui::text::wrap::wrap;

#[derive(Default)]
pub struct StreamingMarkdown {
    text: String,
    streaming: bool,
    /// Byte offset up to which complete lines were scanned for fences and blank lines.
    scanned: usize,
    in_fence: bool,
    /// text[..boundary] ends at a blank line outside a fence: safe to render on its own.
    boundary: usize,
    /// After a blank line: where the boundary goes if the next line starts a new block.
    pending: Option<usize>,
    /// text[..stable_len] is in `stable`.
    stable_len: usize,
    stable: Vec<Line<'static>>,
    stable_wrapped: Option<(u16, Vec<Line<'static>>)>,
    tail_wrapped: Option<(u16, Vec<Line<'static>>)>,
    /// A finished answer far from the view gave up its rendered lines (`evict`); the next
    /// `prepare` renders the text again.
    evicted: bool,
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
        // It grew delta by delta; it is kept for the life of the session.
        self.text.shrink_to_fit();
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

    /// Frees the wrapped lines of a finished answer (it is far from the view), and its
    /// rendered lines too unless it holds fenced code: highlighting is the one costly part of
    /// rendering, and a resize must measure every answer again. The text stays, and `prepare`
    /// renders and wraps it again when it comes back into view. A streaming answer keeps
    /// everything (its paragraphs are rendered once, as they end).
    pub fn evict(&mut self) {
        if self.streaming || self.evicted {
            return;
        }
        self.stable_wrapped = None;
        self.tail_wrapped = None;
        if !(self.text.contains("```") || self.text.contains("~~~")) {
            self.stable = Vec::new();
            self.evicted = true;
        }
    }

    /// Whether `prepare(width)` would have nothing to do.
    pub fn is_prepared(&self, width: u16) -> bool {
        let width = width.max(1);
        let pending = self.streaming && self.boundary > self.stable_len;
        !self.evicted
            && !pending
            && matches!(&self.stable_wrapped, Some((w, _)) if *w == width)
            && (!self.streaming || matches!(&self.tail_wrapped, Some((w, _)) if *w == width))
    }

    /// A blank line outside a fence ends a block, but it becomes a boundary only when the
    /// next line starts a new block at the margin: a list item or an indented line after it
    /// continues a (loose) list, which must be rendered whole or its spacing changes when
    /// the answer ends.
    fn scan(&mut self) {
        while let Some(nl) = self.text[self.scanned..].find('\n') {
            let line = &self.text[self.scanned..self.scanned + nl];
            let t = line.trim_start();
            let blank = t.trim().is_empty();
            if !self.in_fence
                && !blank
                && let Some(p) = self.pending.take()
                && !continues_a_block(line)
            {
                self.boundary = p;
            }
            if t.starts_with("```") || t.starts_with("~~~") {
                self.in_fence = !self.in_fence;
            } else if blank && !self.in_fence {
                self.pending = Some(self.scanned + nl + 1);
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
        if std::mem::take(&mut self.evicted) {
            // Rendered as `finish` did: the whole text at once.
            self.stable = markdown::render(&sanitize(&self.text));
        }
        if self.streaming && self.boundary > self.stable_len {
            let chunk = sanitize(&self.text[self.stable_len..self.boundary]);
            let mut rendered = markdown::render(&chunk);
            // Only the new lines need wrapping; append them to the wrapped cache as well
            // (the blank line between blocks included, as the whole render has it).
            let start = self.stable.len();
            if !rendered.is_empty() && self.stable.last().is_some_and(|l| l.width() > 0) {
                self.stable.push(Line::default());
            }
            if let Some((w, wrapped)) = &mut self.stable_wrapped {
                if *w == width {
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

/// Whether a line after a blank line goes on with the block before it: indented (a list
/// item's paragraph, nested list, indented code) or a list item of its own.
fn continues_a_block(line: &str) -> bool {
    if line.starts_with([' ', '\t']) {
        return true;
    }
    if line.starts_with("- ") || line.starts_with("* ") || line.starts_with("+ ") {
        return true;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
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

    #[test]
    fn an_evicted_answer_renders_the_same_again_and_a_streaming_one_is_kept() {
        let text = "# 标题\n\nSome **bold** text.\n\n```rust\nfn a() {}\n```\n\n- one\n- two";
        let plain = "# 标题\n\nSome **bold** text.\n\n- one\n- two";
        for t in [text, plain] {
            let mut md = StreamingMarkdown::finished(t);
            let before = all(&mut md, 30);
            md.evict();
            assert!(!md.is_prepared(30));
            assert_eq!(md.prepared().0.len(), 0, "the lines were freed");
            assert_eq!(
                md.stable.is_empty(),
                t == plain,
                "highlighted code is kept unwrapped"
            );
            assert_eq!(all(&mut md, 30), before);
            assert!(md.is_prepared(30));
        }
        let mut live = StreamingMarkdown::streaming();
        live.push("first\n\nsecond");
        let before = all(&mut live, 30);
        live.evict();
        assert_eq!(
            live.prepared().0.len() + live.prepared().1.len(),
            before.len()
        );
    }

    /// Every line is where it will be when the answer ends: streamed block by block (one
    /// character per delta, a frame after each) equals the whole render.
    #[test]
    fn finishing_moves_no_line() {
        let samples = [
            "# Title\n\nSome text.\n\n- one\n- two\n\nMore.\n\n```rust\nfn a() {}\n```\n\nEnd.",
            "Intro:\n\n1. first\n\n2. second\n\n3. third\n\nDone.",
            "> quote\n\nafter quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nafter table",
            "## H\nText right after\n\n---\n\nrule above",
            "Para\n\n```\ncode\n```\nText after fence\n\nlast",
            "- a\n  - nested\n\n- b\n\ntext",
        ];
        for s in samples {
            let mut md = StreamingMarkdown::streaming();
            for c in s.chars() {
                md.push(&c.to_string());
                let _ = md.lines(60);
            }
            let streamed = all(&mut md, 60);
            md.finish();
            assert_eq!(streamed, all(&mut md, 60), "{s:?}");
        }
    }
}
