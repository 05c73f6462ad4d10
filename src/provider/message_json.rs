//! Each history message's JSON, kept from one request body to the next (issue 18).
//!
//! Messages are immutable once appended (`Arc<Message>`), and a tool loop sends the same
//! history again plus two new messages, so re-serializing every message per request made
//! the client's work per turn grow with the history (~1 MB of string escaping per request at
//! 4,000 messages). The cache keeps, per position, the message's `Arc` and its bytes; a
//! message is reused only when the request holds the very same `Arc` at that position. The
//! cache's own strong reference means the message cannot be changed in place meanwhile
//! (`Arc::make_mut` copies it), so the bytes cannot go stale; a compaction or a rewind gives
//! new `Arc`s and those are serialized afresh.

use std::sync::Arc;

use crate::message::Message;

#[derive(Default)]
pub struct MessageJson {
    entries: Vec<(Arc<Message>, Box<[u8]>)>,
}

impl MessageJson {
    /// Writes `messages` as a JSON array to `out`. `special(i)` messages (ones that carry a
    /// cache breakpoint this time) are written by `fresh` and not kept; the others come from
    /// the cache or are serialized once and kept. Entries beyond `messages` are dropped.
    pub fn write_array(
        &mut self,
        messages: &[Arc<Message>],
        out: &mut Vec<u8>,
        special: impl Fn(usize) -> bool,
        mut fresh: impl FnMut(usize, &mut Vec<u8>),
    ) {
        out.push(b'[');
        for (i, m) in messages.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            if special(i) {
                fresh(i, out);
                continue;
            }
            match self.entries.get(i) {
                Some((kept, bytes)) if Arc::ptr_eq(kept, m) => out.extend_from_slice(bytes),
                _ => {
                    let bytes: Box<[u8]> = serde_json::to_vec(&**m)
                        .unwrap_or_else(|e| {
                            tracing::error!("message could not be serialized: {e}");
                            b"null".to_vec()
                        })
                        .into();
                    out.extend_from_slice(&bytes);
                    let entry = (m.clone(), bytes);
                    // Positions fill in order; one after a gap (a special message that was
                    // never kept) is simply not kept.
                    if i < self.entries.len() {
                        self.entries[i] = entry;
                    } else if i == self.entries.len() {
                        self.entries.push(entry);
                    }
                }
            }
        }
        out.push(b']');
        self.entries.truncate(messages.len());
    }
}
