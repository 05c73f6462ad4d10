//! Markdown → styled lines (pulldown-cmark), fenced code through [`crate::tui::text::highlight`].
//!
//! The output is logical lines (one per paragraph, list item line, code line…), unwrapped:
//! [`crate::tui::text::wrap`] fits them to the pane. Block containers (quotes, list items) become line
//! prefixes, so a nested quote in a list item reads `• │ text`. The renderer is re-run on the
//! text so far while a reply streams; pulldown-cmark closes open blocks at the end of input,
//! so an unclosed fence already renders as code.

mod table;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::sanitize::sanitize;
use crate::tui::text::highlight::highlight;
use crate::tui::theme::Theme;
use table::Table;

/// Containers nested deeper than this add no further prefix (keeps output linear).
const MAX_PREFIX_DEPTH: usize = 16;
/// Width of a horizontal rule in columns.
const RULE_WIDTH: usize = 24;
/// Code block lines are indented by this.
const CODE_INDENT: &str = "  ";

/// Renders markdown into logical (unwrapped) lines. All text is sanitized.
///
/// Blocks are separated by one blank line; headings keep their `#` marker; lists are
/// indented with `• ◦ ▪` bullets or `N.` numbers; quotes get a `│ ` bar; code blocks are
/// highlighted and indented by two spaces; tables become aligned columns split by `│`;
/// links read `text (url)`. Never panics; linear in the input size.
pub fn render(text: &str) -> Vec<Line<'static>> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // Sanitizing first also expands tabs by source column (CommonMark's own tab stops are 4).
    // Text events are sanitized again: entities such as `&#27;` decode to control chars.
    let clean = sanitize(text);
    let mut r = Renderer::default();
    for event in Parser::new_ext(&clean, options) {
        r.event(event);
    }
    r.finish()
}

enum Container {
    Quote,
    Item {
        marker: String,
        width: usize,
        used: bool,
    },
}

struct Link {
    url: String,
    /// The link's visible text, to skip the URL when it only repeats it (autolinks).
    text: String,
    image: bool,
}

#[derive(Default)]
struct Renderer {
    theme: Theme,
    lines: Vec<Line<'static>>,
    /// The line being built, prefix included once opened.
    line: Vec<Span<'static>>,
    line_open: bool,
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// Per open list: the next number (ordered) or None (bullets).
    lists: Vec<Option<u64>>,
    /// A blank line goes before the next block.
    blank_pending: bool,
    links: Vec<Link>,
    /// Fenced or indented code being collected: (language, text).
    code: Option<(String, String)>,
    table: Option<Table>,
}

