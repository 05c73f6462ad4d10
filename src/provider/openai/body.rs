//! A response body (bytes) → the provider's event stream: framing, a Raw copy of every
//! event for the JSON pane, then what the chunk means.

use std::collections::{HashSet, VecDeque};

use futures::{Stream, StreamExt};

use super::sse_lines::{Frame, SseLines};
use super::stream::ChunkDecoder;
use crate::provider::{EventStream, ProviderError, StreamEvent};

/// How the response body is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    Sse,
    /// One JSON object: a server that ignored `stream: true`.
    Json,
}

/// The events of `body`. The stream ends after MessageStop or after the first error;
/// `taken_ids` are the tool_use ids already in the history.
pub fn decode<S, B, E>(body: S, framing: Framing, taken_ids: HashSet<String>) -> EventStream
where
    S: Stream<Item = Result<B, E>> + Send + Unpin + 'static,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    let state = BodyDecoder {
        body,
        framing,
        lines: SseLines::new(),
        whole: Vec::new(),
        decoder: ChunkDecoder::new(taken_ids),
        pending: VecDeque::new(),
        done: false,
    };
    Box::pin(futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(item) = st.pending.pop_front() {
                return Some((item, st));
            }
            if st.done {
                return None;
            }
            st.read().await;
        }
    }))
}

struct BodyDecoder<S> {
    body: S,
    framing: Framing,
    lines: SseLines,
    /// The whole body, for JSON framing.
    whole: Vec<u8>,
    decoder: ChunkDecoder,
    pending: VecDeque<Result<StreamEvent, ProviderError>>,
    done: bool,
}

impl<S, B, E> BodyDecoder<S>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    /// Reads one piece of the body and queues what it completes.
    async fn read(&mut self) {
        let frames = match self.body.next().await {
            Some(Ok(bytes)) => match self.framing {
                Framing::Sse => self.lines.push(bytes.as_ref()),
                Framing::Json => {
                    self.whole.extend_from_slice(bytes.as_ref());
                    Ok(Vec::new())
                }
            },
            Some(Err(e)) => return self.fail(ProviderError::Interrupted(e.to_string())),
            None => {
                self.done = true;
                match self.framing {
                    Framing::Sse => self.lines.finish(),
                    Framing::Json => String::from_utf8(std::mem::take(&mut self.whole))
                        .map(|data| {
                            vec![Frame {
                                event: "data".into(),
                                data,
                            }]
                        })
                        .map_err(|e| format!("response is not UTF-8: {e}")),
                }
            }
        };
        match frames {
            Ok(frames) => self.feed(frames),
            Err(e) => self.fail(ProviderError::Malformed(e)),
        }
    }

    fn feed(&mut self, frames: Vec<Frame>) {
        let at_end = self.done;
        let mut out = Vec::new();
        for frame in frames {
            self.pending.push_back(Ok(StreamEvent::Raw {
                event: frame.event.clone(),
                data: frame.data.clone(),
            }));
            let result = self.decoder.frame(&frame, &mut out);
            self.pending.extend(out.drain(..).map(Ok));
            if let Err(e) = result {
                return self.fail(e);
            }
            if self.decoder.stopped() {
                self.done = true;
                return;
            }
        }
        if at_end {
            let result = self.decoder.end(&mut out);
            self.pending.extend(out.drain(..).map(Ok));
            if let Err(e) = result {
                self.fail(e);
            }
        }
    }

    fn fail(&mut self, e: ProviderError) {
        self.pending.push_back(Err(e));
        self.done = true;
    }
}
