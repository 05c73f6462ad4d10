//! The JSON-RPC 2.0 side of ACP: one JSON object per line on stdout, and the agent's own
//! requests to the client (`session/request_permission`, `fs/*`) waiting for their answers.
//!
//! Types come from `agent-client-protocol-schema` (pinned in Cargo.toml); the loop is ours:
//! the schema crate is the protocol's own generated types and changes slowly, while the
//! full SDK crate changed its major version four times in a year and would bring its own
//! runtime. A small loop on tokio is all ACP needs.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

/// JSON-RPC's standard error codes (ACP uses them as they are).
pub mod code {
    pub const PARSE_ERROR: i32 = -32700;
    pub const INVALID_REQUEST: i32 = -32600;
    pub const METHOD_NOT_FOUND: i32 = -32601;
    pub const INVALID_PARAMS: i32 = -32602;
    pub const INTERNAL_ERROR: i32 = -32603;
    /// ACP: the resource (a session) does not exist.
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// ACP: the request was cancelled (`$/cancel_request`).
    pub const REQUEST_CANCELLED: i32 = -32800;
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid_params(message: impl std::fmt::Display) -> Self {
        RpcError::new(code::INVALID_PARAMS, format!("invalid params: {message}"))
    }

    pub fn unknown_session(id: &str) -> Self {
        RpcError::new(
            code::RESOURCE_NOT_FOUND,
            format!("unknown session id {id:?}"),
        )
    }
}

/// Writes messages to the client and matches its answers to the agent's requests.
pub struct Outbox {
    lines: mpsc::UnboundedSender<String>,
    next_id: AtomicI64,
    pending: Mutex<HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>>,
}

impl Outbox {
    /// The outbox and the lines it writes, in order (the writer task takes them).
    pub fn new() -> (Outbox, mpsc::UnboundedReceiver<String>) {
        let (lines, rx) = mpsc::unbounded_channel();
        let outbox = Outbox {
            lines,
            next_id: AtomicI64::new(0),
            pending: Mutex::new(HashMap::new()),
        };
        (outbox, rx)
    }

    /// serde_json escapes every newline inside strings: a message is always one line.
    fn send(&self, message: Value) {
        let _ = self.lines.send(message.to_string());
    }

    /// Serialized straight to its line (no `Value` tree in between: a streamed reply is
    /// thousands of these).
    pub fn notify(&self, method: &str, params: impl Serialize) {
        #[derive(Serialize)]
        struct Notification<'a, P> {
            jsonrpc: &'static str,
            method: &'a str,
            params: P,
        }
        let message = Notification {
            jsonrpc: "2.0",
            method,
            params,
        };
        match serde_json::to_string(&message) {
            Ok(line) => {
                let _ = self.lines.send(line);
            }
            Err(e) => tracing::warn!("acp: {method} not sent: {e}"),
        }
    }

    pub fn respond(&self, id: Value, result: Result<Value, RpcError>) {
        self.send(match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        });
    }

    /// Sends a request to the client; the answer comes back through [`Outbox::resolve`].
    /// Returns its id (to withdraw it) and the answer to wait for.
    pub fn request(
        &self,
        method: &str,
        params: impl Serialize,
    ) -> (i64, oneshot::Receiver<Result<Value, RpcError>>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending").insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        (id, rx)
    }

    /// The client answered request `id` (unknown ids, answered twice or never asked, are
    /// ignored: an answer cannot run anything by itself).
    pub fn resolve(&self, id: &Value, answer: Result<Value, RpcError>) {
        let Some(id) = id.as_i64() else { return };
        if let Some(tx) = self.pending.lock().expect("pending").remove(&id) {
            let _ = tx.send(answer);
        }
    }

    /// Withdraws request `id` (`$/cancel_request`): its waiter gets a cancelled error.
    pub fn withdraw(&self, id: i64) {
        if let Some(tx) = self.pending.lock().expect("pending").remove(&id) {
            self.notify("$/cancel_request", json!({"requestId": id}));
            let _ = tx.send(Err(RpcError::new(
                code::REQUEST_CANCELLED,
                "the turn was cancelled",
            )));
        }
    }
}

/// An incoming line, classified.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The client's answer to one of our requests.
    Response {
        id: Value,
        answer: Result<Value, RpcError>,
    },
    /// Not JSON-RPC: answered with this error (id null when none could be read).
    Invalid {
        id: Value,
        error: RpcError,
    },
}

