//! Each history message's JSON, kept from one request body to the next (issue 18).
//!
//! Messages are immutable once appended (`Arc<Message>`), and a tool loop sends the same
//! history again plus two new messages, so re-serializing every message per request made
//! the client's work per turn grow with the history (~1 MB of string escaping per request at
//! 4,000 messages). The cache keeps the JSON of the history's longest unchanged prefix in one
//! contiguous buffer, so a body copies it with one `memcpy` (per-message buffers scattered
//! over the heap cost a cache miss each). A message is reused only when the request holds the
//! very same `Arc` at that position. The cache's own strong reference means the message
//! cannot be changed in place meanwhile (`Arc::make_mut` copies it), so the bytes cannot go
//! stale; a compaction or a rewind gives new `Arc`s, and the prefix is cut back to the first
//! one that differs.

use std::sync::Arc;

use crate::message::Message;

#[derive(Default)]
pub struct MessageJson {
    /// The kept messages' JSON, each followed by `,`.
    log: Vec<u8>,
    /// Per kept position: the message, and where its JSON (with the comma) ends in `log`.
    kept: Vec<(Arc<Message>, usize)>,
}

impl MessageJson {
    /// Writes `messages` as a JSON array to `out`. `special(i)` messages (ones that carry a
    /// cache breakpoint this time) are written by `fresh` and not kept, and neither is any
    /// message after the first of them (the kept prefix has no gaps); the others come from
    /// the kept prefix or are serialized once and added to it.
    pub fn write_array(
        &mut self,
        messages: &[Arc<Message>],
        out: &mut Vec<u8>,
        special: impl Fn(usize) -> bool,
        mut fresh: impl FnMut(usize, &mut Vec<u8>),
    ) {
        // The positions still holding the very same messages (pointer compares only).
        let same = self
            .kept
            .iter()
            .zip(messages)
            .take_while(|((kept, _), m)| Arc::ptr_eq(kept, m))
            .count();
        let first_special = (0..messages.len())
            .find(|&i| special(i))
            .unwrap_or(messages.len());
        let keep = same.min(first_special);
        self.kept.truncate(keep);
        self.log
            .truncate(self.kept.last().map_or(0, |(_, end)| *end));
        // Messages new since the last body, up to the first breakpoint, join the prefix.
        for m in &messages[keep..first_special] {
            write_message(m, &mut self.log);
            self.log.push(b',');
            self.kept.push((m.clone(), self.log.len()));
        }
        out.push(b'[');
        out.extend_from_slice(&self.log);
        for (i, m) in messages.iter().enumerate().skip(first_special) {
            if special(i) {
                fresh(i, out);
            } else {
                write_message(m, out);
            }
            out.push(b',');
        }
        if out.last() == Some(&b',') {
            out.pop();
        }
        out.push(b']');
    }
}

fn write_message(m: &Message, out: &mut Vec<u8>) {
    let start = out.len();
    if let Err(e) = serde_json::to_writer(&mut *out, m) {
        tracing::error!("message could not be serialized: {e}");
        out.truncate(start);
        out.extend_from_slice(b"null");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(kept: &mut MessageJson, messages: &[Arc<Message>], special: usize) -> String {
        let mut out = Vec::new();
        kept.write_array(
            messages,
            &mut out,
            |i| i == special,
            |_, out| out.extend_from_slice(b"{\"special\":true}"),
        );
        String::from_utf8(out).expect("utf8")
    }

    #[test]
    fn the_unchanged_prefix_is_copied_not_serialized_again() {
        let mut history: Vec<Arc<Message>> = (0..4)
            .map(|i| Arc::new(Message::user_text(format!("m{i}"))))
            .collect();
        let mut kept = MessageJson::default();
        let first = array(&mut kept, &history, usize::MAX);
        assert_eq!(kept.kept.len(), 4);
        // Mark the kept bytes: the next body shows the mark only if it copied them.
        let at = kept.log.iter().position(|&b| b == b'm').expect("text");
        kept.log[at] = b'M';
        history.push(Arc::new(Message::user_text("m4")));
        let second = array(&mut kept, &history, usize::MAX);
        assert!(second.contains("\"M0\""), "{second}");
        assert_eq!(
            second.replacen("M0", "m0", 1)[..first.len() - 1],
            first[..first.len() - 1]
        );
        // A breakpoint at position 2: positions 0-1 stay kept, 2 is fresh, 3-4 serialized.
        let third = array(&mut kept, &history, 2);
        assert_eq!(kept.kept.len(), 2);
        assert!(third.contains("\"M0\"") && third.contains("{\"special\":true},{"));
        assert!(third.ends_with("}]"), "{third}");
        // A replaced message cuts the prefix back to it.
        history[1] = Arc::new(Message::user_text("new"));
        let fourth = array(&mut kept, &history, usize::MAX);
        assert_eq!(kept.kept.len(), 5);
        assert!(fourth.contains("\"new\"") && fourth.contains("\"M0\""));
        let parsed: serde_json::Value = serde_json::from_str(&fourth).expect("json");
        assert_eq!(parsed.as_array().map(Vec::len), Some(5));
        // Empty and shrunk histories.
        assert_eq!(array(&mut kept, &[], usize::MAX), "[]");
        assert!(kept.log.is_empty());
        assert_eq!(array(&mut kept, &history[..1], 0), "[{\"special\":true}]");
    }
}
