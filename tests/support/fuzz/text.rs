//! `markdown_wrap` and `sanitize`: text a model or a tool wrote, on its way to the terminal.

use ratatui::text::Line;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use tooloop::sanitize::sanitize;
use tooloop::tui::text::markdown::render;
use tooloop::tui::text::wrap::wrap;

use super::MAX_INPUT;

/// What must never reach the terminal: C0 and C1 controls (newline and tab are checked by
/// the caller, where allowed), DEL, and the bidi embeddings, overrides and isolates that
/// make text reorder itself.
pub fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Byte 0: the width (1–300); the rest: the text, lossily decoded as a model's stream is.
pub fn markdown_wrap(data: &[u8]) {
    if data.len() < 2 || data.len() > MAX_INPUT {
        return;
    }
    let width = (1 + u32::from(data[0]) * 299 / 255) as u16; // 1..=300
    let text = String::from_utf8_lossy(&data[1..]);
    let lines = render(&text);
    check_lines(&lines, None);
    let wrapped = wrap(&lines, width);
    check_lines(&wrapped, Some(usize::from(width)));
    // Plain (non-markdown) output goes through the same wrap.
    let plain = tooloop::sanitize::lines(&text, Default::default());
    check_lines(&wrap(&plain, width), Some(usize::from(width)));
}

/// No forbidden char, no newline or tab inside a line, and (when wrapped) no line wider
/// than `width` but a lone char that is wider by itself.
fn check_lines(lines: &[Line<'static>], width: Option<usize>) {
    for line in lines {
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        if let Some(c) = text
            .chars()
            .find(|&c| forbidden(c) || c == '\n' || c == '\t')
        {
            panic!("{c:?} (U+{:04X}) left in line {text:?}", c as u32);
        }
        if let Some(width) = width {
            // As ratatui draws it: span by span, one grapheme cluster at a time.
            let shown: usize = line
                .spans
                .iter()
                .flat_map(|s| s.content.graphemes(true))
                .map(UnicodeWidthStr::width)
                .sum();
            if shown > width {
                // Only a char (cluster) wider than the pane may stick out, alone on its line.
                let mut chars = text
                    .graphemes(true)
                    .filter(|g| !g.trim().is_empty() && g.width() > 0);
                let lone = chars.next().is_some() && chars.next().is_none();
                assert!(lone, "{shown} columns in a {width}-column pane: {text:?}");
            }
        }
    }
}

/// The TUI's sanitizer and headless mode's text and JSON output.
pub fn sanitize_all(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let clean = sanitize(&text);
    if let Some(c) = clean.chars().find(|&c| forbidden(c) || c == '\t') {
        panic!("sanitize left {c:?} (U+{:04X}) in {clean:?}", c as u32);
    }
    assert_eq!(sanitize(&clean), clean, "sanitize is not idempotent");
    let piped = tooloop::sanitize::output::clean_text(&text, false);
    if let Some(c) = piped.chars().find(|&c| forbidden(c) && c.is_control()) {
        panic!("clean_text left {c:?} (U+{:04X}) in {piped:?}", c as u32);
    }
    let tty = tooloop::sanitize::output::clean_text(&text, true);
    assert_eq!(tty, clean);
    let line = tooloop::sanitize::output::json_line(&serde_json::json!({ "text": text }));
    if let Some(c) = line
        .chars()
        .find(|&c| forbidden(c) || c == '\n' || c == '\t')
    {
        panic!("json_line left {c:?} (U+{:04X}) raw in {line:?}", c as u32);
    }
    let back: serde_json::Value = serde_json::from_str(&line).expect("json_line is JSON");
    assert_eq!(
        back["text"].as_str(),
        Some(text.as_ref()),
        "json_line changed the value"
    );
}
