//! Reading one request back out of a recording, for the JSON pane's request stepper: the
//! pane keeps only each request's headline in memory and loads the body and raw events of
//! the request it shows from here.

use std::io::BufRead;
use std::path::Path;

use serde_json::Value;

use super::entry::{Entry, Kind};
use crate::protocol::AgentEvent;

/// One request as recorded, with what its response streamed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadedRequest {
    pub body: Value,
    /// Raw wire events (name, data) of its response.
    pub sse: Vec<(String, String)>,
    /// How many messages the request before it carried (the diff view shows the rest).
    pub prev_messages: Option<usize>,
}

/// A request line starts `{"t_ms":N,"type":"request",` (Entry's field order): told apart
/// without parsing the whole body.
fn is_request_line(line: &[u8]) -> bool {
    line.starts_with(b"{\"t_ms\":")
        && line
            .get(..48.min(line.len()))
            .is_some_and(|head| memchr::memmem::find(head, b"\"type\":\"request\"").is_some())
}

fn each_line(path: &Path, mut f: impl FnMut(&[u8]) -> bool) -> std::io::Result<()> {
    let mut reader = super::reader::lines(path)?;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            // A torn gzip tail: what came before still counts.
            Err(_) if !buf.is_empty() => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        if !f(buf.trim_ascii()) {
            return Ok(());
        }
    }
}

/// How many requests the recording holds.
pub fn count_requests(path: &Path) -> std::io::Result<usize> {
    let mut n = 0;
    each_line(path, |line| {
        n += usize::from(is_request_line(line));
        true
    })?;
    Ok(n)
}

fn messages_in(body: &Value) -> Option<usize> {
    body.get("messages").and_then(Value::as_array).map(Vec::len)
}

/// The request numbered `ordinal` (from 0, in file order), or None if there is no such one.
pub fn load_request(path: &Path, ordinal: usize) -> std::io::Result<Option<LoadedRequest>> {
    let mut seen = 0usize;
    let mut prev: Option<Vec<u8>> = None;
    let mut out: Option<LoadedRequest> = None;
    each_line(path, |line| {
        if is_request_line(line) {
            let index = seen;
            seen += 1;
            if out.is_some() {
                return false;
            }
            if index + 1 == ordinal {
                prev = Some(line.to_vec());
            }
            if index == ordinal {
                let body = match Entry::from_line(line) {
                    Ok(Entry {
                        kind: Kind::Event(AgentEvent::RequestStart { body, .. }),
                        ..
                    }) => body.json().clone(),
                    _ => Value::Null,
                };
                let prev_messages =
                    prev.take()
                        .and_then(|p| match Entry::from_line(&p).ok()?.kind {
                            Kind::Event(AgentEvent::RequestStart { body, .. }) => {
                                messages_in(body.json())
                            }
                            _ => None,
                        });
                out = Some(LoadedRequest {
                    body,
                    sse: Vec::new(),
                    prev_messages,
                });
            }
            return true;
        }
        if let Some(req) = &mut out
            && let Ok(Entry {
                kind: Kind::Event(AgentEvent::RawSse { event, data }),
                ..
            }) = Entry::from_line(line)
        {
            req.sse.push((event.into_owned(), data));
        }
        true
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(e: &Entry) -> String {
        serde_json::to_string(e).unwrap() + "\n"
    }

    #[test]
    fn finds_a_request_its_events_and_the_previous_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.record");
        let req = |n: usize| Entry {
            t_ms: n as u64,
            kind: Kind::Event(AgentEvent::RequestStart {
                turn: 1,
                attempt: 1,
                model: "m".into(),
                body: std::sync::Arc::new(json!({"messages": vec![json!({}); n]}).into()),
            }),
            req_ms: None,
        };
        let sse = |d: &str| Entry {
            t_ms: 0,
            kind: Kind::Event(AgentEvent::RawSse {
                event: "e".into(),
                data: d.into(),
            }),
            req_ms: Some(0),
        };
        let text = [req(1), sse("a"), req(3), sse("b"), sse("c"), req(5)]
            .iter()
            .map(line)
            .collect::<String>();
        std::fs::write(&path, text).unwrap();
        assert_eq!(count_requests(&path).unwrap(), 3);
        let r = load_request(&path, 1).unwrap().unwrap();
        assert_eq!(r.body["messages"].as_array().unwrap().len(), 3);
        assert_eq!(
            r.sse,
            vec![("e".into(), "b".into()), ("e".into(), "c".into())]
        );
        assert_eq!(r.prev_messages, Some(1));
        assert_eq!(load_request(&path, 0).unwrap().unwrap().prev_messages, None);
        assert!(load_request(&path, 3).unwrap().is_none());
    }
}
