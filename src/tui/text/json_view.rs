//! Pretty, highlighted JSON as lines for the JSON pane.
//!
//! A direct walk over the [`Value`] (no syntect, no intermediate string): 2-space indent,
//! keys / strings / numbers / literals coloured, punctuation dim. Strings are escaped the way
//! JSON escapes them, plus C1 controls and bidi overrides, so nothing raw reaches the
//! terminal. Very long strings are cut in the view only.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::tui::theme::Theme;

/// Strings (and keys) longer than this many chars are cut in the view.
pub const MAX_STRING_CHARS: usize = 1_000;
/// Containers nested deeper than this are shown as `…`, so a pathological value cannot
/// exhaust the stack.
pub const MAX_DEPTH: usize = 100;

/// Renders `value` pretty-printed with colours, cutting strings at [`MAX_STRING_CHARS`].
pub fn render(value: &Value) -> Vec<Line<'static>> {
    render_with_limit(value, MAX_STRING_CHARS)
}

/// [`render`] with a custom cut length for strings (`usize::MAX` for none).
pub fn render_with_limit(value: &Value, max_string_chars: usize) -> Vec<Line<'static>> {
    let mut w = Writer {
        theme: Theme::default(),
        lines: Vec::new(),
        spans: Vec::new(),
        max_chars: max_string_chars,
    };
    w.value(value, 0);
    w.end_line();
    w.lines
}

struct Writer {
    theme: Theme,
    lines: Vec<Line<'static>>,
    spans: Vec<Span<'static>>,
    max_chars: usize,
}

impl Writer {
    fn value(&mut self, value: &Value, depth: usize) {
        match value {
            Value::Null => self.push("null".into(), self.theme.json_literal),
            Value::Bool(b) => self.push(b.to_string(), self.theme.json_literal),
            Value::Number(n) => self.push(n.to_string(), self.theme.json_number),
            Value::String(s) => self.string(s, self.theme.json_string),
            Value::Array(items) if items.is_empty() => self.punct("[]"),
            Value::Object(map) if map.is_empty() => self.punct("{}"),
            _ if depth >= MAX_DEPTH => self.punct("…"),
            Value::Array(items) => {
                self.punct("[");
                for (i, item) in items.iter().enumerate() {
                    self.end_line();
                    self.indent(depth + 1);
                    self.value(item, depth + 1);
                    if i + 1 < items.len() {
                        self.punct(",");
                    }
                }
                self.end_line();
                self.indent(depth);
                self.punct("]");
            }
            Value::Object(map) => {
                // An image's base64 is shown by its size only (it says nothing to a reader).
                let base64 = map.get("type").and_then(Value::as_str) == Some("base64");
                self.punct("{");
                for (i, (key, item)) in map.iter().enumerate() {
                    self.end_line();
                    self.indent(depth + 1);
                    self.string(key, self.theme.json_key);
                    self.punct(": ");
                    match item {
                        Value::String(data) if base64 && key == "data" => self.push(
                            format!(
                                "\"<{} base64>\"",
                                crate::message::image::human_size(data.len())
                            ),
                            self.theme.json_punct,
                        ),
                        _ => self.value(item, depth + 1),
                    }
                    if i + 1 < map.len() {
                        self.punct(",");
                    }
                }
                self.end_line();
                self.indent(depth);
                self.punct("}");
            }
        }
    }

    /// A quoted, escaped string; past `max_chars` the rest becomes `… (N more chars)`.
    fn string(&mut self, s: &str, style: Style) {
        let mut out = String::with_capacity(s.len().min(self.max_chars.saturating_mul(4)) + 2);
        out.push('"');
        let mut rest = 0;
        for (n, (i, c)) in s.char_indices().enumerate() {
            if n == self.max_chars {
                rest = s[i..].chars().count();
                break;
            }
            escape_into(c, &mut out);
        }
        if rest == 0 {
            out.push('"');
            self.push(out, style);
        } else {
            self.push(out, style);
            self.push(format!("… ({rest} more chars)"), self.theme.json_punct);
            self.push("\"".into(), style);
        }
    }

    fn punct(&mut self, p: &'static str) {
        self.spans.push(Span::styled(p, self.theme.json_punct));
    }

    fn push(&mut self, text: String, style: Style) {
        self.spans.push(Span::styled(text, style));
    }

    fn indent(&mut self, depth: usize) {
        if depth > 0 {
            self.spans.push(Span::raw("  ".repeat(depth)));
        }
    }

    fn end_line(&mut self) {
        self.lines.push(Line::from(std::mem::take(&mut self.spans)));
    }
}

