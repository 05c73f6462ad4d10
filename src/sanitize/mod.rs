//! Neutralizes everything a model or a tool wrote before it reaches the terminal.
//!
//! One pass over the chars with a small state machine (no regex): it runs on every streamed
//! delta, so the common case (plain text) costs one scan and one copy.

pub mod output;

use ratatui::style::Style;
use ratatui::text::Line;
use unicode_width::UnicodeWidthChar;

/// Tab stops every this many columns, counted per line.
pub const TAB_WIDTH: usize = 4;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
/// The 8-bit String Terminator.
const ST: char = '\u{9c}';

/// Where the scanner is inside a (possibly unfinished) escape sequence.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Text,
    /// After ESC.
    Escape,
    /// After ESC and intermediate bytes (0x20–0x2F), waiting for the final byte.
    EscapeIntermediate,
    /// Inside CSI (`ESC [` or U+009B): parameters and intermediates until a final byte.
    Csi,
    /// Inside OSC / DCS / SOS / PM / APC: a string until BEL or ST.
    String,
    /// ESC seen inside a string: `ESC \` ends it.
    StringEscape,
}

/// Returns `s` with no escape sequence and no control character left.
///
/// - Whole escape sequences are removed: CSI (`ESC [ … final`, U+009B), OSC (incl. OSC 52
///   clipboard writes), DCS/SOS/PM/APC strings up to BEL or ST, and two-byte `ESC x` forms.
///   A string sequence left unterminated also ends at a newline, so one stray `ESC ]` cannot
///   swallow the rest of a reply.
/// - C0 controls except `\n`, DEL, and C1 controls (U+0080–U+009F) are dropped; `\r` is
///   dropped, so `\r\n` becomes `\n`.
/// - Tabs become spaces up to the next multiple of [`TAB_WIDTH`] display columns.
/// - Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) are dropped so
///   text cannot visually reorder itself; U+2028/U+2029 become `\n`.
pub fn sanitize(s: &str) -> String {
    if is_clean(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut state = State::Text;
    // Display column on the current output line, for tab stops.
    let mut column = 0usize;
    for c in s.chars() {
        state = match state {
            State::Text => text_char(c, &mut out, &mut column),
            State::Escape => match c {
                '[' => State::Csi,
                ']' | 'P' | 'X' | '^' | '_' => State::String,
                '\u{20}'..='\u{2f}' => State::EscapeIntermediate,
                // Any other printable ASCII completes a two-byte sequence (ESC c, ESC 7, ESC M…).
                '\u{30}'..='\u{7e}' => State::Text,
                // Not a sequence after all: drop the ESC, treat `c` as text.
                _ => text_char(c, &mut out, &mut column),
            },
            State::EscapeIntermediate => match c {
                '\u{20}'..='\u{2f}' => State::EscapeIntermediate,
                '\u{30}'..='\u{7e}' => State::Text,
                _ => text_char(c, &mut out, &mut column),
            },
            State::Csi => match c {
                // Parameter and intermediate bytes.
                '\u{20}'..='\u{3f}' => State::Csi,
                // Final byte ends the sequence.
                '\u{40}'..='\u{7e}' => State::Text,
                // Malformed: abandon the sequence and treat `c` as text.
                _ => text_char(c, &mut out, &mut column),
            },
            State::String => match c {
                BEL | ST => State::Text,
                ESC => State::StringEscape,
                '\n' => text_char(c, &mut out, &mut column),
                _ => State::String,
            },
            State::StringEscape => match c {
                '\\' => State::Text,
                ESC => State::StringEscape,
                // ESC followed by anything else also ends the string and starts a new sequence.
                _ => escape_start(c, &mut out, &mut column),
            },
        };
    }
    out
}

/// Untrusted plain text (tool output, thinking, user input echo) as lines in one style:
/// sanitized, then split at newlines. `"a\n"` is one line; `""` is none.
pub fn lines(s: &str, style: Style) -> Vec<Line<'static>> {
    sanitize(s)
        .lines()
        .map(|l| Line::styled(l.to_string(), style))
        .collect()
}

/// True when `s` has nothing [`sanitize`] would change: no C0 except `\n`, no DEL, and no
/// byte that starts a C1 control (0xC2) or a bidi / separator char (0xE2). Rare false
/// alarms (other chars starting with 0xE2) just take the slow path.
fn is_clean(s: &str) -> bool {
    s.bytes()
        .all(|b| (b >= 0x20 || b == b'\n') && b != 0x7f && b != 0xc2 && b != 0xe2)
}

/// Handles `c` as the char right after an ESC that ended a string.
fn escape_start(c: char, out: &mut String, column: &mut usize) -> State {
    match c {
        '[' => State::Csi,
        ']' | 'P' | 'X' | '^' | '_' => State::String,
        '\u{20}'..='\u{2f}' => State::EscapeIntermediate,
        '\u{30}'..='\u{7e}' => State::Text,
        _ => text_char(c, out, column),
    }
}

