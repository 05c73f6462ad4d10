//! Collecting a command's output: bytes arrive in arbitrary chunks (a UTF-8 character may
//! be split between two), and there may be far more than the model should see. We keep the
//! head and the tail — the command line's echo and the final error are what matter — and
//! say how much of the middle was cut.

use crate::text::floor_boundary;

/// Turns a byte stream into text, holding back an incomplete character until its rest
/// arrives; invalid bytes become U+FFFD.
#[derive(Default)]
pub struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        let mut start = 0;
        loop {
            match std::str::from_utf8(&self.pending[start..]) {
                Ok(s) => {
                    out.push_str(s);
                    start = self.pending.len();
                    break;
                }
                Err(e) => {
                    let valid = start + e.valid_up_to();
                    out.push_str(&String::from_utf8_lossy(&self.pending[start..valid]));
                    match e.error_len() {
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            start = valid + bad;
                        }
                        // An incomplete character at the end: wait for the rest.
                        None => {
                            start = valid;
                            break;
                        }
                    }
                }
            }
        }
        self.pending.drain(..start);
        out
    }

    /// Whatever is still held back, once the stream has ended.
    pub fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        rest
    }
}

/// Keeps the first and last `limit / 2` bytes of everything pushed.
pub struct HeadTail {
    head: String,
    tail: String,
    head_full: bool,
    half: usize,
    total: usize,
}

impl HeadTail {
    pub fn new(limit: usize) -> Self {
        HeadTail {
            head: String::new(),
            tail: String::new(),
            head_full: false,
            half: (limit / 2).max(1),
            total: 0,
        }
    }

    pub fn push(&mut self, mut s: &str) {
        self.total += s.len();
        if !self.head_full {
            let room = self.half - self.head.len();
            if s.len() <= room {
                self.head.push_str(s);
                return;
            }
            let end = floor_boundary(s, room);
            self.head.push_str(&s[..end]);
            self.head_full = true;
            s = &s[end..];
        }
        self.tail.push_str(s);
        // Trim now and then, not on every push, so a long stream stays linear.
        if self.tail.len() > self.half * 2 {
            self.trim_tail();
        }
    }

    pub fn total_bytes(&self) -> usize {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The kept text, with a note in the middle when something was cut.
    pub fn finish(mut self) -> String {
        self.trim_tail();
        let kept = self.head.len() + self.tail.len();
        if kept == self.total {
            return self.head + &self.tail;
        }
        format!(
            "{}\n[… output cut: {} of {} bytes not shown …]\n{}",
            self.head,
            self.total - kept,
            self.total,
            self.tail
        )
    }

    fn trim_tail(&mut self) {
        if self.tail.len() <= self.half {
            return;
        }
        let mut start = self.tail.len() - self.half;
        while !self.tail.is_char_boundary(start) {
            start += 1;
        }
        self.tail.drain(..start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_characters_are_joined() {
        let mut s = Utf8Stream::default();
        let bytes = "añb".as_bytes();
        assert_eq!(s.push(&bytes[..2]), "a");
        assert_eq!(s.push(&bytes[2..]), "ñb");
        assert_eq!(s.push(b"x\xffy"), "x\u{FFFD}y");
        assert_eq!(s.push(&[0xe2]), "");
        assert_eq!(s.finish(), "\u{FFFD}");
    }

    #[test]
    fn keeps_head_and_tail_and_says_how_much_was_cut() {
        let mut h = HeadTail::new(10);
        h.push("short");
        assert_eq!(h.finish(), "short");

        let mut h = HeadTail::new(10);
        for i in 0..100 {
            h.push(&format!("{}", i % 10));
        }
        assert_eq!(h.total_bytes(), 100);
        assert_eq!(
            h.finish(),
            "01234\n[… output cut: 90 of 100 bytes not shown …]\n56789"
        );
    }
}
