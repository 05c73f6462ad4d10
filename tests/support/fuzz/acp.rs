//! `acp_jsonrpc`: one line of an editor's stdin through `tooloop acp`'s reader
//! (`acp::transport::read_line`), the function every byte from the client passes first.

use serde_json::{Value, json};
use tooloop::acp::transport::{Incoming, Outbox, code, read_line};

use super::MAX_INPUT;

/// Any bytes: never a panic; a blank line is skipped; anything else is a request, a
/// notification, a response or an error with a standard code and a message; the answer
/// written for it is one line of JSON that carries the request's id back unchanged; a
/// request or notification, written out again, reads back as the same message.
pub fn acp_jsonrpc(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some(message) = read_line(data) else {
        assert!(
            String::from_utf8_lossy(data).trim().is_empty(),
            "a line with content was skipped: {data:?}"
        );
        return;
    };
    let (outbox, mut lines) = Outbox::new();
    match &message {
        Incoming::Invalid { id, error } => {
            assert!(
                [code::PARSE_ERROR, code::INVALID_REQUEST].contains(&error.code),
                "non-standard code {} for {data:?}",
                error.code
            );
            assert!(!error.message.trim().is_empty(), "an empty error message");
            assert!(
                matches!(id, Value::Null | Value::Number(_) | Value::String(_)),
                "error answered with id {id}"
            );
            outbox.respond(id.clone(), Err(error.clone()));
        }
        Incoming::Request { id, method, params } => {
            assert!(matches!(id, Value::Number(_) | Value::String(_)), "id {id}");
            let again = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            assert_eq!(
                read_line(again.to_string().as_bytes()).as_ref(),
                Some(&message)
            );
            outbox.respond(id.clone(), Ok(json!({"echo": params})));
        }
        Incoming::Notification { method, params } => {
            let again = json!({"jsonrpc": "2.0", "method": method, "params": params});
            assert_eq!(
                read_line(again.to_string().as_bytes()).as_ref(),
                Some(&message)
            );
            return;
        }
        Incoming::Response { id, .. } => {
            // An answer to a request never asked is dropped: nothing to write.
            outbox.resolve(id, Ok(Value::Null));
            assert!(
                lines.try_recv().is_err(),
                "an answer to nothing wrote a line"
            );
            return;
        }
    }
    let line = lines.try_recv().expect("an answer is written");
    assert!(
        !line.contains('\n') && !line.contains('\r'),
        "a raw newline in {line:?}"
    );
    let answer: Value = serde_json::from_str(&line).expect("the answer is JSON");
    assert_eq!(answer["jsonrpc"], "2.0");
    let id = match &message {
        Incoming::Invalid { id, .. } | Incoming::Request { id, .. } => id,
        _ => unreachable!(),
    };
    assert_eq!(&answer["id"], id, "the answer's id");
}