/// Handles one char in text state; returns the next state.
fn text_char(c: char, out: &mut String, column: &mut usize) -> State {
    match c {
        '\n' | '\u{2028}' | '\u{2029}' => {
            out.push('\n');
            *column = 0;
        }
        '\t' => {
            let spaces = TAB_WIDTH - *column % TAB_WIDTH;
            out.extend(std::iter::repeat_n(' ', spaces));
            *column += spaces;
        }
        ESC => return State::Escape,
        '\u{9b}' => return State::Csi,
        '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => return State::String,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
        c if c.is_control() => {}
        c => {
            out.push(c);
            *column += c.width().unwrap_or(0);
        }
    }
    State::Text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_unchanged() {
        let s = "hello, world\nsecond line — with “quotes” and 中文";
        assert_eq!(sanitize(s), s);
    }

    #[test]
    fn removes_clear_screen_and_sgr() {
        assert_eq!(sanitize("a\x1b[2Jb\x1b[1;31mred\x1b[0m"), "abred");
    }

    #[test]
    fn removes_osc52_clipboard_with_bel_and_st() {
        assert_eq!(sanitize("x\x1b]52;c;ZXZpbA==\x07y"), "xy");
        assert_eq!(sanitize("x\x1b]52;c;ZXZpbA==\x1b\\y"), "xy");
        assert_eq!(
            sanitize("x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\"),
            "xlink"
        );
    }

    #[test]
    fn removes_bel_and_other_c0_and_del() {
        assert_eq!(sanitize("ding\x07\x00\x08\x7f!"), "ding!");
    }

    #[test]
    fn removes_8bit_csi_and_c1() {
        assert_eq!(sanitize("a\u{9b}2Jb\u{85}c"), "abc");
        assert_eq!(sanitize("a\u{9d}52;c;AAAA\u{9c}b"), "ab");
    }

    #[test]
    fn removes_dcs_apc_and_two_byte_sequences() {
        assert_eq!(sanitize("a\x1bPq#0;2;0;0;0\x1b\\b"), "ab");
        assert_eq!(sanitize("a\x1b_payload\x1b\\b"), "ab");
        assert_eq!(sanitize("a\x1bcb\x1b7c\x1b(Bd"), "abcd");
    }

    #[test]
    fn unterminated_string_ends_at_newline() {
        assert_eq!(sanitize("a\x1b]0;title\nrest"), "a\nrest");
    }

    #[test]
    fn unterminated_sequence_at_end_is_dropped() {
        assert_eq!(sanitize("abc\x1b["), "abc");
        assert_eq!(sanitize("abc\x1b"), "abc");
    }

    #[test]
    fn esc_before_non_ascii_keeps_the_char() {
        assert_eq!(sanitize("a\x1bé"), "aé");
    }

    #[test]
    fn carriage_returns_are_dropped() {
        assert_eq!(sanitize("one\r\ntwo\r"), "one\ntwo");
    }

    #[test]
    fn tabs_expand_to_stops_of_four_per_line() {
        assert_eq!(sanitize("\tx"), "    x");
        assert_eq!(sanitize("ab\tc"), "ab  c");
        assert_eq!(sanitize("abcd\te\nf\tg"), "abcd    e\nf   g");
        // Double-width chars count two columns.
        assert_eq!(sanitize("中\tx"), "中  x");
    }

    #[test]
    fn bidi_overrides_are_dropped() {
        assert_eq!(
            sanitize("user\u{202e}fdp.exe\u{2066}x\u{2069}"),
            "userfdp.exex"
        );
    }

    #[test]
    fn lines_splits_sanitized_text() {
        let style = Style::default().add_modifier(ratatui::style::Modifier::DIM);
        let out = lines("one\x1b[2J\r\n\ttwo\n", style);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].to_string(), "one");
        assert_eq!(out[1].to_string(), "    two");
        assert_eq!(out[1].style, style);
        assert!(lines("", style).is_empty());
    }

    #[test]
    fn injected_tool_output_draws_inert_cells() {
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        use ratatui::widgets::Paragraph;

        let evil =
            "ok\x1b[2J\x1b[H\n\x1b]52;c;cm0gLXJmIH4=\x07copied?\u{7}\n\u{9b}31mred\u{9b}0m\r\n";
        let mut terminal = Terminal::new(TestBackend::new(20, 3)).expect("terminal");
        terminal
            .draw(|f| f.render_widget(Paragraph::new(lines(evil, Style::default())), f.area()))
            .expect("draw");
        let buffer = terminal.backend().buffer();
        assert!(
            buffer
                .content()
                .iter()
                .all(|cell| cell.symbol().chars().all(|c| !c.is_control()))
        );
        insta::assert_snapshot!("sanitize_injection_cells", terminal.backend());
    }

    #[test]
    fn output_never_contains_controls() {
        let nasty: String = (0u32..0x300)
            .filter_map(char::from_u32)
            .chain("\x1b[31m\x1b]52;c;x\x07\u{9b}1m".chars())
            .collect();
        let out = sanitize(&nasty);
        assert!(out.chars().all(|c| c == '\n' || !c.is_control()), "{out:?}");
    }
}
