//! A response body (bytes) → the provider's event stream: framing, a Raw copy of every
//! event for the JSON pane, then what the chunk means.

use std::collections::{HashSet, VecDeque};

use futures::{Stream, StreamExt};

use super::stream::ChunkDecoder;
use crate::provider::sse::{SseParser, SseRecord};
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
    // Boxed: unfold moves its state in and out on every item, and this one is large.
    let state = Box::new(BodyDecoder {
        body,
        framing,
        sse: SseParser::new(),
        whole: Vec::new(),
        decoder: ChunkDecoder::new(taken_ids),
        pending: VecDeque::new(),
        done: false,
    });
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
    sse: SseParser,
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
        let mut records = Vec::new();
        match self.body.next().await {
            Some(Ok(bytes)) => match self.framing {
                Framing::Sse => self.sse.feed(bytes.as_ref(), &mut records),
                Framing::Json => self.whole.extend_from_slice(bytes.as_ref()),
            },
            Some(Err(e)) => return self.fail(ProviderError::Interrupted(e.to_string())),
            None => {
                // An SSE event still open here is dropped (the WHATWG rule); whether the
                // message ended properly is the chunk decoder's call.
                self.done = true;
                if self.framing == Framing::Json {
                    records.push(SseRecord {
                        event: std::borrow::Cow::Borrowed(""),
                        data: String::from_utf8_lossy(&std::mem::take(&mut self.whole))
                            .into_owned(),
                    });
                }
            }
        }
        self.feed(records);
    }

    fn feed(&mut self, records: Vec<SseRecord>) {
        let at_end = self.done;
        let mut out = Vec::new();
        for record in records {
            let event = if record.event.is_empty() {
                std::borrow::Cow::Borrowed("data")
            } else {
                record.event.clone()
            };
            // Decoded first so the data moves into the Raw copy, which still goes first.
            let result = self.decoder.frame(&record, &mut out);
            self.pending.push_back(Ok(StreamEvent::Raw {
                event,
                data: record.data,
            }));
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