/// Appends `c` JSON-escaped. Beyond what JSON requires, DEL, C1 controls, line separators and
/// bidi controls are escaped too: they are legal in JSON but unsafe or confusing on a terminal.
fn escape_into(c: char, out: &mut String) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_data_shows_as_its_size() {
        let v = serde_json::json!({"type": "image", "source": {"type": "base64",
            "media_type": "image/png", "data": "A".repeat(120_000)}});
        let text: Vec<String> = render(&v).iter().map(|l| l.to_string()).collect();
        assert!(
            text.iter()
                .any(|l| l.trim() == "\"data\": \"<118 KB base64>\""),
            "{text:?}"
        );
    }
    use serde_json::json;

    fn text(lines: &[Line<'static>]) -> String {
        lines
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn matches_serde_pretty_printing() {
        let v = json!({
            "model": "demo",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi \"there\"\n"}]}],
            "n": 1.5, "ok": true, "none": null, "empty": [], "obj": {}
        });
        let expected = serde_json::to_string_pretty(&v).expect("serializes");
        assert_eq!(text(&render(&v)), expected);
    }

    #[test]
    fn scalars_render_on_one_line() {
        assert_eq!(text(&render(&json!(42))), "42");
        assert_eq!(text(&render(&json!("x"))), "\"x\"");
    }

    #[test]
    fn parts_are_coloured_by_kind() {
        let theme = Theme::default();
        let lines = render(&json!({"k": "v", "n": 2, "b": false}));
        let style_of = |needle: &str| {
            lines
                .iter()
                .flat_map(|l| &l.spans)
                .find(|s| s.content == needle)
                .map(|s| s.style)
                .expect("span present")
        };
        assert_eq!(style_of("\"k\""), theme.json_key);
        assert_eq!(style_of("\"v\""), theme.json_string);
        assert_eq!(style_of("2"), theme.json_number);
        assert_eq!(style_of("false"), theme.json_literal);
        assert_eq!(style_of("{"), theme.json_punct);
    }

    #[test]
    fn control_chars_are_escaped_not_emitted() {
        let v = json!({"out\u{1b}": "\u{1b}[2J\u{1b}]52;c;QQ==\u{7}\u{9b}1m\u{202e}x\u{7f}"});
        let out = text(&render(&v));
        assert_eq!(
            out,
            "{\n  \"out\\u001b\": \"\\u001b[2J\\u001b]52;c;QQ==\\u0007\\u009b1m\\u202ex\\u007f\"\n}"
        );
        assert!(out.chars().all(|c| c == '\n' || !c.is_control()));
    }

    #[test]
    fn long_strings_are_cut_with_a_count() {
        let v = json!({"text": "é".repeat(1_500)});
        let out = text(&render(&v));
        let expected = format!(
            "{{\n  \"text\": \"{}… (500 more chars)\"\n}}",
            "é".repeat(MAX_STRING_CHARS)
        );
        assert_eq!(out, expected);
        assert_eq!(text(&render_with_limit(&json!("abc"), 3)), "\"abc\"");
        assert_eq!(
            text(&render_with_limit(&json!("abcd"), 3)),
            "\"abc… (1 more chars)\""
        );
    }

    #[test]
    fn deep_nesting_is_cut() {
        let mut v = json!(1);
        for _ in 0..(MAX_DEPTH + 50) {
            v = json!([v]);
        }
        let lines = render(&v);
        assert!(text(&lines).contains('…'));
        assert_eq!(lines.len(), 2 * MAX_DEPTH + 1);
    }

    #[test]
    fn large_values_render_one_line_per_element() {
        let v = Value::Array((0..100_000).map(|i| json!(i)).collect());
        assert_eq!(render(&v).len(), 100_002);
        let one_mb = json!({"blob": "x".repeat(1 << 20)});
        assert_eq!(render(&one_mb).len(), 3);
    }

    #[test]
    fn snapshot_request_body() {
        let v = json!({
            "model": "claude-sonnet-4",
            "max_tokens": 1024,
            "stream": true,
            "system": "You are tooloop.",
            "tools": [{"name": "read_file", "input_schema": {"type": "object", "required": ["path"]}}],
            "messages": [
                {"role": "user", "content": "List files\tplease"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "list_dir", "input": {"path": "."}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
                     "content": "Cargo.toml\nsrc/\n\u{1b}[2J"}
                ]}
            ],
            "temperature": null
        });
        insta::assert_snapshot!("json_request_body", text(&render(&v)));
    }
}
