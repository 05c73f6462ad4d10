//! Resumable highlighting for code that grows at the end (a fence in a streaming reply).
//!
//! The markdown of a streaming reply is re-rendered as it grows, so the same code block is
//! highlighted again and again with a few more bytes each time. syntect's state at a line
//! boundary is all it needs to continue, so we keep, per recent block, the lines highlighted
//! so far and the state after them; the next call only highlights the new lines. A small
//! per-thread MRU list, no locks.

use std::cell::RefCell;
use std::collections::VecDeque;

use ratatui::text::Line;
use syntect::highlighting::HighlightState;
use syntect::parsing::ParseState;

/// Enough for every code block of a long reply; each entry holds at most one capped block.
const CAPACITY: usize = 16;

pub(super) struct Entry {
    pub(super) lang: String,
    /// The code whose lines are in `lines`: whole lines, so empty or ending in `\n`.
    pub(super) done: String,
    pub(super) lines: Vec<Line<'static>>,
    pub(super) state: (HighlightState, ParseState),
}

thread_local! {
    static CACHE: RefCell<VecDeque<Entry>> = const { RefCell::new(VecDeque::new()) };
}

/// Removes and returns the entry for `lang` whose finished code is the longest prefix of `code`.
pub(super) fn take(lang: &str, code: &str) -> Option<Entry> {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        let best = cache
            .iter()
            .enumerate()
            .filter(|(_, e)| e.lang == lang && code.starts_with(e.done.as_str()))
            .max_by_key(|(_, e)| e.done.len())
            .map(|(i, _)| i)?;
        cache.remove(best)
    })
}

/// Stores `entry` as the most recently used, dropping the least recently used past capacity.
pub(super) fn put(entry: Entry) {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        cache.push_front(entry);
        cache.truncate(CAPACITY);
    });
}

#[cfg(test)]
pub(super) fn clear() {
    CACHE.with(|cache| cache.borrow_mut().clear());
}