impl Renderer {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => match &mut self.code {
                Some((_, code)) => code.push_str(&t),
                None => self.text(&t, self.style()),
            },
            Event::Code(t) => {
                let style = self.style().patch(self.theme.code);
                self.text(&t, style);
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                self.text(&t, self.style().patch(self.theme.dim))
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t, self.style()),
            Event::FootnoteReference(t) => self.text(&format!("[^{t}]"), self.style()),
            Event::SoftBreak => self.text(" ", self.style()),
            Event::HardBreak => self.flush_line(),
            Event::Rule => {
                self.start_block();
                self.push(Span::styled("─".repeat(RULE_WIDTH), self.theme.rule));
                self.flush_line();
                self.blank_pending = true;
            }
            Event::TaskListMarker(done) => {
                let mark = if done { "☑ " } else { "☐ " };
                self.push(Span::styled(mark, self.theme.list_marker));
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => self.start_block(),
            Tag::Heading { level, .. } => {
                self.start_block();
                let depth = heading_depth(level);
                let mut style = self.theme.heading;
                if depth == 1 {
                    style = style.add_modifier(Modifier::UNDERLINED);
                }
                self.push(Span::styled(
                    format!("{} ", "#".repeat(depth)),
                    self.theme.heading_marker,
                ));
                self.styles.push(style);
            }
            Tag::BlockQuote(_) => {
                self.start_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.start_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => sanitize(&info),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(first) => {
                self.start_block();
                self.lists.push(first);
            }
            Tag::Item => {
                self.flush_line();
                // Items stay tight even in loose lists: no blank line between them.
                self.blank_pending = false;
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n = n.saturating_add(1);
                        m
                    }
                    _ => {
                        let bullets = ["• ", "◦ ", "▪ "];
                        bullets[self.lists.len().saturating_sub(1) % bullets.len()].to_string()
                    }
                };
                let width = marker.chars().count();
                self.containers.push(Container::Item {
                    marker,
                    width,
                    used: false,
                });
            }
            Tag::Table(alignments) => {
                self.start_block();
                self.table = Some(Table::new(alignments));
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.cell = Some(Vec::new());
                }
            }
            Tag::TableHead | Tag::TableRow => {}
            Tag::Emphasis => self.push_style(Style::default().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::default().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => {
                self.push_style(Style::default().add_modifier(Modifier::CROSSED_OUT))
            }
            Tag::Superscript | Tag::Subscript => self.push_style(Style::default()),
            Tag::Link { dest_url, .. } => {
                self.links.push(Link {
                    url: sanitize(&dest_url),
                    text: String::new(),
                    image: false,
                });
                self.push_style(self.theme.link);
            }
            Tag::Image { dest_url, .. } => {
                self.push(Span::styled("[image: ", self.theme.dim));
                self.links.push(Link {
                    url: sanitize(&dest_url),
                    text: String::new(),
                    image: true,
                });
                self.push_style(self.theme.dim);
            }
            Tag::FootnoteDefinition(label) => {
                self.start_block();
                self.text(&format!("[^{label}]: "), self.theme.dim);
            }
            Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.start_block(),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph
            | TagEnd::HtmlBlock
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => self.end_block(),
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.end_block();
            }
            TagEnd::BlockQuote(_) => {
                self.flush_line();
                self.containers.pop();
                self.blank_pending = true;
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    self.code_block(&code, &lang);
                }
                self.end_block();
            }
            TagEnd::List(_) => {
                self.lists.pop();
                self.end_block();
            }
            TagEnd::Item => {
                // An empty item still shows its marker.
                if matches!(
                    self.containers.last(),
                    Some(Container::Item { used: false, .. })
                ) {
                    self.open_line();
                }
                self.flush_line();
                self.containers.pop();
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    for row in table.layout(self.theme.table_header, self.theme.rule) {
                        for span in row {
                            self.push(span);
                        }
                        self.flush_line();
                        // A row never breaks across lines on a narrow screen (it is cut).
                        if let Some(last) = self.lines.pop() {
                            self.lines.push(crate::tui::text::wrap::one_row(last));
                        }
                    }
                }
                self.end_block();
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.end_header();
                }
            }
            TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    t.end_row();
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    t.end_cell();
                }
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                if let Some(link) = self.links.pop() {
                    self.link_url(link);
                }
            }
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        if let Some((lang, code)) = self.code.take() {
            self.code_block(&code, &lang);
        }
        self.flush_line();
        self.lines
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, add: Style) {
        let style = self.style().patch(add);
        self.styles.push(style);
    }

    /// Sanitized text in `style`; newlines inside it start new lines.
    fn text(&mut self, text: &str, style: Style) {
        let clean = sanitize(text);
        if let Some(link) = self.links.last_mut() {
            link.text.push_str(&clean);
        }
        for (i, part) in clean.split('\n').enumerate() {
            if i > 0 {
                self.flush_line();
            }
            if !part.is_empty() {
                self.push(Span::styled(part.to_string(), style));
            }
        }
    }

    /// Appends a span to the current table cell, or to the current line (opening it).
    fn push(&mut self, span: Span<'static>) {
        if let Some(cell) = self.table.as_mut().and_then(|t| t.cell.as_mut()) {
            cell.push(span);
            return;
        }
        self.open_line();
        match self.line.last_mut() {
            // Merge runs of one style: fewer spans to wrap and draw.
            Some(last) if last.style == span.style => last.content.to_mut().push_str(&span.content),
            _ => self.line.push(span),
        }
    }

    /// Starts the current line with the containers' prefix, if not done yet.
    fn open_line(&mut self) {
        if self.line_open {
            return;
        }
        self.line_open = true;
        for (depth, c) in self.containers.iter_mut().enumerate() {
            match c {
                _ if depth >= MAX_PREFIX_DEPTH => {
                    if let Container::Item { used, .. } = c {
                        *used = true;
                    }
                }
                Container::Quote => self.line.push(Span::styled("│ ", self.theme.quote)),
                Container::Item {
                    marker,
                    width,
                    used,
                } => {
                    if *used {
                        self.line.push(Span::raw(" ".repeat(*width)));
                    } else {
                        *used = true;
                        self.line
                            .push(Span::styled(marker.clone(), self.theme.list_marker));
                    }
                }
            }
        }
    }

    fn flush_line(&mut self) {
        if self.line_open || !self.line.is_empty() {
            self.lines.push(Line::from(std::mem::take(&mut self.line)));
        }
        self.line_open = false;
    }

    fn start_block(&mut self) {
        self.flush_line();
        if self.blank_pending && !self.lines.is_empty() {
            self.blank_line();
        }
        self.blank_pending = false;
    }

    fn end_block(&mut self) {
        self.flush_line();
        self.blank_pending = true;
    }

    /// An empty line that keeps the quote bars of the containers it sits in.
    fn blank_line(&mut self) {
        let mut spans = Vec::new();
        let mut pad = 0;
        for c in self.containers.iter().take(MAX_PREFIX_DEPTH) {
            match c {
                Container::Quote => {
                    if pad > 0 {
                        spans.push(Span::raw(" ".repeat(pad)));
                    }
                    spans.push(Span::styled("│", self.theme.quote));
                    // The space after the bar, only written if another bar follows.
                    pad = 1;
                }
                Container::Item { width, .. } => pad += width,
            }
        }
        self.lines.push(Line::from(spans));
    }

    fn code_block(&mut self, code: &str, lang: &str) {
        for line in highlight(code, lang) {
            self.open_line();
            self.line.push(Span::raw(CODE_INDENT));
            for span in line.spans {
                let style = self.theme.code.patch(span.style);
                self.line.push(span.style(style));
            }
            self.flush_line();
        }
    }

    /// After a link's text: ` (url)` unless the text already is the URL.
    fn link_url(&mut self, link: Link) {
        let url = link.url.trim();
        let text = link.text.trim();
        let redundant = url.is_empty()
            || url == text
            || url.strip_prefix("mailto:") == Some(text)
            || (!text.is_empty() && url.trim_end_matches('/') == text.trim_end_matches('/'));
        if link.image {
            self.push(Span::styled("]", self.theme.dim));
        }
        if !redundant || (link.image && !url.is_empty()) {
            self.push(Span::styled(format!(" ({url})"), self.theme.link_url));
        }
    }
}

fn heading_depth(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests;
