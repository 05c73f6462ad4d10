//! The copy key: the selected message, tool output or JSON view goes to the system clipboard
//! through OSC 52, which tmux and most terminals pass on (mouse selection would span panes).
//! The App only picks the text; the event loop writes the sequence after a frame.

use crate::tui::app::{App, Focus};
use crate::tui::panes::cells::CellKind;
use crate::tui::strings;

/// Terminals cap OSC 52 payloads (xterm: ~100 KB); longer text is cut, and the note says so.
const MAX_BYTES: usize = 75_000;

impl App {
    /// What the copy key copies: the JSON view when it has the focus, else the selected
    /// message or tool call's output, else the last answer.
    pub fn copy_selection(&mut self, now: tokio::time::Instant) {
        let text = if self.panes.focus == Focus::Json {
            Some(self.panes.json.export())
        } else {
            let selected = (self.panes.focus == Focus::Conversation)
                .then(|| self.panes.conversation.selected_cell())
                .flatten();
            let last_answer = || {
                self.panes
                    .conversation
                    .cells()
                    .iter()
                    .rev()
                    .find(|c| matches!(c.kind, CellKind::Assistant(_)))
            };
            selected.or_else(last_answer).and_then(|c| match &c.kind {
                CellKind::User(t) | CellKind::Notice(t) | CellKind::Error(t) => Some(t.clone()),
                CellKind::Assistant(md) => Some(md.text().to_string()),
                CellKind::Thinking { text, .. } => Some(text.clone()),
                CellKind::Tool(id) => self.panes.tool_calls.get(id).map(|c| c.output.clone()),
                _ => None,
            })
        };
        let note = match text.filter(|t| !t.is_empty()) {
            Some(mut t) => {
                if t.len() > MAX_BYTES {
                    let mut cut = MAX_BYTES;
                    while !t.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    t.truncate(cut);
                }
                let note = strings::copied(t.chars().count());
                self.outbox.clipboard = Some(t);
                note
            }
            None => strings::NOTHING_TO_COPY.to_string(),
        };
        self.status.note = Some((note, now + crate::tui::app::NOTE_WINDOW));
    }
}

/// The OSC 52 sequence that puts `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64("你好".as_bytes()), "5L2g5aW9");
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }
}
