//! Server-sent events framing for the OpenAI stream: bytes in, `(event, data)` frames out.
//!
//! Small on purpose so it can give way to a shared `provider::sse` parser. Bytes are split
//! on `\n` before decoding, so a UTF-8 character cut across network chunks is fine.

/// One dispatched SSE event. `event` is the `event:` field, or "data" when there was none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub event: String,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseLines {
    buf: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
}

impl SseLines {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the frames they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Frame>, String> {
        self.buf.extend_from_slice(bytes);
        let mut frames = Vec::new();
        while let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=pos).collect();
            let line = std::str::from_utf8(&line[..line.len() - 1])
                .map_err(|e| format!("stream line is not UTF-8: {e}"))?;
            self.line(line.strip_suffix('\r').unwrap_or(line), &mut frames);
        }
        Ok(frames)
    }

    /// The stream ended: a last line without its newline, and an event without its blank
    /// line, still count.
    pub fn finish(&mut self) -> Result<Vec<Frame>, String> {
        let mut frames = Vec::new();
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            let line =
                std::str::from_utf8(&rest).map_err(|e| format!("stream line is not UTF-8: {e}"))?;
            self.line(line.strip_suffix('\r').unwrap_or(line), &mut frames);
        }
        self.dispatch(&mut frames);
        Ok(frames)
    }

    fn line(&mut self, line: &str, frames: &mut Vec<Frame>) {
        if line.is_empty() {
            self.dispatch(frames);
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                // Some servers omit the blank line between events; a pending payload that is
                // already whole is its own event then, instead of being glued to this one.
                if self.data.as_deref().is_some_and(is_whole) {
                    self.dispatch(frames);
                }
                match &mut self.data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => self.data = Some(value.to_string()),
                }
            }
            "event" => {
                if self.data.as_deref().is_some_and(is_whole) {
                    self.dispatch(frames);
                }
                self.event = Some(value.to_string());
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, frames: &mut Vec<Frame>) {
        let event = self.event.take();
        if let Some(data) = self.data.take() {
            frames.push(Frame {
                event: event.unwrap_or_else(|| "data".into()),
                data,
            });
        }
    }
}

fn is_whole(data: &str) -> bool {
    data.trim() == "[DONE]" || serde_json::from_str::<serde::de::IgnoredAny>(data).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames_of(chunks: &[&[u8]]) -> Vec<Frame> {
        let mut p = SseLines::new();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(p.push(c).expect("utf8"));
        }
        out.extend(p.finish().expect("utf8"));
        out
    }

    fn data(s: &str) -> Frame {
        Frame {
            event: "data".into(),
            data: s.into(),
        }
    }

    #[test]
    fn byte_by_byte_with_crlf_comments_and_utf8() {
        let text = ": keep-alive\r\n\r\ndata: {\"a\":\"é😀\"}\r\n\r\ndata:[DONE]\n\n";
        let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
        assert_eq!(
            frames_of(&bytes),
            vec![data("{\"a\":\"é😀\"}"), data("[DONE]")]
        );
    }

    #[test]
    fn missing_blank_lines_and_trailing_event() {
        let got = frames_of(&[b"data: {\"x\":1}\ndata: {\"x\":2}\nevent: error\ndata: {\"e\":3}"]);
        assert_eq!(got[0], data("{\"x\":1}"));
        assert_eq!(got[1], data("{\"x\":2}"));
        assert_eq!(
            got[2],
            Frame {
                event: "error".into(),
                data: "{\"e\":3}".into()
            }
        );
    }

    #[test]
    fn multi_line_data_joins() {
        assert_eq!(
            frames_of(&[b"data: {\"a\":\ndata: 1}\n\n"]),
            vec![data("{\"a\":\n1}")]
        );
    }

    #[test]
    fn bad_utf8_is_an_error() {
        let mut p = SseLines::new();
        assert!(p.push(b"data: \xff\xfe\n").is_err());
    }
}
