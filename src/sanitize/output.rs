//! What headless mode prints can't be turned against the terminal that shows it.
//!
//! - Text: C0 and C1 controls other than newline and tab are always removed; when the
//!   stream is a terminal the text is neutralized exactly like the TUI's (whole escape
//!   sequences, bidi overrides).
//! - JSON: besides what JSON requires, DEL, the C1 controls and the invisible direction
//!   marks are written as `\uXXXX`, so a consumer that prints a field raw (`jq -r`) cannot
//!   be attacked either. The values are unchanged; only their spelling is.

use std::io::{self, IsTerminal, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};

/// `text` ready for a stream that is (`terminal`) or is not a terminal.
pub fn clean_text(text: &str, terminal: bool) -> String {
    if terminal {
        return crate::sanitize::sanitize(text);
    }
    text.chars()
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect()
}

/// For stdout / stderr: sanitized for whatever they are connected to.
pub fn for_stdout(text: &str) -> String {
    clean_text(text, io::stdout().is_terminal())
}

pub fn for_stderr(text: &str) -> String {
    clean_text(text, io::stderr().is_terminal())
}

/// One JSON line, with C1 controls and bidi marks escaped.
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(256);
    let mut ser = Serializer::with_formatter(&mut out, SafeFormatter);
    if value.serialize(&mut ser).is_err() {
        return "null".into();
    }
    // The formatter writes only whole UTF-8 chars and ASCII escapes.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn must_escape(c: char) -> bool {
    matches!(c,
        '\u{7f}'..='\u{9f}'          // DEL and C1 (CSI is U+009B)
        | '\u{061c}'                 // Arabic letter mark
        | '\u{200e}' | '\u{200f}'    // LRM, RLM
        | '\u{2028}' | '\u{2029}'    // line / paragraph separators
        | '\u{202a}'..='\u{202e}'    // embeddings and overrides (RLO is U+202E)
        | '\u{2066}'..='\u{2069}'    // isolates
        | '\u{feff}')
}

/// serde_json's compact output (the trait's defaults) but for the string fragments.
struct SafeFormatter;

impl Formatter for SafeFormatter {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if must_escape(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                write!(writer, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_escapes_c1_and_bidi_and_round_trips() {
        let v = json!({"text": "a\u{9b}2Jb\u{202e}c\u{1b}d", "k\u{85}": 1});
        let line = json_line(&v);
        assert!(
            line.contains("\\u009b") && line.contains("\\u202e"),
            "{line}"
        );
        assert!(
            line.contains("\\u001b") && line.contains("\\u0085"),
            "{line}"
        );
        assert!(!line.contains('\u{9b}') && !line.contains('\u{202e}'));
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back, v);
        assert_eq!(json_line(&json!({"a": [1, "x"]})), r#"{"a":[1,"x"]}"#);
    }

    #[test]
    fn text_loses_controls_but_keeps_newlines_and_tabs() {
        let s = "a\u{1b}]52;c;aGk=\u{7}b\u{1b}[2Jc\td\n\u{9b}e";
        let piped = clean_text(s, false);
        assert_eq!(piped, "a]52;c;aGk=b[2Jc\td\ne");
        let tty = clean_text(s, true);
        assert!(!tty.contains('\u{1b}') && !tty.contains("52;"), "{tty:?}");
    }
}