/// One line of stdin as it arrives (any bytes, without or with its newline): None for a
/// blank line (skipped), else the message it holds. Bytes that are not UTF-8 are read
/// lossily, so they fail as JSON with a parse error rather than being dropped.
pub fn read_line(bytes: &[u8]) -> Option<Incoming> {
    let line = String::from_utf8_lossy(bytes);
    if line.trim().is_empty() {
        return None;
    }
    Some(classify(&line))
}

/// Reads one line as JSON-RPC 2.0.
pub fn classify(line: &str) -> Incoming {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(code::PARSE_ERROR, format!("parse error: {e}")),
            };
        }
    };
    let Value::Object(map) = value else {
        return Incoming::Invalid {
            id: Value::Null,
            error: RpcError::new(
                code::INVALID_REQUEST,
                "invalid request: a message must be a JSON object (batches are not used by ACP)",
            ),
        };
    };
    let id = map.get("id").cloned();
    let valid_id = |id: &Value| matches!(id, Value::Number(_) | Value::String(_));
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Incoming::Invalid {
            id: id.filter(valid_id).unwrap_or(Value::Null),
            error: RpcError::new(
                code::INVALID_REQUEST,
                "invalid request: \"jsonrpc\" must be \"2.0\"",
            ),
        };
    }
    let params = map.get("params").cloned().unwrap_or(Value::Null);
    match (map.get("method"), id) {
        (Some(Value::String(method)), None) => Incoming::Notification {
            method: method.clone(),
            params,
        },
        (Some(Value::String(method)), Some(id)) if valid_id(&id) => Incoming::Request {
            id,
            method: method.clone(),
            params,
        },
        (Some(Value::String(_)), Some(_)) => Incoming::Invalid {
            id: Value::Null,
            error: RpcError::new(
                code::INVALID_REQUEST,
                "invalid request: \"id\" must be a number or a string",
            ),
        },
        (Some(_), id) => Incoming::Invalid {
            id: id.filter(valid_id).unwrap_or(Value::Null),
            error: RpcError::new(
                code::INVALID_REQUEST,
                "invalid request: \"method\" must be a string",
            ),
        },
        (None, Some(id)) if map.contains_key("result") || map.contains_key("error") => {
            let answer = match map.get("error") {
                Some(e) => Err(RpcError::new(
                    e["code"].as_i64().unwrap_or(0) as i32,
                    e["message"].as_str().unwrap_or("").to_string(),
                )),
                None => Ok(map.get("result").cloned().unwrap_or(Value::Null)),
            };
            Incoming::Response { id, answer }
        }
        (None, id) => Incoming::Invalid {
            id: id.filter(valid_id).unwrap_or(Value::Null),
            error: RpcError::new(
                code::INVALID_REQUEST,
                "invalid request: no \"method\" (and not a response)",
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified_with_standard_codes() {
        let bad = |line: &str| match classify(line) {
            Incoming::Invalid { error, .. } => error,
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(bad("{not json").code, code::PARSE_ERROR);
        assert!(bad("{not json").message.starts_with("parse error"));
        assert_eq!(bad("[1,2]").code, code::INVALID_REQUEST);
        assert_eq!(bad(r#"{"id":1,"method":"x"}"#).code, code::INVALID_REQUEST);
        assert_eq!(
            bad(r#"{"jsonrpc":"2.0","id":1,"method":5}"#).code,
            code::INVALID_REQUEST
        );
        assert_eq!(
            bad(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#).code,
            code::INVALID_REQUEST
        );
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}"#),
            Incoming::Request {
                id: json!(7),
                method: "initialize".into(),
                params: json!({})
            }
        );
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","method":"session/cancel"}"#),
            Incoming::Notification { .. }
        ));
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"no"}}"#),
            Incoming::Response {
                id: json!(3),
                answer: Err(RpcError::new(-32603, "no"))
            }
        );
    }

    #[tokio::test]
    async fn answers_reach_their_requests_and_withdrawn_ones_fail() {
        let (outbox, mut lines) = Outbox::new();
        let (id, answer) = outbox.request("session/request_permission", json!({}));
        let sent: Value = serde_json::from_str(&lines.recv().await.unwrap()).unwrap();
        assert_eq!(sent["id"], json!(id));
        outbox.resolve(&json!(id), Ok(json!({"ok": true})));
        assert_eq!(answer.await.unwrap(), Ok(json!({"ok": true})));
        let (id, answer) = outbox.request("x", json!({}));
        outbox.withdraw(id);
        assert_eq!(
            answer.await.unwrap().unwrap_err().code,
            code::REQUEST_CANCELLED
        );
    }
}
